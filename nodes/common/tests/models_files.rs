//! The committed model files: up to date with the catalogue, accepted by the real tools
//! (`check_urdf` from liburdfdom-tools, libsdformat), and the rviz configuration.
//!
//! Regenerate the files with
//! `cargo run -p flotilla_common --no-default-features --bin gen_models`.

use flotilla_common::catalogue::ModuleKind;
use flotilla_common::models::{all_models, generated_files, robot_description, JointKind, Model};
use nalgebra::{Isometry3, Quaternion, Translation3, UnitQuaternion};
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
        // Tests run in parallel processes, and as threads of one process under `cargo
        // test`: each compiles to a name of its own (process and call) and renames it into
        // place, so none ever runs or moves a checker another one is still writing
        // (regressions: "Text file busy"; two threads of one process sharing the name).
        static BUILDS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let call = BUILDS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let partial = binary.with_extension(format!("{}.{call}.partial", std::process::id()));
        let status = Command::new("c++").args(["-std=c++17", "-o"]).arg(&partial).arg(&source).args(flags.split_whitespace()).status();
        match status {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return None,
            Err(e) => panic!("running c++: {e}"),
            Ok(s) => assert!(s.success(), "compiling {} against {module} failed", source.display()),
        }
        std::fs::rename(&partial, &binary).unwrap_or_else(|e| panic!("moving the checker into place at {}: {e}", binary.display()));
    }
    Some(binary)
}

/// A pose libsdformat resolved in the model frame.
fn isometry(xyz: [f64; 3], wxyz: [f64; 4]) -> Isometry3<f64> {
    let rotation = UnitQuaternion::from_quaternion(Quaternion::new(wxyz[0], wxyz[1], wxyz[2], wxyz[3]));
    Isometry3::from_parts(Translation3::new(xyz[0], xyz[1], xyz[2]), rotation)
}

/// A link as libsdformat reports it.
struct SdfLink {
    name: String,
    /// Mass, kg.
    mass: f64,
    /// Link frame in the model frame.
    pose: Isometry3<f64>,
}

/// A joint as libsdformat reports it.
struct SdfJoint {
    name: String,
    kind: String,
    parent: String,
    child: String,
}

/// A `<frame>` as libsdformat reports it.
struct SdfFrame {
    name: String,
    /// Frame in the model frame.
    pose: Isometry3<f64>,
}

/// What libsdformat reports about one file.
#[derive(Default)]
struct SdfSummary {
    links: Vec<SdfLink>,
    /// (link, visual name).
    visuals: Vec<(String, String)>,
    joints: Vec<SdfJoint>,
    frames: Vec<SdfFrame>,
    is_static: bool,
}

impl SdfSummary {
    fn link(&self, name: &str) -> Option<&SdfLink> {
        self.links.iter().find(|l| l.name == name)
    }

    fn joint(&self, name: &str) -> Option<&SdfJoint> {
        self.joints.iter().find(|j| j.name == name)
    }

    fn frame(&self, name: &str) -> Option<&SdfFrame> {
        self.frames.iter().find(|f| f.name == name)
    }
}

/// Everything the checker printed for one run.
struct Loaded {
    /// libsdformat's version.
    library: String,
    /// Whether this libsdformat keeps a `<frame>` for each link and joint that URDF
    /// fixed-joint reduction merges away.
    lumped_frames: bool,
    models: Vec<(String, SdfSummary)>,
}

impl Loaded {
    fn model(&self, name: &str) -> &SdfSummary {
        self.models.iter().find(|(n, _)| n == name).map(|(_, s)| s).unwrap_or_else(|| panic!("libsdformat did not report model {name}"))
    }
}

fn numbers<const N: usize>(words: &[&str], line: &str) -> [f64; N] {
    let values: Vec<f64> = words.iter().map(|w| w.parse().unwrap_or_else(|_| panic!("bad number in `{line}`"))).collect();
    values.try_into().unwrap_or_else(|_| panic!("expected {N} numbers in `{line}`"))
}

