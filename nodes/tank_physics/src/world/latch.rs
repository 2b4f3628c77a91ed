//! EPM latches: a fixed joint between two faces, made when both faces are commanded on
//! and touch (centres within the capture distance, normals opposed within the capture
//! angle), broken as soon as either is commanded off.

use super::{LatchLink, World};
use crate::spatial::{Disc, PlanarGrid};
use nalgebra::{Isometry3, Translation3, UnitQuaternion, Vector2, Vector3};
use rapier3d_f64::prelude::{FixedJointBuilder, ImpulseJointHandle};

/// A made latch.
#[derive(Clone, Copy, Debug)]
pub(crate) struct LatchJoint {
    /// (body id, face index) of the first face.
    pub(crate) a: (u32, usize),
    /// (body id, face index) of the second face.
    pub(crate) b: (u32, usize),
    /// The rapier joint holding them.
    pub(crate) joint: ImpulseJointHandle,
}

/// A latch face commanded on and not yet latched, in world coordinates.
#[derive(Clone, Copy, Debug)]
struct OpenFace {
    /// Index of its body in the world's list.
    body: usize,
    /// Face index.
    face: usize,
    /// Centre, m.
    centre: Vector3<f64>,
    /// Outward unit normal.
    normal: Vector3<f64>,
    /// Capture distance of its latch, m.
    reach: f64,
    /// Capture angle of its latch, rad.
    angle: f64,
}

/// Buffers of the capture search, kept between steps so that it does not allocate.
#[derive(Clone, Debug, Default)]
pub(crate) struct LatchSearch {
    open: Vec<OpenFace>,
    points: Vec<Disc>,
    used: Vec<bool>,
    grid: PlanarGrid,
}

impl LatchSearch {
    /// Pairs of open faces that latch: each face in list order takes the first later face
    /// that is free, on another body and meets it ([`faces_meet`]); candidates come from
    /// a grid of the face centres. Returns ((body, face), (body, face)) pairs in that order.
    fn pairs(&mut self) -> Vec<((usize, usize), (usize, usize))> {
        self.points.clear();
        self.points.extend(self.open.iter().map(|f| Disc { centre: Vector2::new(f.centre.x, f.centre.y), radius: 0.0 }));
        self.grid.from_discs(&self.points);
        self.used.clear();
        self.used.resize(self.open.len(), false);
        let mut made = Vec::new();
        for x in 0..self.open.len() {
            if self.used[x] {
                continue;
            }
            let a = self.open[x];
            // The pair's capture distance is the smaller one: at most a's, and the planar
            // distance is at most the 3-D one.
            let reach = Vector2::repeat(a.reach);
            let centre = Vector2::new(a.centre.x, a.centre.y);
            let mut partner: Option<usize> = None;
            let (open, used) = (&self.open, &self.used);
            self.grid.any_in_box(centre - reach, centre + reach, |y| {
                let y = y as usize;
                if y <= x || used[y] || partner.is_some_and(|p| p <= y) {
                    return false;
                }
                let b = open[y];
                if a.body != b.body && faces_meet(a.centre, a.normal, b.centre, b.normal, a.reach.min(b.reach), a.angle.min(b.angle)) {
                    partner = Some(y);
                }
                false
            });
            if let Some(y) = partner {
                self.used[x] = true;
                self.used[y] = true;
                made.push(((a.body, a.face), (self.open[y].body, self.open[y].face)));
            }
        }
        made
    }
}

/// Whether two faces can latch: centres (m, world) within `distance` m and outward normals
/// opposed within `angle` rad.
pub(crate) fn faces_meet(
    centre_a: Vector3<f64>,
    normal_a: Vector3<f64>,
    centre_b: Vector3<f64>,
    normal_b: Vector3<f64>,
    distance: f64,
    angle: f64,
) -> bool {
    (centre_a - centre_b).norm() <= distance && normal_a.dot(&normal_b) <= -angle.cos()
}

/// Joint frame of a face: at its centre, x along its outward normal (flipped for the
/// second face so that the joint holds the two normals opposed).
fn face_frame(centre: Vector3<f64>, normal: Vector3<f64>, flip: bool) -> Isometry3<f64> {
    let yaw = normal.y.atan2(normal.x) + if flip { std::f64::consts::PI } else { 0.0 };
    Isometry3::from_parts(Translation3::from(centre), UnitQuaternion::from_axis_angle(&Vector3::z_axis(), yaw))
}

impl World {
    /// Breaks latches whose faces were commanded off, then makes new ones.
    pub(crate) fn update_latches(&mut self) {
        self.release_latches();
        if self.bodies.iter().any(|b| b.faces.iter().any(|f| f.latch_on && f.latched.is_none())) {
            self.capture_latches();
        }
    }

    fn face_on(&self, (id, face): (u32, usize)) -> bool {
        self.find(id).ok().and_then(|i| self.bodies[i].faces.get(face)).is_some_and(|f| f.latch_on)
    }

