use std::path::PathBuf;

use super::*;
use crate::ament::tests::fake_package;
use crate::parse::parse_launch_text;

/// A temp dir with a fake install prefix (`flotilla`: tank_physics, tracker, camera) and
/// launch files written into it.
struct Fixture {
    dir: tempfile::TempDir,
    env: LaunchEnv,
}

impl Fixture {
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let prefix = dir.path().join("install");
        fake_package(&prefix, "flotilla", &["tank_physics", "tracker", "camera"]);
        std::fs::create_dir_all(prefix.join("share/flotilla/config")).unwrap();
        std::fs::create_dir_all(prefix.join("share/flotilla/launch")).unwrap();
        std::fs::write(prefix.join("share/flotilla/config/lily_15.yaml"), "/**:\n  ros__parameters: {}\n").unwrap();
        let env = LaunchEnv::new(dir.path()).with_var("AMENT_PREFIX_PATH", prefix.display().to_string()).with_var("HOME", "/home/tester");
        Self { dir, env }
    }

    fn prefix(&self) -> PathBuf {
        self.dir.path().join("install")
    }

    fn write(&self, relative: &str, text: &str) -> PathBuf {
        let path = self.dir.path().join(relative);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, text).unwrap();
        path
    }

    fn eval(&self, text: &str, args: &[(&str, &str)]) -> Result<LaunchPlan, LaunchError> {
        let path = self.write("main.launch.yaml", text);
        let file = parse_launch_text(text, Arc::from(path.as_path()))?;
        let args: Vec<(String, String)> = args.iter().map(|(n, v)| ((*n).into(), (*v).into())).collect();
        evaluate_launch(&file, &args, &self.env)
    }

    fn exe(&self, name: &str) -> PathBuf {
        self.prefix().join("lib/flotilla").join(name)
    }
}

fn plain_args(spec: &ProcessSpec) -> Vec<String> {
    spec.args
        .iter()
        .map(|a| match a {
            CommandArg::Plain(s) => s.clone(),
            CommandArg::GeneratedParams(p) => format!("<{}>", p.node_key),
        })
        .collect()
}

fn generated(spec: &ProcessSpec) -> Vec<&InlineParams> {
    spec.args.iter().filter_map(|a| if let CommandArg::GeneratedParams(p) = a { Some(p) } else { None }).collect()
}

const PROJECT_PATTERN: &str = r#"launch:
- arg: {name: duration, default: "60", description: "sim seconds to run; 0 = until Ctrl-C"}
- arg: {name: scenario, default: "$(find-pkg-share flotilla)/config/lily_15.yaml"}
- node:
    pkg: flotilla
    exec: tank_physics
    name: tank_physics
    output: screen
    on_exit: shutdown
    param:
    - {from: "$(var scenario)"}
    - {name: use_sim_time, value: false}
    - {name: max_sim_time, value: "$(var duration)"}
- group:
    children:
    - push-ros-namespace: {namespace: tracking}
    - node: {pkg: flotilla, exec: tracker, name: tracker, remap: [{from: image, to: /overhead_camera/image_raw}]}
- include: {file: "$(find-pkg-share flotilla)/launch/camera.launch.yaml", arg: [{name: rate, value: "30"}]}
"#;

const CAMERA: &str = r#"launch:
- arg: {name: rate}
- node:
    pkg: flotilla
    exec: camera
    name: overhead_camera
    param: [{name: rate, value: "$(var rate)"}]
"#;

