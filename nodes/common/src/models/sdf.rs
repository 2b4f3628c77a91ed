//! SDFormat 1.9 text of a [`Model`]: universal joints stay native; massless links on fixed
//! joints become `<frame>`s whose shapes are drawn by the nearest link above them.

use super::description::{Geometry, JointKind, JointLimits, Link, Model, Pose};
use super::urdf::{escape, num, triple, GENERATED_NOTE};

fn pose(p: &Pose, relative_to: Option<&str>) -> String {
    let attr = relative_to.map(|r| format!(" relative_to=\"{}\"", escape(r))).unwrap_or_default();
    format!("<pose{attr}>{} {}</pose>", triple(p.xyz.x, p.xyz.y, p.xyz.z), triple(p.rpy.x, p.rpy.y, p.rpy.z))
}

fn geometry(g: &Geometry) -> String {
    match *g {
        Geometry::Box { size } => format!("<box><size>{}</size></box>", triple(size.x, size.y, size.z)),
        Geometry::Cylinder { radius, length } => {
            format!("<cylinder><radius>{}</radius><length>{}</length></cylinder>", num(radius), num(length))
        }
        Geometry::Sphere { radius } => format!("<sphere><radius>{}</radius></sphere>", num(radius)),
    }
}

fn limit(l: &JointLimits) -> String {
    format!(
        "<limit><lower>{}</lower><upper>{}</upper><effort>{}</effort><velocity>{}</velocity></limit>",
        num(l.lower),
        num(l.upper),
        num(l.effort),
        num(l.velocity)
    )
}

/// Whether a link is written as a `<frame>`: massless, not the root, on a fixed joint.
fn is_frame(model: &Model, link: &Link) -> bool {
    link.inertial.is_none() && model.parent_joint(&link.name).is_some_and(|j| matches!(j.kind, JointKind::Fixed))
}

/// The link that carries a frame's shapes: the first ancestor that is not a frame.
fn carrier<'a>(model: &'a Model, link: &'a Link) -> &'a str {
    let mut current = link;
    for _ in 0..model.links.len() {
        if !is_frame(model, current) {
            break;
        }
        match model.parent_joint(&current.name).and_then(|j| model.link(&j.parent)) {
            Some(parent) => current = parent,
            None => break,
        }
    }
    &current.name
}

fn shapes(out: &mut String, of: &Link, owner: &str) {
    // Shapes of `of` are posed relative to its own frame, which SDF can name directly.
    let relative_to = (of.name != owner).then_some(of.name.as_str());
    let prefix = if of.name == owner { String::new() } else { format!("{}_", of.name) };
    for (i, v) in of.visuals.iter().enumerate() {
        let [r, g, b, a] = v.colour.rgba;
        emit!(out, "      <visual name=\"{}visual_{i}\">", escape(&prefix));
        emit!(out, "        {}", pose(&v.origin, relative_to));
        emit!(out, "        <geometry>{}</geometry>", geometry(&v.geometry));
        emit!(
            out,
            "        <material><ambient>{} {}</ambient><diffuse>{} {}</diffuse></material>",
            triple(r, g, b),
            num(a),
            triple(r, g, b),
            num(a)
        );
        if a < 1.0 {
            emit!(out, "        <transparency>{}</transparency>", num(1.0 - a));
        }
        emit!(out, "      </visual>");
    }
    for (i, c) in of.collisions.iter().enumerate() {
        emit!(out, "      <collision name=\"{}collision_{i}\">", escape(&prefix));
        emit!(out, "        {}", pose(&c.origin, relative_to));
        emit!(out, "        <geometry>{}</geometry>", geometry(&c.geometry));
        emit!(out, "      </collision>");
    }
}

/// The model as SDFormat 1.9 text.
pub fn render_sdf(model: &Model) -> String {
    let mut out = String::new();
    emit!(out, "<?xml version=\"1.0\"?>");
    emit!(out, "<!-- {GENERATED_NOTE} -->");
    emit!(out, "<sdf version=\"1.9\">");
    emit!(out, "  <model name=\"{}\">", escape(&model.name));
    if model.is_static {
        emit!(out, "    <static>true</static>");
    }
    for link in model.links.iter().filter(|l| !is_frame(model, l)) {
        emit!(out, "    <link name=\"{}\">", escape(&link.name));
        if let Some(joint) = model.parent_joint(&link.name) {
            emit!(out, "      {}", pose(&Pose::identity(), Some(&joint.name)));
        }
        if let Some(i) = &link.inertial {
            let c = i.centre_of_mass;
            emit!(out, "      <inertial>");
            emit!(out, "        <pose>{} 0 0 0</pose>", triple(c.x, c.y, c.z));
            emit!(out, "        <mass>{}</mass>", num(i.mass));
            let entries: String = i.inertia_entries().iter().map(|(name, v)| format!("<{name}>{}</{name}>", num(*v))).collect();
            emit!(out, "        <inertia>{entries}</inertia>");
            emit!(out, "      </inertial>");
        }
        shapes(&mut out, link, &link.name);
        for frame in model.links.iter().filter(|l| is_frame(model, l) && carrier(model, l) == link.name) {
            shapes(&mut out, frame, &link.name);
        }
        emit!(out, "    </link>");
    }
    for joint in &model.joints {
        let child_is_frame = model.link(&joint.child).is_some_and(|l| is_frame(model, l));
        if child_is_frame {
            emit!(out, "    <frame name=\"{}\" attached_to=\"{}\">", escape(&joint.child), escape(&joint.parent));
            emit!(out, "      {}", pose(&joint.origin, Some(&joint.parent)));
            emit!(out, "    </frame>");
            continue;
        }
        let kind = match joint.kind {
            JointKind::Fixed => "fixed",
            JointKind::Revolute { .. } => "revolute",
            JointKind::Prismatic { .. } => "prismatic",
            JointKind::Universal { .. } => "universal",
        };
        emit!(out, "    <joint name=\"{}\" type=\"{kind}\">", escape(&joint.name));
        emit!(out, "      {}", pose(&joint.origin, Some(&joint.parent)));
        emit!(out, "      <parent>{}</parent>", escape(&joint.parent));
        emit!(out, "      <child>{}</child>", escape(&joint.child));
        let axes = match joint.kind {
            JointKind::Fixed => Vec::new(),
            JointKind::Revolute { axis, limits } | JointKind::Prismatic { axis, limits } => {
                vec![("axis", axis, limits)]
            }
            JointKind::Universal { axis, axis2, limits } => vec![("axis", axis, limits), ("axis2", axis2, limits)],
        };
        for (tag, a, l) in axes {
            emit!(out, "      <{tag}><xyz>{}</xyz>{}</{tag}>", triple(a.x, a.y, a.z), limit(&l));
        }
        emit!(out, "    </joint>");
    }
    emit!(out, "  </model>");
    emit!(out, "</sdf>");
    out
}
