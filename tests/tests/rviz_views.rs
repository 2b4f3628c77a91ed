//! The scenario rviz views (`config/<scenario>.rviz`, and `config/molemod.rviz` for
//! MoleMOD's physics): the committed files are what `gen_rviz` makes, they hold one
//! RobotModel per module the scenario's world starts with (topic
//! `/<module>/robot_description`, TF Prefix `<module>`; MoleMOD: robots 0-5), and the
//! launch file starts rviz2 on its view with `rviz:=true` (and not without). No ROS needed: the
//! launch files are evaluated, not run (rviz2 is not installed here; a stand-in package
//! takes its place).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use flotilla_common::params::{load_file, NodeIdentity};
use flotilla_e2e::{bin_dir, repo_root};
use flotilla_launch::{evaluate_launch, read_launch_file, CommandArg, LaunchEnv, ParamValue};
use serde_yaml::Value;
use tank_physics::rviz::{generate, MODULES_GROUP, MOLEMOD_VIEW, ROBOT_MODEL_CLASS, SCENARIOS};
use tank_physics::{World, WorldConfig};

/// The modules of the scenario's world, as the physics names them at start.
fn world_modules(scenario: &str) -> BTreeSet<String> {
    let path = repo_root().join(format!("config/{scenario}.yaml"));
    let tree = load_file(&path, &NodeIdentity::new("tank_physics", "/")).unwrap_or_else(|e| panic!("{e}"));
    let config = WorldConfig::from_params(&Value::Mapping(tree)).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let seed = config.seed;
    World::new(config, seed).unwrap_or_else(|e| panic!("{scenario}: {e}")).bodies().into_iter().map(|b| b.name).collect()
}

/// Every view with the modules it must draw: the scenarios' worlds, and MoleMOD's robots
/// as `molemod_physics` names their frames (checked on /tf by the e2e `molemod` test).
fn views() -> Vec<(&'static str, BTreeSet<String>)> {
    let molemod = (0..6).map(|i| format!("molemod/robot_{i}")).collect();
    SCENARIOS.iter().map(|s| (*s, world_modules(s))).chain([(MOLEMOD_VIEW, molemod)]).collect()
}

#[test]
fn committed_views_are_the_generators_output() {
    let config = repo_root().join("config");
    let views = generate(&config).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(views.len(), SCENARIOS.len() + 1);
    for (name, text) in views {
        let path = config.join(&name);
        let committed = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert!(
            committed == text,
            "{} differs from what gen_rviz makes; run `cargo run -p tank_physics --no-default-features --bin gen_rviz`",
            path.display()
        );
    }
}

#[test]
fn each_view_has_a_robot_model_per_module_of_its_scenario() {
    for (scenario, modules) in views() {
        let path = repo_root().join(format!("config/{scenario}.rviz"));
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let view: Value = serde_yaml::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let manager = &view["Visualization Manager"];
        assert_eq!(manager["Global Options"]["Fixed Frame"].as_str(), Some("world"), "{scenario}");
        let displays = manager["Displays"].as_sequence().unwrap_or_else(|| panic!("{scenario}: no Displays"));
        assert!(displays.iter().any(|d| d["Class"].as_str() == Some("rviz_default_plugins/TF")), "{scenario}: no TF display");
        let groups: Vec<&Value> = displays.iter().filter(|d| d["Name"].as_str() == Some(MODULES_GROUP)).collect();
        assert_eq!(groups.len(), 1, "{scenario}: one `{MODULES_GROUP}` group");
        assert_eq!(groups[0]["Class"].as_str(), Some("rviz_common/Group"));
        let models = groups[0]["Displays"].as_sequence().unwrap_or_else(|| panic!("{scenario}: empty group"));
        let mut named = BTreeSet::new();
        for m in models {
            assert_eq!(m["Class"].as_str(), Some(ROBOT_MODEL_CLASS), "{scenario}: {m:?}");
            assert_eq!(m["Description Source"].as_str(), Some("Topic"), "{scenario}: {m:?}");
            assert_eq!(m["Description Topic"]["Durability Policy"].as_str(), Some("Transient Local"), "{scenario}: {m:?}");
            assert_eq!(m["Enabled"].as_bool(), Some(true), "{scenario}: {m:?}");
            let prefix = m["TF Prefix"].as_str().unwrap_or_else(|| panic!("{scenario}: no TF Prefix in {m:?}"));
            let topic = m["Description Topic"]["Value"].as_str().unwrap_or_default();
            assert_eq!(topic, format!("/{prefix}/robot_description"), "{scenario}");
            assert!(named.insert(prefix.to_owned()), "{scenario}: {prefix} twice");
        }
        assert_eq!(named, modules, "{scenario}: the view's modules are not the world's");
    }
    // The scenarios themselves: 15 Lilies, 24 balls.
    assert_eq!(world_modules("lily_15").len(), 15);
    assert_eq!(world_modules("pingpong_24").len(), 24);
}