#[test]
fn project_pattern_builds_launch_ros_command_lines() {
    let fx = Fixture::new();
    fx.write("install/share/flotilla/launch/camera.launch.yaml", CAMERA);
    let plan = fx.eval(PROJECT_PATTERN, &[]).unwrap();
    assert_eq!(plan.processes.len(), 3);

    let physics = &plan.processes[0];
    assert_eq!(physics.label, "tank_physics-1");
    assert_eq!(physics.executable, fx.exe("tank_physics"));
    assert!(physics.required);
    assert_eq!(physics.output, OutputMode::Screen);
    let scenario = fx.prefix().join("share/flotilla/config/lily_15.yaml").display().to_string();
    assert_eq!(plain_args(physics), vec!["--ros-args", "-r", "__node:=tank_physics", "--params-file", &scenario, "--params-file", "</**>"]);
    // No namespace given or pushed: launch_ros keys the generated file with `/**`.
    let inline = generated(physics)[0];
    assert_eq!(
        inline.entries,
        vec![("use_sim_time".to_owned(), ParamValue::Bool(false)), ("max_sim_time".to_owned(), ParamValue::Integer(60)),]
    );

    let tracker = &plan.processes[1];
    assert_eq!(tracker.label, "tracker-2");
    assert_eq!(tracker.namespace.as_deref(), Some("/tracking"));
    assert_eq!(
        plain_args(tracker),
        vec!["--ros-args", "-r", "__node:=tracker", "-r", "__ns:=/tracking", "-r", "image:=/overhead_camera/image_raw"]
    );
    assert_eq!(tracker.output, OutputMode::Log);
    assert!(!tracker.required);

    let camera = &plan.processes[2];
    assert_eq!(camera.label, "camera-3");
    // The scoped group ended: the camera is outside /tracking.
    assert_eq!(camera.namespace, None);
    assert_eq!(generated(camera)[0].entries, vec![("rate".to_owned(), ParamValue::Integer(30))]);
}

#[test]
fn command_line_arguments_override_defaults() {
    let fx = Fixture::new();
    fx.write("install/share/flotilla/launch/camera.launch.yaml", CAMERA);
    let plan = fx.eval(PROJECT_PATTERN, &[("duration", "0.5")]).unwrap();
    let inline = generated(&plan.processes[0])[0];
    assert_eq!(inline.entries[1], ("max_sim_time".to_owned(), ParamValue::Double(0.5)));
}

#[test]
fn unknown_command_line_argument_lists_the_known_ones() {
    let fx = Fixture::new();
    let err = fx.eval(PROJECT_PATTERN, &[("duraton", "5")]).unwrap_err().to_string();
    assert!(err.starts_with("unknown launch argument(s) duraton:"), "{err}");
    assert!(err.ends_with("declares duration, scenario"), "{err}");
}

#[test]
fn missing_required_argument() {
    let fx = Fixture::new();
    let text = "launch:\n- arg: {name: robots, description: number of robots}\n";
    let err = fx.eval(text, &[]).unwrap_err().to_string();
    assert!(
        err.ends_with("main.launch.yaml:2:3: required launch argument 'robots' was not provided (description: number of robots)"),
        "{err}"
    );
    assert!(fx.eval(text, &[("robots", "3")]).is_ok());
}

#[test]
fn argument_choices() {
    let fx = Fixture::new();
    let text = "launch:\n- arg: {name: arena, default: round, choice: [{value: round}, {value: rect}]}\n";
    assert!(fx.eval(text, &[("arena", "rect")]).is_ok());
    let err = fx.eval(text, &[("arena", "hex")]).unwrap_err().to_string();
    assert!(err.contains("argument 'arena' = 'hex' is not one of: round, rect"), "{err}");
}

#[test]
fn conditions_select_actions() {
    let fx = Fixture::new();
    let text = "launch:\n- arg: {name: gui, default: 'False'}\n\
                - node: {pkg: flotilla, exec: tracker, if: $(var gui)}\n\
                - node: {pkg: flotilla, exec: camera, unless: $(var gui)}\n\
                - group: {if: '1', children: [{node: {pkg: flotilla, exec: tank_physics}}]}\n";
    let labels = |plan: LaunchPlan| plan.processes.into_iter().map(|p| p.label).collect::<Vec<_>>();
    assert_eq!(labels(fx.eval(text, &[]).unwrap()), vec!["camera-1", "tank_physics-2"]);
    assert_eq!(labels(fx.eval(text, &[("gui", "true")]).unwrap()), vec!["tracker-1", "tank_physics-2"]);
    let err = fx.eval(text, &[("gui", "maybe")]).unwrap_err().to_string();
    assert!(err.contains("main.launch.yaml:3:") && err.contains("gave 'maybe'"), "{err}");
}

