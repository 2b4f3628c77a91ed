//! The committed model files: up to date with the catalogue, accepted by the real tools
//! (`check_urdf` from liburdfdom-tools, libsdformat), and the rviz configuration.
//!
//! Regenerate the files with
//! `cargo run -p flotilla_common --no-default-features --bin gen_models`.

use flotilla_common::catalogue::ModuleKind;
use flotilla_common::models::{all_models, generated_files, robot_description, JointKind, Model};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn urdf_dir() -> PathBuf {
    repo_root().join("urdf")
}

fn committed(ext: &str) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(urdf_dir())
        .expect("urdf/ exists")
        .map(|e| e.expect("readable entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == ext))
        .collect();
    files.sort();
    files
}

fn skip_loudly(what: &str, install: &str) {
    // In CI (and `make test`, whose set-up installs both tools) a missing tool is a failure.
    assert!(std::env::var_os("CI").is_none(), "{what} is missing in CI: install {install}");
    eprintln!("\n**************************************************************");
    eprintln!("SKIPPED: {what} is not installed here, so it did NOT run.");
    eprintln!("Install {install} (scripts/setup.sh does in CI).");
    eprintln!("**************************************************************\n");
}

#[test]
fn committed_files_are_up_to_date() {
    let regenerate = "regenerate with `cargo run -p flotilla_common --no-default-features --bin gen_models`";
    let expected = generated_files();
    for (name, text) in &expected {
        let path = urdf_dir().join(name);
        let on_disk = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{} is missing ({e}); {regenerate}", path.display()));
        assert!(on_disk == *text, "{} is out of date with the catalogue; {regenerate}", path.display());
    }
    let names: BTreeSet<&str> = expected.iter().map(|(n, _)| n.as_str()).collect();
    for path in committed("urdf").into_iter().chain(committed("sdf")) {
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or_default();
        assert!(names.contains(name), "{} is not generated from the catalogue; delete it or add its model", path.display());
    }
}

#[test]
fn robot_description_is_the_committed_urdf() {
    for kind in ModuleKind::ALL {
        let path = urdf_dir().join(format!("{}.urdf", kind.name()));
        let file = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert!(robot_description(kind) == file, "{kind}: robot_description differs from {}", path.display());
    }
}

#[test]
fn there_is_a_model_of_every_module_kind_and_arena() {
    let names: BTreeSet<String> = all_models().into_iter().map(|m| m.name).collect();
    for kind in ModuleKind::ALL {
        assert!(names.contains(kind.name()), "no model of {kind}");
    }
    for arena in ["lily_tank", "blueswarm_tank", "mhp_tank", "kilobot_table"] {
        assert!(names.contains(arena), "no model of {arena}");
    }
}

#[test]
fn every_urdf_passes_check_urdf() {
    let files = committed("urdf");
    assert_eq!(files.len(), all_models().len());
    for file in files {
        let output = match Command::new("check_urdf").arg(&file).output() {
            Ok(o) => o,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return skip_loudly("check_urdf", "the Debian package liburdfdom-tools");
            }
            Err(e) => panic!("running check_urdf: {e}"),
        };
        let stdout = String::from_utf8_lossy(&output.stdout);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(
            output.status.success() && stdout.contains("Successfully Parsed XML"),
            "check_urdf rejects {}:\n{stdout}\n{stderr}",
            file.display()
        );
        assert!(stdout.contains("root Link: base_link"), "{}: root is not base_link:\n{stdout}", file.display());
    }
}

/// Builds the libsdformat checker (tests/models_sdf_check.cc) once per target dir; `None`
/// when no libsdformat development files or no C++ compiler are installed.
fn sdf_checker() -> Option<PathBuf> {
    let module = ["sdformat14", "sdformat13", "sdformat12"]
        .into_iter()
        .find(|m| Command::new("pkg-config").args(["--exists", m]).status().is_ok_and(|s| s.success()))?;
    let flags = Command::new("pkg-config").args(["--cflags", "--libs", module]).output().ok()?;
    let flags = String::from_utf8(flags.stdout).expect("pkg-config prints text");
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/models_sdf_check.cc");
    let binary = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("models_sdf_check_{module}"));
    let fresh = |b: &Path| -> bool {
        let modified = |p: &Path| std::fs::metadata(p).and_then(|m| m.modified()).ok();
        matches!((modified(b), modified(&source)), (Some(b), Some(s)) if b >= s)
    };
    if !fresh(&binary) {
        let status = Command::new("c++").args(["-std=c++17", "-o"]).arg(&binary).arg(&source).args(flags.split_whitespace()).status();
        match status {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return None,
            Err(e) => panic!("running c++: {e}"),
            Ok(s) => assert!(s.success(), "compiling {} against {module} failed", source.display()),
        }
    }
    Some(binary)
}

/// What libsdformat reports about one file.
#[derive(Default)]
struct SdfSummary {
    links: Vec<(String, f64)>,
    joints: Vec<(String, String)>,
    frames: Vec<String>,
    is_static: bool,
}