/// A prefix holding the `flotilla` package (this checkout's launch/ and config/, the built
/// binaries) and a stand-in `rviz2` package.
fn ament_prefix(dir: &Path) -> PathBuf {
    let prefix = dir.join("prefix");
    let index = prefix.join("share/ament_index/resource_index/packages");
    std::fs::create_dir_all(&index).unwrap();
    for package in ["flotilla", "rviz2"] {
        std::fs::write(index.join(package), "").unwrap();
    }
    std::fs::create_dir_all(prefix.join("share/flotilla")).unwrap();
    for folder in ["launch", "config"] {
        std::os::unix::fs::symlink(repo_root().join(folder), prefix.join("share/flotilla").join(folder)).unwrap();
    }
    std::fs::create_dir_all(prefix.join("lib")).unwrap();
    std::os::unix::fs::symlink(bin_dir(), prefix.join("lib/flotilla")).unwrap();
    std::fs::create_dir_all(prefix.join("lib/rviz2")).unwrap();
    let rviz = prefix.join("lib/rviz2/rviz2");
    std::fs::write(&rviz, "#!/bin/sh\nexit 0\n").unwrap();
    std::fs::set_permissions(&rviz, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    prefix
}

#[test]
fn scenario_launch_files_start_rviz2_on_their_view_only_when_asked() {
    let dir = tempfile::tempdir().unwrap();
    let prefix = ament_prefix(dir.path());
    let env = LaunchEnv::new(repo_root())
        .with_var("AMENT_PREFIX_PATH", prefix.display().to_string())
        .with_var("HOME", dir.path().display().to_string());
    for scenario in SCENARIOS.into_iter().chain([MOLEMOD_VIEW]) {
        let file = read_launch_file(&repo_root().join(format!("launch/{scenario}.launch.yaml"))).unwrap_or_else(|e| panic!("{e}"));
        let rviz_processes = |args: &[(String, String)]| {
            let plan = evaluate_launch(&file, args, &env).unwrap_or_else(|e| panic!("{scenario}: {e}"));
            plan.processes.into_iter().filter(|p| p.executable.ends_with("lib/rviz2/rviz2")).collect::<Vec<_>>()
        };
        assert!(rviz_processes(&[]).is_empty(), "{scenario}: rviz2 starts without rviz:=true");
        let started = rviz_processes(&[("rviz".into(), "true".into())]);
        assert_eq!(started.len(), 1, "{scenario}: rviz:=true");
        let args: Vec<String> = started[0]
            .args
            .iter()
            .filter_map(|a| match a {
                CommandArg::Plain(s) => Some(s.clone()),
                CommandArg::GeneratedParams(_) => None,
            })
            .collect();
        let view =
            args.iter().position(|a| a == "-d").and_then(|i| args.get(i + 1)).unwrap_or_else(|| panic!("{scenario}: no -d in {args:?}"));
        let view = std::fs::canonicalize(view).unwrap_or_else(|e| panic!("{scenario}: {view}: {e}"));
        assert_eq!(view, std::fs::canonicalize(repo_root().join(format!("config/{scenario}.rviz"))).unwrap(), "{scenario}");
        // rviz2 runs on the simulation's clock like every node of the scenario.
        let sim_time = started[0].args.iter().any(|a| match a {
            CommandArg::GeneratedParams(p) => p.entries.iter().any(|(k, v)| k == "use_sim_time" && *v == ParamValue::Bool(true)),
            CommandArg::Plain(_) => false,
        });
        assert!(sim_time, "{scenario}: rviz2 without use_sim_time: {:?}", started[0].args);
    }
}