    fn release_latches(&mut self) {
        let (keep, drop): (Vec<LatchJoint>, Vec<LatchJoint>) =
            std::mem::take(&mut self.latches).into_iter().partition(|l| self.face_on(l.a) && self.face_on(l.b));
        self.latches = keep;
        for latch in drop {
            self.physics.impulse_joints.remove(latch.joint, true);
            self.clear_link(latch.a);
            self.clear_link(latch.b);
            tracing::debug!(a = latch.a.0, face_a = latch.a.1, b = latch.b.0, face_b = latch.b.1, "unlatched");
        }
    }

    /// Forgets the link on one face (the joint is gone).
    pub(crate) fn clear_link(&mut self, (id, face): (u32, usize)) {
        if let Ok(i) = self.find(id) {
            if let Some(f) = self.bodies[i].faces.get_mut(face) {
                f.latched = None;
            }
        }
    }

    fn capture_latches(&mut self) {
        let mut search = std::mem::take(&mut self.latch_search);
        search.open.clear();
        for (i, body) in self.bodies.iter().enumerate() {
            let Some(rb) = self.physics.bodies.get(body.handle) else { continue };
            let pose = rb.position();
            for (k, (face, state)) in body.model.spec.faces.iter().zip(&body.faces).enumerate() {
                if let (true, None, Some(latch)) = (state.latch_on, state.latched, face.latch) {
                    let centre = pose * nalgebra::Point3::from(face.centre);
                    search.open.push(OpenFace {
                        body: i,
                        face: k,
                        centre: centre.coords,
                        normal: pose.rotation * face.normal,
                        reach: latch.capture_distance,
                        angle: latch.capture_angle,
                    });
                }
            }
        }
        let made = search.pairs();
        self.latch_search = search;
        for ((ia, fa), (ib, fb)) in made {
            let (body_a, body_b) = (&self.bodies[ia], &self.bodies[ib]);
            let face_a = &body_a.model.spec.faces[fa];
            let face_b = &body_b.model.spec.faces[fb];
            let joint = FixedJointBuilder::new()
                .local_frame1(face_frame(face_a.centre, face_a.normal, false))
                .local_frame2(face_frame(face_b.centre, face_b.normal, true))
                .contacts_enabled(false)
                .build();
            let handle = self.physics.impulse_joints.insert(body_a.handle, body_b.handle, joint, true);
            let (id_a, id_b) = (body_a.id, body_b.id);
            self.bodies[ia].faces[fa].latched = Some(LatchLink { other_id: id_b, other_face: fb });
            self.bodies[ib].faces[fb].latched = Some(LatchLink { other_id: id_a, other_face: fa });
            self.latches.push(LatchJoint { a: (id_a, fa), b: (id_b, fb), joint: handle });
            tracing::debug!(a = id_a, face_a = fa, b = id_b, face_b = fb, "latched");
        }
    }

    /// Drops the latches of a body being removed (rapier removes the joints with it).
    pub(crate) fn forget_latches_of(&mut self, id: u32) {
        let (gone, keep): (Vec<LatchJoint>, Vec<LatchJoint>) =
            std::mem::take(&mut self.latches).into_iter().partition(|l| l.a.0 == id || l.b.0 == id);
        self.latches = keep;
        for latch in gone {
            self.clear_link(latch.a);
            self.clear_link(latch.b);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn faces_meet_by_hand() {
        let n = Vector3::x();
        // 1.5 mm apart, exactly opposed: within 2 mm.
        assert!(faces_meet(Vector3::zeros(), n, Vector3::new(0.0015, 0.0, 0.0), -n, 0.002, 0.35));
        // 2.5 mm apart: too far.
        assert!(!faces_meet(Vector3::zeros(), n, Vector3::new(0.0025, 0.0, 0.0), -n, 0.002, 0.35));
        // Opposed within 15 deg < 20 deg: cos(165 deg) = -0.966 <= -cos(20 deg) = -0.940.
        let m = -(UnitQuaternion::from_axis_angle(&Vector3::z_axis(), 15f64.to_radians()) * n);
        assert!(faces_meet(Vector3::zeros(), n, Vector3::zeros(), m, 0.002, 20f64.to_radians()));
        // At 30 deg it is refused.
        let m = -(UnitQuaternion::from_axis_angle(&Vector3::z_axis(), 30f64.to_radians()) * n);
        assert!(!faces_meet(Vector3::zeros(), n, Vector3::zeros(), m, 0.002, 20f64.to_radians()));
    }

    #[test]
    fn joint_frames_oppose_the_normals() {
        let a = face_frame(Vector3::new(0.015, 0.0, 0.0), Vector3::x(), false);
        let b = face_frame(Vector3::new(0.0, 0.015, 0.0), Vector3::y(), true);
        assert!((a.rotation * Vector3::x() - Vector3::x()).norm() < 1e-12);
        assert!((b.rotation * Vector3::x() + Vector3::y()).norm() < 1e-12);
    }
}