fn pose_of(words: &[&str], line: &str) -> Isometry3<f64> {
    let [x, y, z, qw, qx, qy, qz] = numbers::<7>(words, line);
    isometry([x, y, z], [qw, qx, qy, qz])
}

fn parse_checker_output(text: &str) -> Loaded {
    let mut lines = text.lines();
    let header = lines.next().expect("the checker prints its header first");
    let (library, lumped_frames) = match header.split_whitespace().collect::<Vec<_>>().as_slice() {
        ["library", version, "lumped_frames", f] => (version.to_string(), *f == "1"),
        _ => panic!("unexpected checker header `{header}`"),
    };
    let mut models: Vec<(String, SdfSummary)> = Vec::new();
    for line in lines {
        let words: Vec<&str> = line.split_whitespace().collect();
        if let ["model", name, "static", s] = words.as_slice() {
            models.push((name.to_string(), SdfSummary { is_static: *s == "1", ..Default::default() }));
            continue;
        }
        let current = &mut models.last_mut().unwrap_or_else(|| panic!("`{line}` before any model")).1;
        match words.as_slice() {
            ["link", name, "mass", m, "pose", pose @ ..] => current.links.push(SdfLink {
                name: name.to_string(),
                mass: m.parse().unwrap_or_else(|_| panic!("bad mass in `{line}`")),
                pose: pose_of(pose, line),
            }),
            ["visual", link, name] => current.visuals.push((link.to_string(), name.to_string())),
            ["joint", name, kind, parent, child] => current.joints.push(SdfJoint {
                name: name.to_string(),
                kind: kind.to_string(),
                parent: parent.to_string(),
                child: child.to_string(),
            }),
            ["frame", name, _attached_to, "pose", pose @ ..] => {
                current.frames.push(SdfFrame { name: name.to_string(), pose: pose_of(pose, line) })
            }
            _ => panic!("unexpected checker output line `{line}`"),
        }
    }
    Loaded { library, lumped_frames, models }
}

/// Runs the checker on `files`; panics with libsdformat's messages when it rejects one.
fn load_in_libsdformat(checker: &Path, files: &[PathBuf]) -> Loaded {
    let output = Command::new(checker).args(files).output().expect("the checker runs");
    assert!(output.status.success(), "libsdformat rejects a model file:\n{}", String::from_utf8_lossy(&output.stderr));
    let loaded = parse_checker_output(&String::from_utf8_lossy(&output.stdout));
    assert_eq!(loaded.models.len(), files.len());
    loaded
}

/// Whether two poses agree to 1e-9 m and about 1e-9 rad.
fn same_pose(a: &Isometry3<f64>, b: &Isometry3<f64>) -> bool {
    (a.translation.vector - b.translation.vector).norm() < 1e-9
        && (a.rotation.to_rotation_matrix().matrix() - b.rotation.to_rotation_matrix().matrix()).norm() < 1e-9
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
    let loaded = load_in_libsdformat(&checker, &files);
    // What libsdformat understood must be what the model says: every massive link with its
    // mass and place, every joint with its type (universal joints native), every massless
    // frame in its place.
    for model in all_models() {
        let got = loaded.model(&model.name);
        assert_eq!(got.is_static, model.is_static, "{}", model.name);
        check_links_and_joints(&model, got);
    }
}

