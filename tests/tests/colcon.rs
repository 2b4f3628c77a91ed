//! `colcon build` of a workspace holding this repository under `src/` (issue #20).
//!
//! colcon must find exactly the two ROS packages (`flotilla_msgs` and `flotilla` in
//! ament/flotilla), with and without colcon's Cargo extensions (which otherwise take every
//! crate of the Cargo workspace for a package), build the messages, then the whole Cargo
//! workspace once, and install `flotilla` as an ament package that `ros2 pkg executables`,
//! `ros2 run` and `ros2 launch` use from the install.
//!
//! colcon comes from scripts/test.sh (`FLOTILLA_COLCON`, `FLOTILLA_COLCON_CARGO`: venvs of
//! `scripts/setup.sh colcon` and `colcon-cargo`), the real `ros2` from the test kit
//! (`FLOTILLA_ROS2_CLI_ENV`); without them the test says so and skips that part. The
//! workspace is `target/colcon-ws` (its `src/flotilla` a link to this checkout), kept
//! between runs: the first build in a clone starts from copies of the registry crates this
//! test's own profile directory holds and compiles r2r and the workspace's crates (r2r binds
//! the workspace's own flotilla_msgs, so the install path must stay the same for later runs
//! to be incremental).

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use flotilla_e2e::{repo_root, run_until_interrupted, Domain, Launch};

/// A cold workspace build on 2 loaded cores stays well below this.
const BUILD_TIMEOUT: Duration = Duration::from_secs(40 * 60);

/// The venv of `scripts/setup.sh <step>`, from the environment variable scripts/test.sh sets.
fn venv(var: &str) -> Option<PathBuf> {
    std::env::var_os(var).map(PathBuf::from).filter(|p| p.join("bin/colcon").is_file())
}

/// The test's environment without the Flotilla packages of the checkout (build/ament and the
/// cached flotilla_msgs): the workspace must build and install its own.
fn underlay_env() -> Vec<(&'static str, OsString)> {
    let list = |var: &str| -> Vec<String> {
        std::env::var(var).unwrap_or_default().split(':').filter(|p| !p.is_empty()).map(str::to_owned).collect()
    };
    let flotilla_prefixes: Vec<String> = list("AMENT_PREFIX_PATH")
        .into_iter()
        .filter(|p| {
            let index = Path::new(p).join("share/ament_index/resource_index/packages");
            index.join("flotilla").exists() || index.join("flotilla_msgs").exists()
        })
        .collect();
    ["AMENT_PREFIX_PATH", "CMAKE_PREFIX_PATH", "LD_LIBRARY_PATH", "PYTHONPATH"]
        .into_iter()
        .map(|var| {
            let kept: Vec<String> =
                list(var).into_iter().filter(|p| !flotilla_prefixes.iter().any(|f| p.starts_with(f.as_str()))).collect();
            (var, OsString::from(kept.join(":")))
        })
        .collect()
}

/// `bash -c SCRIPT` in `dir` with the underlay environment; no network (CARGO_NET_OFFLINE:
/// scripts/test.sh fetched every crate before entering the network namespace).
fn shell(dir: &Path, script: &str) -> Command {
    // Launch::spawn runs commands in the checkout: the script changes directory itself.
    let mut cmd = Command::new("bash");
    cmd.arg("-c").arg(format!("cd \"$0\" && {script}")).arg(dir).envs(underlay_env()).env("CARGO_NET_OFFLINE", "true");
    for var in ["IDL_PACKAGE_FILTER", "FLOTILLA_ROOT", "CARGO_TARGET_DIR", "COLCON_PREFIX_PATH"] {
        cmd.env_remove(var);
    }
    cmd
}

/// Runs `cmd` to completion (bounded), returning (exit code, output).
fn run(cmd: Command, domain: &Domain, timeout: Duration) -> (Option<i32>, String) {
    let (status, output) = Launch::spawn(cmd, domain).expect("starting").wait(timeout).expect("finishing in time");
    (status.code(), output)
}

/// `colcon list` in `ws`: (name, type) pairs.
fn colcon_list(colcon: &Path, ws: &Path, domain: &Domain) -> Vec<(String, String)> {
    let (code, output) = run(shell(ws, &format!("exec {}/bin/colcon list", colcon.display())), domain, Duration::from_secs(120));
    assert_eq!(code, Some(0), "colcon list failed:\n{output}");
    let mut listed: Vec<(String, String)> = output
        .lines()
        .filter_map(|l| {
            let fields: Vec<&str> = l.split('\t').collect();
            (fields.len() == 3).then(|| (fields[0].to_owned(), fields[2].trim_matches(|c| c == '(' || c == ')').to_owned()))
        })
        .collect();
    listed.sort();
    listed
}

fn node_binaries(root: &Path) -> Vec<String> {
    let out = Command::new("bash").arg(root.join("scripts/node_binaries.sh")).output().expect("scripts/node_binaries.sh");
    assert!(out.status.success());
    String::from_utf8_lossy(&out.stdout).lines().map(str::to_owned).collect()
}

