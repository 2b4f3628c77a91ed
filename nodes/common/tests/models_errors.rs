//! Bad model files give errors that name the file, the line and the element.

use flotilla_common::models::{parse_urdf, read_urdf, ModelFileError};
use std::path::Path;

const GOOD: &str = r#"<?xml version="1.0"?>
<robot name="r">
  <link name="base_link">
    <inertial><mass value="1"/><inertia ixx="1" ixy="0" ixz="0" iyy="1" iyz="0" izz="1"/></inertial>
  </link>
  <link name="arm"/>
  <joint name="arm_joint" type="revolute">
    <parent link="base_link"/>
    <child link="arm"/>
    <axis xyz="0 0 1"/>
    <limit lower="-1" upper="1" effort="1" velocity="1"/>
  </joint>
</robot>
"#;

fn parse(text: &str) -> Result<flotilla_common::models::Model, ModelFileError> {
    parse_urdf(text, Path::new("urdf/test.urdf"))
}

fn element_error(text: &str) -> (u32, String, String) {
    match parse(text) {
        Err(ModelFileError::Element { path, line, element, message }) => {
            assert_eq!(path, Path::new("urdf/test.urdf"));
            let shown = parse(text).unwrap_err().to_string();
            assert!(shown.starts_with("model file urdf/test.urdf:"), "{shown}");
            (line, element, message)
        }
        other => panic!("expected an element error, got {other:?}"),
    }
}

#[test]
fn the_good_file_parses() {
    let model = parse(GOOD).expect("valid");
    assert_eq!(model.links.len(), 2);
    assert_eq!(model.joints[0].name, "arm_joint");
}

#[test]
fn a_missing_file_is_named() {
    let err = read_urdf(Path::new("/nonexistent/flotilla/nothing.urdf")).unwrap_err();
    assert!(matches!(err, ModelFileError::Read { .. }));
    assert!(err.to_string().contains("/nonexistent/flotilla/nothing.urdf"), "{err}");
}

#[test]
fn malformed_xml_gives_line_and_column() {
    let broken = GOOD.replace("</joint>", "</jont>");
    match parse(&broken) {
        Err(e @ ModelFileError::Xml { line, .. }) => {
            assert_eq!(line, 12, "{e}");
            assert!(e.to_string().contains("urdf/test.urdf:12:"), "{e}");
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_joint_naming_an_unknown_link() {
    let (line, element, message) = element_error(&GOOD.replace("<child link=\"arm\"/>", "<child link=\"leg\"/>"));
    assert_eq!((line, element.as_str()), (7, "<joint name=\"arm_joint\">"));
    assert!(message.contains("`leg`"), "{message}");
}

#[test]
fn a_missing_limit_on_a_revolute_joint() {
    let (line, element, message) = element_error(&GOOD.replace("    <limit lower=\"-1\" upper=\"1\" effort=\"1\" velocity=\"1\"/>\n", ""));
    assert_eq!((line, element.as_str()), (7, "<joint name=\"arm_joint\">"));
    assert!(message.contains("missing <limit>"), "{message}");
}

#[test]
fn an_error_inside_a_joint_names_the_joint() {
    let text = GOOD.replace("<child link=\"arm\"/>", "<child link=\"arm\"/>\n    <origin xyz=\"0.1 north 0\"/>");
    let (line, element, message) = element_error(&text);
    assert_eq!((line, element.as_str()), (10, "<origin> of <joint name=\"arm_joint\">"));
    assert!(message.contains("0.1 north 0"), "{message}");
}

#[test]
fn a_bad_number() {
    let (line, element, message) = element_error(&GOOD.replace("<mass value=\"1\"/>", "<mass value=\"heavy\"/>"));
    assert_eq!((line, element.as_str()), (4, "<mass>"));
    assert!(message.contains("heavy"), "{message}");
}

#[test]
fn an_unsupported_joint_type() {
    let (_, element, message) = element_error(&GOOD.replace("type=\"revolute\"", "type=\"planar\""));
    assert_eq!(element, "<joint name=\"arm_joint\">");
    assert!(message.contains("planar"), "{message}");
}

#[test]
fn a_non_unit_axis() {
    let (_, _, message) = element_error(&GOOD.replace("<axis xyz=\"0 0 1\"/>", "<axis xyz=\"0 0 2\"/>"));
    assert!(message.contains("unit"), "{message}");
}

#[test]
fn two_roots_and_a_second_parent() {
    let two_roots = GOOD.replace("<link name=\"arm\"/>", "<link name=\"arm\"/>\n  <link name=\"loose\"/>");
    let (_, element, message) = element_error(&two_roots);
    assert_eq!(element, "<robot name=\"r\">");
    assert!(message.contains("loose"), "{message}");
    let second_parent = GOOD
        .replace("</robot>", "  <joint name=\"again\" type=\"fixed\"><parent link=\"base_link\"/><child link=\"arm\"/></joint>\n</robot>");
    let (line, element, message) = element_error(&second_parent);
    assert_eq!((line, element.as_str()), (13, "<joint name=\"again\">"));
    assert!(message.contains("already has a parent"), "{message}");
}

#[test]
fn a_negative_box_size() {
    let text = GOOD.replace(
        "<link name=\"arm\"/>",
        "<link name=\"arm\"><collision><geometry><box size=\"0.1 -0.1 0.1\"/></geometry></collision></link>",
    );
    let (line, element, _) = element_error(&text);
    assert_eq!((line, element.as_str()), (6, "<box>"));
}

#[test]
fn the_gazebo_static_extension_is_read_and_a_bad_flag_named() {
    assert!(!parse(GOOD).expect("valid").is_static);
    let with = |text: &str| GOOD.replace("</robot>", &format!("  {text}\n</robot>"));
    assert!(parse(&with("<gazebo><static>true</static></gazebo>")).expect("valid").is_static);
    assert!(!parse(&with("<gazebo><static>false</static></gazebo>")).expect("valid").is_static);
    // A link's or joint's extension does not make the model static.
    assert!(!parse(&with("<gazebo reference=\"arm\"><static>true</static></gazebo>")).expect("valid").is_static);
    let (line, element, message) = element_error(&with("<gazebo><static>yes</static></gazebo>"));
    assert_eq!((line, element.as_str()), (13, "<static>"));
    assert!(message.contains("`yes`"), "{message}");
}
