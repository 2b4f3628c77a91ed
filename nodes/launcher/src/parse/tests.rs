use std::path::Path;
use std::sync::Arc;

use super::*;
use crate::ast::{ParamDecl, ParamValueDecl};
use crate::yaml::Scalar;

fn parse(text: &str) -> Result<LaunchFile, LaunchError> {
    parse_launch_text(text, Arc::from(Path::new("test.launch.yaml")))
}

fn error(text: &str) -> String {
    parse(text).unwrap_err().to_string()
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

#[test]
fn project_pattern_parses() {
    let file = parse(PROJECT_PATTERN).unwrap();
    assert_eq!(file.actions.len(), 5);
    let lines: Vec<usize> = file.actions.iter().map(|a| a.loc.line).collect();
    assert_eq!(lines, vec![2, 3, 4, 14, 18]);
    let ActionKind::Node(node) = &file.actions[2].kind else { panic!("not a node") };
    assert!(node.shutdown_on_exit);
    assert_eq!(node.params.len(), 3);
    assert!(matches!(&node.params[0], ParamDecl::File(t) if t.template.to_string() == "$(var scenario)"));
    let ParamDecl::Value(p) = &node.params[1] else { panic!() };
    assert!(matches!(p.value, ParamValueDecl::Native(Scalar::Bool(false))));
    let ParamDecl::Value(p) = &node.params[2] else { panic!() };
    assert!(matches!(&p.value, ParamValueDecl::Substituted(_)));
    let ActionKind::Group(group) = &file.actions[3].kind else { panic!() };
    assert!(group.scoped && group.forwarding);
    assert!(matches!(group.children[0].kind, ActionKind::PushRosNamespace(_)));
    let declared: Vec<&str> = file.declared_arguments().iter().map(|(d, _, _)| d.name.as_str()).collect();
    assert_eq!(declared, vec!["duration", "scenario"]);
}

#[test]
fn group_as_bare_list_and_both_namespace_spellings() {
    let file = parse("launch:\n- group:\n  - push_ros_namespace: {namespace: a}\n  - push-ros-namespace: {namespace: b}\n").unwrap();
    let ActionKind::Group(group) = &file.actions[0].kind else { panic!() };
    assert_eq!(group.children.len(), 2);
    assert!(group.children.iter().all(|c| matches!(c.kind, ActionKind::PushRosNamespace(_))));
}

#[test]
fn conditions_and_arguments() {
    let file = parse(
        "launch:\n- arg: {name: gui, default: 'false', choice: [{value: 'true'}, {value: 'false'}]}\n\
         - group: {if: $(var gui), children: [{arg: {name: hidden}}]}\n\
         - node: {pkg: p, exec: e, unless: $(var gui), args: \"-v --rate $(var r)\", respawn: 'true', respawn_delay: 0.5}\n",
    )
    .unwrap();
    let ActionKind::Arg(arg) = &file.actions[0].kind else { panic!() };
    assert_eq!(arg.choices, vec!["true", "false"]);
    assert!(matches!(file.actions[1].condition, Some(Condition::If(_))));
    let declared = file.declared_arguments();
    assert_eq!((declared[1].0.name.as_str(), declared[1].1), ("hidden", true));
    let ActionKind::Node(node) = &file.actions[2].kind else { panic!() };
    assert!(matches!(file.actions[2].condition, Some(Condition::Unless(_))));
    let args: Vec<String> = node.args.iter().map(|a| a.template.to_string()).collect();
    assert_eq!(args, vec!["-v", "--rate", "$(var r)"]);
    assert_eq!(node.respawn_delay, Some(0.5));
}

#[test]
fn yaml_syntax_error_names_file_and_line() {
    let err = error("launch:\n- node: {pkg: a, exec: b\n- arg: {name: x}\n");
    assert!(err.starts_with("test.launch.yaml:3:"), "{err}");
    assert!(err.contains("YAML syntax error"), "{err}");
}

#[test]
fn unknown_action_is_unsupported_at_its_line() {
    let err = error("launch:\n- arg: {name: x}\n- timer: {period: 1.0}\n");
    assert_eq!(err, "test.launch.yaml:3:3: unsupported: action `timer`");
}

#[test]
fn missing_required_attribute_names_the_entity_line() {
    let err = error("launch:\n- arg: {name: x}\n- node:\n    pkg: p\n    name: n\n");
    assert_eq!(err, "test.launch.yaml:4:5: `node` is missing required attribute `exec`");
    let err = error("launch:\n- include: {arg: []}\n");
    assert!(err.contains("missing required attribute `file`"), "{err}");
    let err = error("launch:\n- node: {pkg: p, exec: e, remap: [{from: a}]}\n");
    assert!(err.starts_with("test.launch.yaml:2:") && err.contains("`to`"), "{err}");
}

#[test]
fn wrong_types_are_explained() {
    let err = error("launch:\n- arg:\n    name: duration\n    default: 60\n");
    assert!(err.starts_with("test.launch.yaml:4:14: `default` of `arg` must be a string; quote it: \"60\""), "{err}");
    let err = error("launch:\n- node: {pkg: p, exec: e, respawn: true}\n");
    assert!(err.contains("`respawn` of `node` must be a string"), "{err}");
    let err = error("launch:\n- node: {pkg: p, exec: e, respawn_delay: 2}\n");
    assert!(err.contains("write 2.0"), "{err}");
    let err = error("launch:\n- group: {scoped: 'no', children: []}\n");
    assert!(err.contains("`scoped` of `group` must be true or false"), "{err}");
    let err = error("launch:\n- node: {pkg: p, exec: e, param: {name: a}}\n");
    assert!(err.contains("`param` of `node` must be a list"), "{err}");
    let err = error("launch:\n- node: {pkg: p, exec: e, param: [{name: a, value: {b: 1}}]}\n");
    assert!(err.contains("cannot be a mapping"), "{err}");
    let err = error("launch:\n- node: {pkg: p, exec: e, param: [{name: a}]}\n");
    assert!(err.contains("needs a `value`"), "{err}");
}

#[test]
fn unknown_attributes_and_values_are_unsupported() {
    let err = error("launch:\n- node:\n    pkg: p\n    exec: e\n    launch-prefix: gdb\n");
    assert_eq!(err, "test.launch.yaml:5:5: unsupported: attribute `launch-prefix` of `node`");
    let err = error("launch:\n- node: {pkg: p, exec: e, on_exit: restart}\n");
    assert!(err.contains("unsupported: `on_exit: restart`"), "{err}");
    let err = error("launch:\n- let: {name: x, value: \"$(eval 1 + 1)\"}\n");
    assert!(err.starts_with("test.launch.yaml:2:25: unsupported: substitution `$(eval ...)`"), "{err}");
    let err = error("launch:\n- node: {pkg: p, exec: e, param: [{from: a.yaml, allow_substs: true}]}\n");
    assert!(err.contains("unsupported: attribute `allow_substs` of `param`"), "{err}");
}

#[test]
fn structural_errors() {
    assert!(error("nodes: []\n").contains("one key, `launch`"));
    assert!(error("launch: {node: {}}\n").contains("`launch` must be a list"));
    assert!(error("launch:\n- {arg: {name: a}, let: {name: b, value: c}}\n").contains("exactly one key"));
    assert!(error("launch:\n- node: {pkg: p, exec: e, if: a, unless: b}\n").contains("`if` and `unless`"));
    assert!(error("launch:\n- arg: {name: a, name: b}\n").contains("attribute `name` twice"));
    assert!(error("launch:\n- let: {name: x, value: \"$(var y\"}\n").contains("missing `)`"));
    assert!(error("launch:\n- node: {pkg: p, exec: e, args: \"'unterminated\"}\n").contains("unbalanced quotes"));
    assert_eq!(parse("launch:\n").unwrap().actions.len(), 0);
}

#[test]
fn nested_params() {
    let file = parse(
        "launch:\n- node:\n    pkg: p\n    exec: e\n    param:\n    - name: camera\n      param:\n      - {name: rate, value: 30}\n      - {name: size, value: [640, 480]}\n",
    )
    .unwrap();
    let ActionKind::Node(node) = &file.actions[0].kind else { panic!() };
    let ParamDecl::Value(p) = &node.params[0] else { panic!() };
    let ParamValueDecl::Nested(children) = &p.value else { panic!() };
    assert_eq!(children.len(), 2);
    assert!(matches!(&children[1].value, ParamValueDecl::List(items) if items.len() == 2));
    assert_eq!(children[1].loc.line, 9);
}

/// Issue 21 item 1: a huge `respawn_delay` must be refused at parse time, never reach
/// `Duration::from_secs_f64`.
#[test]
fn item1_huge_respawn_delay_is_refused() {
    let err = error("launch:\n- node: {pkg: p, exec: e, respawn_delay: 1.0e+300}\n");
    assert!(err.contains("respawn_delay") && err.contains("1e300"), "{err}");
}