fn files_below(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else {
                found.push(path.strip_prefix(dir).unwrap_or(&path).to_path_buf());
            }
        }
    }
    found.sort();
    found
}

/// Copies the artifacts of the registry crates (every dependency from crates.io except r2r's,
/// which bind the workspace's own flotilla_msgs) from `from` (this test's own Cargo profile
/// directory) into the empty profile directory `to` of the colcon workspace's target
/// directory, and returns how many crate builds it copied. The test is about colcon finding,
/// ordering, building and installing the packages, not about compiling the same ~330
/// dependencies a second time in every clone. Cargo still checks every copied fingerprint
/// (same compiler, flags and features, or it builds the crate again), and r2r's crates and
/// the workspace's, whose paths differ here, always build. Copies, not links: Cargo rewrites
/// fingerprints and build-script outputs in place.
fn seed_registry_crates(root: &Path, from: &Path, to: &Path) -> usize {
    // Cargo.lock's [[package]] entries: `name = "..."`, then `source = "registry+..."` for
    // a crate from a registry (none for the workspace's own).
    let lock = std::fs::read_to_string(root.join("Cargo.lock")).expect("Cargo.lock");
    let mut registry = std::collections::BTreeSet::new();
    let mut name = "";
    for line in lock.lines() {
        if let Some(value) = line.strip_prefix("name = ") {
            name = value.trim_matches('"');
        } else if line.starts_with("source = \"registry+") && !name.starts_with("r2r") {
            registry.insert(name.replace('-', "_"));
        }
    }
    // Cargo names a unit's files <crate>-<hash>; the hash picks the unit's files in deps/.
    let split = |file_name: &str| file_name.rsplit_once('-').map(|(name, hash)| (name.replace('-', "_"), hash.to_owned()));
    // The entries of `from/dir` whose stem (the name before the first '.') `keep` accepts,
    // copied with `cp -a`: it keeps the modification times Cargo compares a unit's outputs
    // with its dependencies' (newer libraries would make every dependent stale).
    let copy_kept = |dir: &str, keep: &mut dyn FnMut(&str) -> bool| {
        let kept: Vec<PathBuf> = std::fs::read_dir(from.join(dir))
            .into_iter()
            .flatten()
            .flatten()
            .map(|entry| entry.path())
            .filter(|path| keep(path.file_name().and_then(|f| f.to_str()).and_then(|f| f.split('.').next()).unwrap_or_default()))
            .collect();
        std::fs::create_dir_all(to.join(dir)).unwrap();
        for chunk in kept.chunks(200) {
            let status = Command::new("cp").arg("-a").args(chunk).arg(to.join(dir)).status().expect("cp");
            assert!(status.success(), "copying {} entries of {dir} to {}", chunk.len(), to.display());
        }
    };
    let mut hashes = std::collections::BTreeSet::new();
    for dir in [".fingerprint", "build"] {
        copy_kept(dir, &mut |stem| match split(stem) {
            Some((name, hash)) if registry.contains(&name) => {
                hashes.insert(hash);
                true
            }
            _ => false,
        });
    }
    copy_kept("deps", &mut |stem| split(stem).is_some_and(|(_, hash)| hashes.contains(&hash)));
    hashes.len()
}