fn check_links_and_joints(model: &Model, got: &SdfSummary) {
    for link in &model.links {
        let rest = model.rest_pose(&link.name);
        match link.inertial {
            Some(i) => {
                let kept = got.link(&link.name).unwrap_or_else(|| panic!("{}: link {} missing in libsdformat", model.name, link.name));
                assert!((kept.mass - i.mass).abs() <= 1e-10 * i.mass, "{}: {} mass {} vs {}", model.name, link.name, kept.mass, i.mass);
                assert!(
                    same_pose(&kept.pose, &rest),
                    "{}: link {} at {} in libsdformat, {rest} in the model",
                    model.name,
                    link.name,
                    kept.pose
                );
            }
            None if link.name == "base_link" => assert!(got.link("base_link").is_some(), "{}: no base_link", model.name),
            None => {
                let frame = got.frame(&link.name).unwrap_or_else(|| panic!("{}: frame {} missing in libsdformat", model.name, link.name));
                assert!(
                    same_pose(&frame.pose, &rest),
                    "{}: frame {} at {} in libsdformat, {rest} in the model",
                    model.name,
                    link.name,
                    frame.pose
                );
            }
        }
    }
    for joint in model.joints.iter().filter(|j| model.link(&j.child).is_some_and(|l| l.inertial.is_some())) {
        let kept = got.joint(&joint.name).unwrap_or_else(|| panic!("{}: joint {} missing in libsdformat", model.name, joint.name));
        assert_eq!(kept.kind, expected_joint_kind(&joint.kind), "{}: joint {}", model.name, joint.name);
    }
    if model.name == "molemod_robot" {
        let count = |k: &str| got.joints.iter().filter(|j| j.kind == k).count();
        assert_eq!((count("prismatic"), count("universal")), (4, 2), "MoleMOD final model joints");
    }
}

/// A URDF file as its XML says, read here independently of the crate's reader.
struct UrdfFile {
    links: Vec<UrdfLink>,
    joints: Vec<UrdfJoint>,
    /// `<gazebo><static>true</static></gazebo>` at robot level.
    is_static: bool,
}

struct UrdfLink {
    name: String,
    /// `<inertial><mass value>`, kg; `None` without `<inertial>`.
    mass: Option<f64>,
    /// Number of `<visual>`s.
    visuals: usize,
}

struct UrdfJoint {
    name: String,
    kind: String,
    parent: String,
    child: String,
    /// Joint frame in the parent link frame.
    origin: Isometry3<f64>,
    /// `<gazebo reference="joint"><preserveFixedJoint>true</preserveFixedJoint></gazebo>`.
    preserved: bool,
}

fn elements<'a, 'i>(node: roxmltree::Node<'a, 'i>, tag: &str) -> Vec<roxmltree::Node<'a, 'i>> {
    node.children().filter(|c| c.is_element() && c.tag_name().name() == tag).collect()
}

fn xml_attribute(path: &Path, node: roxmltree::Node, name: &str) -> String {
    node.attribute(name).unwrap_or_else(|| panic!("{}: <{}> without {name}", path.display(), node.tag_name().name())).to_owned()
}

/// Three numbers of an `<origin>` attribute; zeros when the origin or attribute is absent.
fn xml_triple(origin: Option<roxmltree::Node>, name: &str) -> [f64; 3] {
    origin.and_then(|n| n.attribute(name)).map_or([0.0; 3], |t| numbers::<3>(&t.split_whitespace().collect::<Vec<_>>(), t))
}

/// Whether a `<gazebo>` extension with this `reference` (`None`: the robot's) sets `tag` true.
fn gazebo_flag(robot: roxmltree::Node, reference: Option<&str>, tag: &str) -> bool {
    elements(robot, "gazebo")
        .into_iter()
        .filter(|g| g.attribute("reference") == reference)
        .flat_map(|g| elements(g, tag))
        .any(|flag| flag.text().is_some_and(|t| matches!(t.trim(), "true" | "1")))
}

