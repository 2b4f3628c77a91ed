//! URDF text of a [`Model`]. Universal joints are split first (URDF has none).

use super::description::{Colour, Geometry, Inertial, JointKind, JointLimits, Model, Pose};

/// Comment at the top of every generated file (an XML comment cannot hold "--", so the
/// command is spelled out in urdf/README.md).
pub const GENERATED_NOTE: &str =
    "Generated from the Flotilla module catalogue by the gen_models binary of flotilla_common (see urdf/README.md); do not edit.";

/// A number as the files write it: 12 significant digits (so the last-bit differences of
/// another libm's sin/cos do not change the committed text), in Rust's shortest form
/// without exponent, -0 as 0.
pub(super) fn num(v: f64) -> String {
    let rounded: f64 = format!("{v:.11e}").parse().unwrap_or(v);
    if rounded == 0.0 {
        "0".to_owned()
    } else {
        format!("{rounded}")
    }
}

/// Three numbers separated by spaces.
pub(super) fn triple(x: f64, y: f64, z: f64) -> String {
    format!("{} {} {}", num(x), num(y), num(z))
}

/// Escapes the characters XML attribute values and text cannot hold.
pub(super) fn escape(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

fn origin(pose: &Pose) -> String {
    format!("<origin xyz=\"{}\" rpy=\"{}\"/>", triple(pose.xyz.x, pose.xyz.y, pose.xyz.z), triple(pose.rpy.x, pose.rpy.y, pose.rpy.z))
}

fn geometry(g: &Geometry) -> String {
    match *g {
        Geometry::Box { size } => format!("<box size=\"{}\"/>", triple(size.x, size.y, size.z)),
        Geometry::Cylinder { radius, length } => {
            format!("<cylinder radius=\"{}\" length=\"{}\"/>", num(radius), num(length))
        }
        Geometry::Sphere { radius } => format!("<sphere radius=\"{}\"/>", num(radius)),
    }
}

fn inertial(out: &mut String, i: &Inertial) {
    let c = i.centre_of_mass;
    emit!(out, "    <inertial>");
    emit!(out, "      <origin xyz=\"{}\" rpy=\"0 0 0\"/>", triple(c.x, c.y, c.z));
    emit!(out, "      <mass value=\"{}\"/>", num(i.mass));
    let entries: Vec<String> = i.inertia_entries().iter().map(|(name, v)| format!("{name}=\"{}\"", num(*v))).collect();
    emit!(out, "      <inertia {}/>", entries.join(" "));
    emit!(out, "    </inertial>");
}

fn limit(l: &JointLimits) -> String {
    format!("<limit lower=\"{}\" upper=\"{}\" effort=\"{}\" velocity=\"{}\"/>", num(l.lower), num(l.upper), num(l.effort), num(l.velocity))
}

/// The model as URDF text.
pub fn render_urdf(model: &Model) -> String {
    let model = model.split_universal_joints();
    let mut out = String::new();
    emit!(out, "<?xml version=\"1.0\"?>");
    emit!(out, "<!-- {GENERATED_NOTE} -->");
    emit!(out, "<robot name=\"{}\">", escape(&model.name));
    let mut colours: Vec<Colour> = Vec::new();
    for visual in model.links.iter().flat_map(|l| &l.visuals) {
        if !colours.iter().any(|c| c.name == visual.colour.name) {
            colours.push(visual.colour.clone());
        }
    }
    for c in &colours {
        let [r, g, b, a] = c.rgba;
        emit!(out, "  <material name=\"{}\"><color rgba=\"{} {}\"/></material>", escape(&c.name), triple(r, g, b), num(a));
    }
    for link in &model.links {
        if link.inertial.is_none() && link.visuals.is_empty() && link.collisions.is_empty() {
            emit!(out, "  <link name=\"{}\"/>", escape(&link.name));
            continue;
        }
        emit!(out, "  <link name=\"{}\">", escape(&link.name));
        if let Some(i) = &link.inertial {
            inertial(&mut out, i);
        }
        for v in &link.visuals {
            emit!(out, "    <visual>");
            emit!(out, "      {}", origin(&v.origin));
            emit!(out, "      <geometry>{}</geometry>", geometry(&v.geometry));
            emit!(out, "      <material name=\"{}\"/>", escape(&v.colour.name));
            emit!(out, "    </visual>");
        }
        for c in &link.collisions {
            emit!(out, "    <collision>");
            emit!(out, "      {}", origin(&c.origin));
            emit!(out, "      <geometry>{}</geometry>", geometry(&c.geometry));
            emit!(out, "    </collision>");
        }
        emit!(out, "  </link>");
    }
    for joint in &model.joints {
        let (kind, axis, limits) = match joint.kind {
            JointKind::Fixed => ("fixed", None, None),
            JointKind::Revolute { axis, limits } => ("revolute", Some(axis), Some(limits)),
            JointKind::Prismatic { axis, limits } => ("prismatic", Some(axis), Some(limits)),
            // split_universal_joints left none.
            JointKind::Universal { .. } => continue,
        };
        emit!(out, "  <joint name=\"{}\" type=\"{kind}\">", escape(&joint.name));
        emit!(out, "    <parent link=\"{}\"/>", escape(&joint.parent));
        emit!(out, "    <child link=\"{}\"/>", escape(&joint.child));
        emit!(out, "    {}", origin(&joint.origin));
        if let Some(a) = axis {
            emit!(out, "    <axis xyz=\"{}\"/>", triple(a.x, a.y, a.z));
        }
        if let Some(l) = limits {
            emit!(out, "    {}", limit(&l));
        }
        emit!(out, "  </joint>");
    }
    if model.is_static {
        // Gazebo extension, read by libsdformat's URDF converter: the model never moves (as
        // `<static>` in the SDF). URDF tools (robot_state_publisher, rviz) ignore `<gazebo>`.
        emit!(out, "  <gazebo><static>true</static></gazebo>");
    }
    emit!(out, "</robot>");
    out
}

#[cfg(test)]
mod tests {
    use super::num;

    #[test]
    fn numbers_keep_twelve_significant_digits() {
        assert_eq!(num(0.1 + 0.2), "0.3");
        assert_eq!(num(1.0 / 3.0), "0.333333333333");
        assert_eq!(num(1.0666666666666666e-8), "0.0000000106666666667");
        assert_eq!(num(-0.0), "0");
        assert_eq!(num(-12.5), "-12.5");
    }
}