#[test]
fn groups_scope_configurations_and_namespaces() {
    let fx = Fixture::new();
    let text = r#"launch:
- let: {name: x, value: outer}
- push-ros-namespace: {namespace: swarm}
- group:
    children:
    - let: {name: x, value: inner}
    - push-ros-namespace: {namespace: lily_7}
    - node: {pkg: flotilla, exec: tracker, name: a, args: "$(var x)"}
- node: {pkg: flotilla, exec: tracker, name: b, args: "$(var x)"}
- group:
    scoped: false
    children:
    - let: {name: x, value: leaked}
- node: {pkg: flotilla, exec: tracker, name: c, namespace: /abs, args: "$(var x)"}
- group:
    forwarding: false
    keep: [{name: y, value: "$(var x)"}]
    children:
    - node: {pkg: flotilla, exec: tracker, name: d, args: "$(var y) $(var x default)"}
"#;
    let plan = fx.eval(text, &[]).unwrap();
    let summary: Vec<(String, Option<String>)> = plan.processes.iter().map(|p| (plain_args(p)[0].clone(), p.namespace.clone())).collect();
    assert_eq!(
        summary,
        vec![
            ("inner".to_owned(), Some("/swarm/lily_7".to_owned())),
            ("outer".to_owned(), Some("/swarm".to_owned())),
            ("leaked".to_owned(), Some("/abs".to_owned())),
            ("leaked".to_owned(), None),
        ]
    );
    // Without forwarding, `x` and the pushed namespace are gone; `$(var x default)` falls back.
    assert_eq!(plain_args(&plan.processes[3])[1], "default");
}

#[test]
fn includes_share_configurations_like_launch() {
    let fx = Fixture::new();
    fx.write(
        "sub/inner.launch.yaml",
        "launch:\n- arg: {name: rate, default: '10'}\n- let: {name: from_inner, value: $(dirname)}\n\
         - node: {pkg: flotilla, exec: camera, args: \"$(var rate) $(filename)\"}\n",
    );
    let text = "launch:\n- arg: {name: rate, default: '5'}\n- include: {file: sub/inner.launch.yaml}\n\
                - include: {file: sub/inner.launch.yaml, arg: [{name: rate, value: '30'}]}\n\
                - node: {pkg: flotilla, exec: tracker, args: \"$(var rate) $(var from_inner) $(dirname)\"}\n";
    let plan = fx.eval(text, &[]).unwrap();
    let inner = fx.dir.path().join("sub/inner.launch.yaml").display().to_string();
    // The includer's `rate` is visible inside (the inner default does not apply) ...
    assert_eq!(plain_args(&plan.processes[0])[..2], ["5".to_owned(), inner.clone()]);
    assert_eq!(plain_args(&plan.processes[1])[0], "30");
    // ... and what the include set stays set afterwards; `$(dirname)` is back to the includer's.
    let here = fx.dir.path().display().to_string();
    assert_eq!(plain_args(&plan.processes[2])[..3], ["30".to_owned(), format!("{here}/sub"), here]);
}

#[test]
fn include_errors() {
    let fx = Fixture::new();
    fx.write("needs.launch.yaml", "launch:\n- arg: {name: robots}\n");
    let err = fx.eval("launch:\n- arg: {name: a, default: x}\n- include: {file: needs.launch.yaml}\n", &[]).unwrap_err();
    assert!(err.to_string().ends_with("main.launch.yaml:3:3: required launch argument 'robots' was not provided"), "{err}");
    let err = fx.eval("launch:\n- include: {file: missing.launch.yaml}\n", &[]).unwrap_err().to_string();
    assert!(err.contains("main.launch.yaml:2:3: cannot include") && err.contains("missing.launch.yaml"), "{err}");
    fx.write("loop.launch.yaml", "launch:\n- include: {file: main.launch.yaml}\n");
    let err = fx.eval("launch:\n- include: {file: loop.launch.yaml}\n", &[]).unwrap_err().to_string();
    assert!(err.contains("include cycle") && err.contains("loop.launch.yaml:2:3"), "{err}");
    fx.write("bad.launch.yaml", "launch:\n- node: {pkg: flotilla}\n");
    let err = fx.eval("launch:\n- include: {file: bad.launch.yaml}\n", &[]).unwrap_err().to_string();
    assert!(err.contains("bad.launch.yaml:2:10: `node` is missing required attribute `exec`"), "{err}");
}