fn parse_summaries(text: &str) -> Vec<(String, SdfSummary)> {
    let mut out: Vec<(String, SdfSummary)> = Vec::new();
    for line in text.lines() {
        let words: Vec<&str> = line.split_whitespace().collect();
        match words.as_slice() {
            ["model", name, "static", s] => out.push((name.to_string(), SdfSummary { is_static: *s == "1", ..Default::default() })),
            ["link", name, "mass", m] => out.last_mut().expect("model first").1.links.push((name.to_string(), m.parse().expect("mass"))),
            ["joint", name, kind] => out.last_mut().expect("model first").1.joints.push((name.to_string(), kind.to_string())),
            ["frame", name] => out.last_mut().expect("model first").1.frames.push(name.to_string()),
            _ => panic!("unexpected checker output line `{line}`"),
        }
    }
    out
}

fn expected_joint_kind(kind: &JointKind) -> &'static str {
    match kind {
        JointKind::Fixed => "fixed",
        JointKind::Revolute { .. } => "revolute",
        JointKind::Prismatic { .. } => "prismatic",
        JointKind::Universal { .. } => "universal",
    }
}

#[test]
fn every_sdf_loads_in_libsdformat() {
    let Some(checker) = sdf_checker() else {
        return skip_loudly("libsdformat (development files) or a C++ compiler", "the Debian packages libsdformat-dev, pkg-config and g++");
    };
    let files = committed("sdf");
    assert_eq!(files.len(), all_models().len());
    let output = Command::new(&checker).args(&files).output().expect("the checker runs");
    assert!(output.status.success(), "libsdformat rejects a model file:\n{}", String::from_utf8_lossy(&output.stderr));
    let summaries = parse_summaries(&String::from_utf8_lossy(&output.stdout));
    assert_eq!(summaries.len(), files.len());
    // What libsdformat understood must be what the model says: every massive link with its
    // mass, every joint with its type (universal joints native), every massless frame.
    for model in all_models() {
        let (_, got) =
            summaries.iter().find(|(n, _)| *n == model.name).unwrap_or_else(|| panic!("libsdformat did not report model {}", model.name));
        assert_eq!(got.is_static, model.is_static, "{}", model.name);
        check_links_and_joints(&model, got);
    }
}

fn check_links_and_joints(model: &Model, got: &SdfSummary) {
    for link in &model.links {
        match link.inertial {
            Some(i) => {
                let (_, mass) = got
                    .links
                    .iter()
                    .find(|(n, _)| *n == link.name)
                    .unwrap_or_else(|| panic!("{}: link {} missing in libsdformat", model.name, link.name));
                assert!((mass - i.mass).abs() <= 1e-10 * i.mass, "{}: {} mass {mass} vs {}", model.name, link.name, i.mass);
            }
            None if link.name == "base_link" => assert!(got.links.iter().any(|(n, _)| n == "base_link")),
            None => {
                assert!(got.frames.contains(&link.name), "{}: frame {} missing in libsdformat", model.name, link.name)
            }
        }
    }
    for joint in model.joints.iter().filter(|j| model.link(&j.child).is_some_and(|l| l.inertial.is_some())) {
        let (_, kind) = got
            .joints
            .iter()
            .find(|(n, _)| *n == joint.name)
            .unwrap_or_else(|| panic!("{}: joint {} missing in libsdformat", model.name, joint.name));
        assert_eq!(kind, expected_joint_kind(&joint.kind), "{}: joint {}", model.name, joint.name);
    }
    if model.name == "molemod_robot" {
        let count = |k: &str| got.joints.iter().filter(|(_, t)| t == k).count();
        assert_eq!((count("prismatic"), count("universal")), (4, 2), "MoleMOD final model joints");
    }
}

#[test]
fn rviz_config_shows_tf_markers_image_tracks_and_kilobots() {
    let path = repo_root().join("config/flotilla.rviz");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let config: serde_yaml::Value = serde_yaml::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let manager = &config["Visualization Manager"];
    assert_eq!(manager["Global Options"]["Fixed Frame"].as_str(), Some("world"));
    let displays = manager["Displays"].as_sequence().expect("Displays list");
    let topic_of = |class: &str| -> Vec<String> {
        displays
            .iter()
            .filter(|d| d["Class"].as_str() == Some(class) && d["Enabled"].as_bool() == Some(true))
            .filter_map(|d| d["Topic"]["Value"].as_str().map(str::to_owned))
            .collect()
    };
    assert!(displays.iter().any(|d| d["Class"].as_str() == Some("rviz_default_plugins/TF")), "no TF display");
    let marker_topics = topic_of("rviz_default_plugins/MarkerArray");
    assert!(marker_topics.contains(&"/tank/markers".to_owned()), "{marker_topics:?}");
    assert!(marker_topics.contains(&"/tracking/markers".to_owned()), "{marker_topics:?}");
    assert!(marker_topics.contains(&"/kilobot/markers".to_owned()), "{marker_topics:?}");
    assert_eq!(topic_of("rviz_default_plugins/Image"), vec!["/overhead_camera/image_raw".to_owned()]);
}