impl UrdfFile {
    fn read(path: &Path) -> UrdfFile {
        let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let doc = roxmltree::Document::parse(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let robot = doc.root_element();
        let links = elements(robot, "link")
            .into_iter()
            .map(|l| UrdfLink {
                name: xml_attribute(path, l, "name"),
                mass: elements(l, "inertial").first().map(|i| {
                    let mass = elements(*i, "mass");
                    let m = mass.first().unwrap_or_else(|| panic!("{}: <inertial> without <mass>", path.display()));
                    let value = xml_attribute(path, *m, "value");
                    value.parse().unwrap_or_else(|_| panic!("{}: mass {value}", path.display()))
                }),
                visuals: elements(l, "visual").len(),
            })
            .collect();
        let joints = elements(robot, "joint")
            .into_iter()
            .map(|j| {
                let origin = elements(j, "origin").first().copied();
                let [x, y, z] = xml_triple(origin, "xyz");
                let [roll, pitch, yaw] = xml_triple(origin, "rpy");
                let name = xml_attribute(path, j, "name");
                UrdfJoint {
                    preserved: gazebo_flag(robot, Some(name.as_str()), "preserveFixedJoint"),
                    name,
                    kind: xml_attribute(path, j, "type"),
                    parent: xml_attribute(path, elements(j, "parent")[0], "link"),
                    child: xml_attribute(path, elements(j, "child")[0], "link"),
                    origin: Isometry3::from_parts(Translation3::new(x, y, z), UnitQuaternion::from_euler_angles(roll, pitch, yaw)),
                }
            })
            .collect();
        UrdfFile { links, joints, is_static: gazebo_flag(robot, None, "static") }
    }

    fn parent_joint(&self, link: &str) -> Option<&UrdfJoint> {
        self.joints.iter().find(|j| j.child == link)
    }

    /// Link frame in the root link frame with every joint at zero.
    fn rest_pose(&self, link: &str) -> Isometry3<f64> {
        match self.parent_joint(link) {
            Some(j) => self.rest_pose(&j.parent) * j.origin,
            None => Isometry3::identity(),
        }
    }

    /// Whether libsdformat's URDF converter merges `link` into its parent (fixed-joint
    /// reduction): a massless link on a fixed joint that no `preserveFixedJoint` keeps.
    fn is_lumped(&self, link: &UrdfLink) -> bool {
        link.mass.is_none() && self.parent_joint(&link.name).is_some_and(|j| j.kind == "fixed" && !j.preserved)
    }

    /// The link a lumped link's shapes end up on: its first ancestor that is not lumped.
    fn carrier<'a>(&'a self, link: &'a UrdfLink) -> &'a str {
        let mut current = link;
        while self.is_lumped(current) {
            let parent = &self.parent_joint(&current.name).expect("a lumped link has a parent joint").parent;
            current = self.links.iter().find(|l| l.name == *parent).expect("the parent link is defined");
        }
        &current.name
    }
}

/// What of `file` libsdformat lost, one line per link or joint; empty when everything the
/// URDF holds is there: every massive link (and any massless link on a movable joint, which
/// libsdformat drops with everything below it) as a link of the same name, mass and place;
/// every movable joint with its type, parent and child; every massless frame on a fixed
/// joint merged into its carrier link with all its shapes, and, where this libsdformat keeps
/// them, as a `<frame>` of the same name and place beside one named after its joint.
fn urdf_losses(file: &UrdfFile, got: &SdfSummary, lumped_frames: bool) -> Vec<String> {
    let mut lost = Vec::new();
    for link in &file.links {
        let rest = file.rest_pose(&link.name);
        if file.is_lumped(link) {
            let carrier = file.carrier(link);
            let marker = format!("_fixed_joint_lump__{}_visual", link.name);
            let shapes = got.visuals.iter().filter(|(l, v)| l == carrier && v.contains(&marker)).count();
            if shapes != link.visuals {
                lost.push(format!("frame {}: {shapes} of its {} visuals merged into {carrier}", link.name, link.visuals));
            }
            if lumped_frames {
                match got.frame(&link.name) {
                    None => lost.push(format!("frame {} missing", link.name)),
                    Some(f) if !same_pose(&f.pose, &rest) => lost.push(format!("frame {} at {}, URDF {rest}", link.name, f.pose)),
                    Some(_) => {}
                }
            }
            continue;
        }
        match got.link(&link.name) {
            None => lost.push(match link.mass {
                Some(_) => format!("link {} missing", link.name),
                None => format!("link {} missing (massless, not on a fixed joint: libsdformat drops it and all below it)", link.name),
            }),
            Some(kept) => {
                let mass = link.mass.unwrap_or(0.0);
                if (kept.mass - mass).abs() > 1e-10 * mass.max(1e-12) {
                    lost.push(format!("link {} mass {} kg, URDF {mass} kg", link.name, kept.mass));
                }
                if !same_pose(&kept.pose, &rest) {
                    lost.push(format!("link {} at {}, URDF {rest}", link.name, kept.pose));
                }
            }
        }
    }
    for joint in &file.joints {
        let child_lumped = file.links.iter().find(|l| l.name == joint.child).is_some_and(|l| file.is_lumped(l));
        if child_lumped {
            if lumped_frames && got.frame(&joint.name).is_none() {
                lost.push(format!("frame of fixed joint {} missing", joint.name));
            }
            continue;
        }
        match got.joint(&joint.name) {
            None => lost.push(format!("joint {} ({}) missing", joint.name, joint.kind)),
            Some(kept)
                if (kept.kind.as_str(), kept.parent.as_str(), kept.child.as_str())
                    != (joint.kind.as_str(), joint.parent.as_str(), joint.child.as_str()) =>
            {
                lost.push(format!(
                    "joint {}: {} {} -> {} in libsdformat, URDF {} {} -> {}",
                    joint.name, kept.kind, kept.parent, kept.child, joint.kind, joint.parent, joint.child
                ))
            }
            Some(_) => {}
        }
    }
    let expected_links = file.links.iter().filter(|l| !file.is_lumped(l)).count();
    if got.links.len() != expected_links {
        lost.push(format!("{} links in libsdformat, {expected_links} expected", got.links.len()));
    }
    if got.is_static != file.is_static {
        lost.push(format!("static {} in libsdformat, URDF {}", got.is_static, file.is_static));
    }
    lost
}

/// Gazebo loads URDF through libsdformat's converter: every committed URDF must load there
/// (static arenas with a real floor-and-walls link) with every link and joint kept.
#[test]
fn every_urdf_loads_in_libsdformat_with_every_link_and_joint() {
    let Some(checker) = sdf_checker() else {
        return skip_loudly("libsdformat (development files) or a C++ compiler", "the Debian packages libsdformat-dev, pkg-config and g++");
    };
    let files = committed("urdf");
    assert_eq!(files.len(), all_models().len());
    let output = Command::new(&checker).args(&files).output().expect("the checker runs");
    let loaded = parse_checker_output(&String::from_utf8_lossy(&output.stdout));
    let refused = String::from_utf8_lossy(&output.stderr);
    let mut problems: Vec<String> = refused.lines().map(str::to_owned).collect();
    for path in &files {
        let name = path.file_stem().and_then(|s| s.to_str()).unwrap_or_default();
        let Some((_, got)) = loaded.models.iter().find(|(n, _)| n == name) else {
            if !refused.contains(&path.display().to_string()) {
                problems.push(format!("{}: not reported by libsdformat", path.display()));
            }
            continue;
        };
        let file = UrdfFile::read(path);
        problems.extend(urdf_losses(&file, got, loaded.lumped_frames).into_iter().map(|p| format!("{}: {p}", path.display())));
        let kept = file.links.iter().filter(|l| !file.is_lumped(l)).count();
        eprintln!(
            "{name}: URDF {} links / {} joints; libsdformat {} links, {} joints, {} frames ({kept} links expected, {} massless frames merged)",
            file.links.len(),
            file.joints.len(),
            got.links.len(),
            got.joints.len(),
            got.frames.len(),
            file.links.len() - kept
        );
    }
    assert!(
        output.status.success() && problems.is_empty(),
        "libsdformat {} (lumped frames kept: {}) loses what the URDFs hold:\n{}",
        loaded.library,
        loaded.lumped_frames,
        problems.join("\n")
    );
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