#[test]
fn colcon_builds_the_workspace_once_and_installs_the_flotilla_package() {
    let (Some(colcon), Some(colcon_cargo)) = (venv("FLOTILLA_COLCON"), venv("FLOTILLA_COLCON_CARGO")) else {
        eprintln!("SKIPPED: colcon is not installed (scripts/test.sh sets FLOTILLA_COLCON and FLOTILLA_COLCON_CARGO from `scripts/setup.sh colcon` and `colcon-cargo`; they need PyPI)");
        return;
    };
    let domain = Domain::reserve().unwrap();
    let root = repo_root();
    let ws = root.join("target/colcon-ws");
    let link = ws.join("src/flotilla");
    // A workspace made for another checkout (a target directory copied between clones)
    // holds CMake caches of that path: start it anew.
    if ws.exists() && std::fs::read_link(&link).ok().as_deref() != Some(root.as_path()) {
        std::fs::remove_dir_all(&ws).unwrap();
    }
    std::fs::create_dir_all(link.parent().unwrap()).unwrap();
    if !link.is_symlink() {
        std::os::unix::fs::symlink(&root, &link).unwrap();
    }

    // Discovery: the same two packages with and without the Cargo extensions.
    let expected = vec![("flotilla".to_owned(), "ros.ament_cmake".to_owned()), ("flotilla_msgs".to_owned(), "ros.ament_cmake".to_owned())];
    assert_eq!(colcon_list(&colcon, &ws, &domain), expected, "colcon list");
    assert_eq!(colcon_list(&colcon_cargo, &ws, &domain), expected, "colcon list with colcon-cargo and colcon-ros-cargo");

    let cargo_profile = ws.join("build/flotilla/cargo-target/release");
    if !cargo_profile.exists() {
        let started = Instant::now();
        let units = seed_registry_crates(&root, &flotilla_e2e::bin_dir(), &cargo_profile);
        eprintln!("seeded {units} registry crate builds into {} in {:.0} s", cargo_profile.display(), started.elapsed().as_secs_f64());
    }

    // The build: messages, then the Cargo workspace once into one target directory.
    let build = |colcon: &Path| {
        let script = format!("exec {}/bin/colcon build --event-handlers console_cohesion+", colcon.display());
        let started = Instant::now();
        let (code, output) = run(shell(&ws, &script), &domain, BUILD_TIMEOUT);
        assert_eq!(code, Some(0), "colcon build failed:\n{output}");
        let position = |text: &str| output.find(text).unwrap_or_else(|| panic!("no '{text}' in the colcon output:\n{output}"));
        assert!(position("Finished <<< flotilla_msgs") < position("Starting >>> flotilla\n"), "flotilla_msgs first:\n{output}");
        assert_eq!(output.matches("cargo build --workspace --bins").count(), 1, "one workspace build:\n{output}");
        started.elapsed()
    };
    let first = build(&colcon);
    let again = build(&colcon_cargo);
    eprintln!("colcon build: {:.0} s; again with the Cargo extensions installed: {:.0} s", first.as_secs_f64(), again.as_secs_f64());
    assert!(cargo_profile.join("tank_physics").is_file(), "the workspace's one target directory: {}", cargo_profile.display());

    // What is installed.
    let prefix = &ws.join("install/flotilla");
    assert!(prefix.join("share/ament_index/resource_index/packages/flotilla").is_file());
    assert!(prefix.join("share/flotilla/package.xml").is_file());
    for exe in node_binaries(&root) {
        let path = prefix.join("lib/flotilla").join(&exe);
        let meta = std::fs::metadata(&path).unwrap_or_else(|e| panic!("{} not installed: {e}", path.display()));
        assert!(std::os::unix::fs::PermissionsExt::mode(&meta.permissions()) & 0o111 != 0, "{} not executable", path.display());
    }
    assert!(prefix.join("bin/flotilla").is_file() && prefix.join("bin/flotilla-experiment").is_file(), "the CLI on PATH");
    for dir in ["launch", "config", "urdf"] {
        let installed = prefix.join("share/flotilla").join(dir);
        assert_eq!(files_below(&installed), files_below(&root.join(dir)), "share/flotilla/{dir}");
        for file in files_below(&installed) {
            assert!(!installed.join(&file).is_symlink(), "share/flotilla/{dir}/{} is a link, not a file", file.display());
        }
    }
    let lib = prefix.join("lib/flotilla");
    let installed = node_binaries(&root).len();
    eprintln!("installed: {installed} executables in lib/flotilla; launch/, config/, urdf/ in share/flotilla");

    // The ROS 2 tools from the install.
    let Some(kit) = std::env::var_os("FLOTILLA_ROS2_CLI_ENV").filter(|e| Path::new(e).is_file()) else {
        eprintln!(
            "SKIPPED the ros2 run/launch half: FLOTILLA_ROS2_CLI_ENV (the ../shared/tools kit, installed by scripts/test.sh) is not set"
        );
        return;
    };
    let sourced = |command: &str| format!("source \"{}\" && source install/setup.bash && exec {command}", kit.to_string_lossy());
    // Ctrl-C in a terminal: SIGINT to the whole foreground process group.
    let foreground = |mut cmd: Command| {
        std::os::unix::process::CommandExt::process_group(&mut cmd, 0);
        cmd
    };
    let (code, output) = run(shell(&ws, &sourced("ros2 pkg executables flotilla")), &domain, Duration::from_secs(120));
    assert_eq!(code, Some(0), "{output}");
    let mut listed: Vec<String> = output.lines().filter_map(|l| l.strip_prefix("flotilla ")).map(str::to_owned).collect();
    let mut expected = node_binaries(&root);
    listed.sort();
    expected.sort();
    assert_eq!(listed, expected, "ros2 pkg executables flotilla");

    let settle = Duration::from_secs(3);
    let (processes, code, output) =
        run_until_interrupted(foreground(shell(&ws, &sourced("ros2 run flotilla tank_physics"))), &domain, &lib, settle);
    assert_eq!(processes, BTreeMap::from([("tank_physics".to_owned(), 1)]), "ros2 run flotilla tank_physics:\n{output}");
    assert_eq!(code, Some(0), "ros2 run after SIGINT:\n{output}");

    let demo = sourced("ros2 launch flotilla demo.launch.yaml duration:=0");
    let (from_install, code, output) = run_until_interrupted(foreground(shell(&ws, &demo)), &domain, &lib, settle);
    assert_eq!(code, Some(0), "ros2 launch flotilla demo.launch.yaml after SIGINT:\n{output}");
    let mut own = Command::new(flotilla_e2e::bin("flotilla"));
    own.args(["launch"]).arg(root.join("launch/demo.launch.yaml")).arg("duration:=0");
    let (from_checkout, _, _) = run_until_interrupted(own, &domain, &flotilla_e2e::bin_dir(), settle);
    assert_eq!(from_install, from_checkout, "the demo from the install starts what it starts from the checkout");
    eprintln!("ros2 launch flotilla demo.launch.yaml from the install: {from_install:?}, exit {code:?} after SIGINT");
}