#[test]
fn params_keep_order_and_key_by_full_name() {
    let fx = Fixture::new();
    fx.write("a.yaml", "x: 1\n");
    let text = r#"launch:
- push-ros-namespace: {namespace: lily_3}
- node:
    pkg: flotilla
    exec: tracker
    name: tracker
    param:
    - {name: a, value: 1}
    - {name: b, value: [1, 2.5]}
    - {from: a.yaml}
    - {name: a, value: "$(env HOME)"}
    - name: cam
      param:
      - {name: size, value: ["$(var w)", 480]}
      - {name: id, value: 007}
      - {name: mode, value: 'on'}
"#;
    let plan = fx.eval(&format!("{text}- let: {{name: w, value: '640'}}\n"), &[]);
    // `w` is set after the node: evaluation order matters.
    assert!(plan.unwrap_err().to_string().contains("launch configuration 'w' is not set"));
    let plan = fx.eval(&text.replacen("launch:\n", "launch:\n- let: {name: w, value: '640'}\n", 1), &[]).unwrap();
    let node = &plan.processes[0];
    let file = fx.dir.path().join("a.yaml").display().to_string();
    assert_eq!(
        plain_args(node),
        vec![
            "--ros-args",
            "-r",
            "__node:=tracker",
            "-r",
            "__ns:=/lily_3",
            "--params-file",
            "</lily_3/tracker>",
            "--params-file",
            &file,
            "--params-file",
            "</lily_3/tracker>",
        ]
    );
    let files = generated(node);
    assert_eq!(files[0].entries, vec![("a".to_owned(), ParamValue::Integer(1)), ("b".to_owned(), ParamValue::DoubleArray(vec![1.0, 2.5]))]);
    assert_eq!(
        files[1].entries,
        vec![
            ("a".to_owned(), ParamValue::String("/home/tester".into())),
            ("cam.size".to_owned(), ParamValue::IntegerArray(vec![640, 480])),
            ("cam.id".to_owned(), ParamValue::Integer(7)),
            ("cam.mode".to_owned(), ParamValue::String("on".into())),
        ]
    );
}

#[test]
fn param_errors() {
    let fx = Fixture::new();
    let node = |param: &str| format!("launch:\n- node:\n    pkg: flotilla\n    exec: tracker\n    param: [{param}]\n");
    let err = fx.eval(&node("{from: nope.yaml}"), &[]).unwrap_err().to_string();
    assert!(err.contains("main.launch.yaml:5:") && err.contains("nope.yaml does not exist"), "{err}");
    let err = fx.eval(&node("{name: l, value: [1, abc]}"), &[]).unwrap_err().to_string();
    assert!(err.contains("parameter 'l': the list mixes element types"), "{err}");
    let err = fx.eval(&node("{name: e, value: \"$(env NOPE '')\"}"), &[]).unwrap_err().to_string();
    assert!(err.contains("parameter 'e': substituted parameter value \"\" is empty"), "{err}");
}

#[test]
fn substitutions() {
    let fx = Fixture::new();
    let text = "launch:\n- node:\n    pkg: flotilla\n    exec: tracker\n    args: \"$(env HOME) $(env NOPE fallback) $(env NOPE '')x \
                $(env NOPE 'a b') $(find-pkg-prefix flotilla) $(exec-in-pkg camera flotilla) $(var q 'd v')\"\n";
    let plan = fx.eval(text, &[]).unwrap();
    let args = plain_args(&plan.processes[0]);
    let prefix = fx.prefix().display().to_string();
    assert_eq!(
        args[..7],
        [
            "/home/tester".to_owned(),
            "fallback".into(),
            "x".into(),
            "a b".into(),
            prefix,
            fx.exe("camera").display().to_string(),
            "d v".into()
        ]
    );
    let err = fx.eval("launch:\n- let: {name: a, value: $(env NOPE)}\n", &[]).unwrap_err().to_string();
    assert!(err.contains("main.launch.yaml:2:25: $(env NOPE): environment variable 'NOPE' is not set"), "{err}");
    let err = fx.eval("launch:\n- let: {name: a, value: $(find-pkg-share nope)}\n", &[]).unwrap_err().to_string();
    assert!(err.contains("package 'nope' not found in AMENT_PREFIX_PATH"), "{err}");
}

#[test]
fn executables_and_process_options() {
    let fx = Fixture::new();
    let text = "launch:\n- node: {pkg: flotilla, exec: nope}\n";
    let err = fx.eval(text, &[]).unwrap_err().to_string();
    assert!(err.contains("main.launch.yaml:2:31: executable 'nope' not found in"), "{err}");

    let bin = fx.dir.path().join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    std::fs::copy(fx.exe("camera"), bin.join("tool")).unwrap();
    let mut env = fx.env.clone();
    env.vars.insert("PATH".into(), format!("/nonexistent:{}", bin.display()));
    let text = "launch:\n- node:\n    exec: tool\n    exec_name: helper\n    ros_args: '--log-level debug'\n    args: run\n    \
                respawn: 'true'\n    respawn_delay: 1.5\n    output: own_log\n    cwd: sub\n    env: [{name: A, value: b}]\n";
    let path = fx.write("opts.launch.yaml", text);
    let file = parse_launch_text(text, Arc::from(path.as_path())).unwrap();
    let spec = &evaluate_launch(&file, &[], &env).unwrap().processes[0];
    assert_eq!(spec.executable, bin.join("tool"));
    assert_eq!(spec.label, "helper-1");
    assert_eq!(plain_args(spec), vec!["run", "--ros-args", "--log-level", "debug", "--ros-args"]);
    assert!(spec.respawn);
    assert_eq!(spec.respawn_delay, 1.5);
    assert_eq!(spec.output, OutputMode::OwnLog);
    assert_eq!(spec.cwd.as_deref(), Some(fx.dir.path().join("sub").as_path()));
    assert_eq!(spec.env, vec![("A".to_owned(), "b".to_owned())]);

    let err = fx.eval("launch:\n- node: {pkg: flotilla, exec: camera, output: console}\n", &[]).unwrap_err();
    assert!(err.to_string().contains("output 'console' is not one of"), "{err}");
    let err = fx.eval("launch:\n- node: {pkg: flotilla, exec: camera, respawn: 'maybe'}\n", &[]).unwrap_err();
    assert!(err.to_string().contains("respawn 'maybe' is not true or false"), "{err}");
    let err = fx.eval("launch:\n- node: {pkg: flotilla, exec: camera, name: 'a-b'}\n", &[]).unwrap_err();
    assert!(err.to_string().contains("invalid node name 'a-b'"), "{err}");
    let err = fx.eval("launch:\n- push-ros-namespace: {namespace: '1x'}\n", &[]).unwrap_err();
    assert!(err.to_string().contains("invalid namespace '/1x'"), "{err}");
}

#[test]
fn launch_argument_syntax() {
    assert_eq!(
        parse_launch_arguments(&["a:=1", "b:=x:=y", "c:="]).unwrap(),
        vec![("a".into(), "1".into()), ("b".into(), "x:=y".into()), ("c".into(), String::new())]
    );
    assert!(parse_launch_arguments(&["a=1"]).unwrap_err().to_string().contains("name:=value"));
    assert!(parse_launch_arguments(&[":=1"]).is_err());
}
