//! The sensor models' shared measurements, derived from the world's ground truth: light,
//! latch state, face contact and target sight. Each robot system packs those its robots
//! carry into its contract reading ([`crate::systems`]); the physics node publishes it as
//! `<robot>/sensors`.

mod geometry;

use crate::spatial::{Disc, PlanarGrid};
use crate::{BodyState, World};
use flotilla_contract::Reading;
use geometry::{face_frame, segment_hits_body};
use nalgebra::Vector2;
use serde::{Deserialize, Serialize};

/// A disc of light the overhead projector throws on the water.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LightSpot {
    /// Centre x, m (world frame).
    pub x: f64,
    /// Centre y, m (world frame).
    pub y: f64,
    /// Radius, m.
    pub radius: f64,
    /// Light level inside the disc, 0..1 of the sensor's full scale.
    pub level: f64,
}

/// What the world looks like to the robots' sensors beyond the bodies themselves.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SensingConfig {
    /// Light level outside every projector spot, 0..1 of full scale.
    pub ambient_light: f64,
    /// Projector spots; a sensor reads the brightest spot covering it (or the ambient level).
    pub light_spots: Vec<LightSpot>,
    /// Position of the target light source (x, y), m, for per-face target sensors.
    pub target: Option<[f64; 2]>,
    /// Largest gap between two face centres that counts as contact, m.
    pub contact_range: f64,
    /// Largest angle between two faces' anti-parallel normals that counts as contact, rad.
    pub contact_angle: f64,
}

impl Default for SensingConfig {
    /// Dim uniform light, no target, contact within 5 mm and 20 deg.
    fn default() -> Self {
        Self { ambient_light: 0.2, light_spots: Vec::new(), target: None, contact_range: 0.005, contact_angle: 20f64.to_radians() }
    }
}

/// Why no reading could be made.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum SensingError {
    /// No body has that id.
    #[error("sensors: no robot with id {id}")]
    NoSuchRobot {
        /// The id asked for.
        id: u32,
    },
    /// A configuration value is out of range.
    #[error("sensing.{key}: {message}")]
    Invalid {
        /// Key of the value, e.g. `light_spots[1].level`.
        key: String,
        /// What is wrong.
        message: String,
    },
}

impl SensingConfig {
    /// Checks every value's range.
    pub fn validate(&self) -> Result<(), SensingError> {
        let fraction = |key: String, v: f64| {
            if (0.0..=1.0).contains(&v) {
                Ok(())
            } else {
                Err(SensingError::Invalid { key, message: format!("must be in [0, 1], got {v}") })
            }
        };
        let non_negative = |key: String, v: f64| {
            if v.is_finite() && v >= 0.0 {
                Ok(())
            } else {
                Err(SensingError::Invalid { key, message: format!("must be finite and >= 0, got {v}") })
            }
        };
        fraction("ambient_light".into(), self.ambient_light)?;
        for (i, spot) in self.light_spots.iter().enumerate() {
            fraction(format!("light_spots[{i}].level"), spot.level)?;
            non_negative(format!("light_spots[{i}].radius"), spot.radius)?;
            if !(spot.x.is_finite() && spot.y.is_finite()) {
                return Err(SensingError::Invalid { key: format!("light_spots[{i}]"), message: "centre must be finite".into() });
            }
        }
        if let Some([x, y]) = self.target {
            if !(x.is_finite() && y.is_finite()) {
                return Err(SensingError::Invalid { key: "target".into(), message: "must be finite".into() });
            }
        }
        non_negative("contact_range".into(), self.contact_range)?;
        non_negative("contact_angle".into(), self.contact_angle)
    }

    /// Light level at (x, y), 0..1.
    pub fn light_at(&self, x: f64, y: f64) -> f64 {
        self.light_spots.iter().filter(|s| (x - s.x).hypot(y - s.y) <= s.radius).map(|s| s.level).fold(self.ambient_light, f64::max)
    }
}

/// The reading of robot `id` at the world's current time in its system's contract type,
/// with the radio bytes waiting for it; `None` for a passive body (no sensors).
pub fn sensors_for(world: &World, id: u32, radio_rx: Vec<u8>, config: &SensingConfig) -> Result<Option<Reading>, SensingError> {
    let bodies = world.bodies();
    let index = bodies.iter().position(|b| b.id == id).ok_or(SensingError::NoSuchRobot { id })?;
    Ok(sense(&bodies, index, world.time(), radio_rx, config))
}

/// The reading of `bodies[index]` at `time` (s); `bodies` is the whole world (for contact
/// and occlusion). This indexes the whole snapshot for one reading; to read many robots
/// of one snapshot, index it once ([`SensingIndex::snapshot`]) and read them all from it.
/// `None` for a passive body.
pub fn sense(bodies: &[BodyState], index: usize, time: f64, radio_rx: Vec<u8>, config: &SensingConfig) -> Option<Reading> {
    let mut sensing = SensingIndex::default();
    let ctx = SensingContext { snapshot: sensing.snapshot(bodies), config };
    crate::systems::read(&ctx, index, time, radio_rx)
}

/// What every sensor model reads from: one indexed snapshot of the world and the sensing
/// configuration.
#[derive(Clone, Copy, Debug)]
pub struct SensingContext<'a> {
    /// The indexed snapshot.
    pub snapshot: SensingSnapshot<'a>,
    /// Light, target and contact settings.
    pub config: &'a SensingConfig,
}

impl SensingContext<'_> {
    /// Every body of the snapshot, ordered by id.
    pub fn bodies(&self) -> &[BodyState] {
        self.snapshot.bodies
    }

    /// Per face of `bodies[index]`: another body's face within contact range.
    pub fn contacts(&self, index: usize) -> Vec<bool> {
        (0..self.bodies()[index].kind.spec().faces.len()).map(|k| self.snapshot.face_in_contact(index, k, self.config)).collect()
    }

    /// Per face of `bodies[index]`: the target in front of the face and in sight.
    pub fn target_seen(&self, index: usize) -> Vec<bool> {
        let faces = self.bodies()[index].kind.spec().faces.len();
        match self.config.target {
            Some([x, y]) => (0..faces).map(|k| self.snapshot.face_sees(index, k, Vector2::new(x, y))).collect(),
            None => vec![false; faces],
        }
    }

    /// Per face of `bodies[index]`: latched to a neighbour.
    pub fn latched(&self, index: usize) -> Vec<bool> {
        self.bodies()[index].faces.iter().map(|f| f.latched.is_some()).collect()
    }

    /// Light level on top of `bodies[index]`, 0..1.
    pub fn light(&self, index: usize) -> f64 {
        let p = self.bodies()[index].pose.translation;
        self.config.light_at(p.x, p.y)
    }
}

/// Footprints are filed this much larger (m) than they are, so that a footprint touching a
/// cell border exactly is found from either side.
const FILING_SLACK: f64 = 1e-9;

/// What the sensors need of one snapshot of the world, computed once for all readings of
/// a tick: every face's frame and the bodies' footprints on a [`PlanarGrid`]. Keep one
/// and rebuild it every tick: its buffers are reused.
#[derive(Clone, Debug, Default)]
pub struct SensingIndex {
    /// Centre (m) and outward unit normal of every face in the plane, body after body.
    faces: Vec<(Vector2<f64>, Vector2<f64>)>,
    /// Where each body's faces start in `faces` (one more entry than bodies).
    face_start: Vec<usize>,
    /// Bounding discs of the bodies' footprints.
    footprints: Vec<Disc>,
    /// The footprints by cell.
    grid: PlanarGrid,
}

impl SensingIndex {
    /// Indexes `bodies` (one snapshot of the whole world) and returns the snapshot to read
    /// robots from.
    pub fn snapshot<'a>(&'a mut self, bodies: &'a [BodyState]) -> SensingSnapshot<'a> {
        self.faces.clear();
        self.face_start.clear();
        self.footprints.clear();
        for body in bodies {
            self.face_start.push(self.faces.len());
            // BodyState has one face state per catalogue face: frames line up with them.
            self.faces.extend((0..body.faces.len()).filter_map(|k| face_frame(body, k)));
            let centre = Vector2::new(body.pose.translation.x, body.pose.translation.y);
            self.footprints.push(Disc { centre, radius: body.kind.spec().shape.horizontal_radius() + FILING_SLACK });
        }
        self.face_start.push(self.faces.len());
        self.grid.from_discs(&self.footprints);
        SensingSnapshot { bodies, index: self }
    }
}

/// One indexed snapshot of the world: read any robot of it.
#[derive(Clone, Copy, Debug)]
pub struct SensingSnapshot<'a> {
    bodies: &'a [BodyState],
    index: &'a SensingIndex,
}

impl SensingSnapshot<'_> {
    /// The bodies of the snapshot.
    pub fn bodies(&self) -> &[BodyState] {
        self.bodies
    }

    /// Frames of the faces of body `index`.
    fn faces_of(&self, index: usize) -> &[(Vector2<f64>, Vector2<f64>)] {
        &self.index.faces[self.index.face_start[index]..self.index.face_start[index + 1]]
    }

    /// Whether another body's face lies within contact range of face `k`, roughly facing it.
    fn face_in_contact(&self, index: usize, k: usize, config: &SensingConfig) -> bool {
        let body = &self.bodies[index];
        if body.faces.get(k).is_some_and(|f| f.latched.is_some()) {
            return true;
        }
        let Some(&(centre, normal)) = self.faces_of(index).get(k) else { return false };
        let cos_limit = config.contact_angle.cos();
        let range = Vector2::repeat(config.contact_range);
        // A body with a face within range has its footprint within range too.
        self.index.grid.any_in_box(centre - range, centre + range, |j| {
            let j = j as usize;
            if j == index {
                return false;
            }
            let other = &self.bodies[j];
            let reach = other.kind.spec().shape.horizontal_radius() + config.contact_range;
            let d = Vector2::new(other.pose.translation.x - centre.x, other.pose.translation.y - centre.y);
            d.norm() <= reach
                && self.faces_of(j).iter().any(|&(c, n)| (c - centre).norm() <= config.contact_range && normal.dot(&n) <= -cos_limit)
        })
    }

    /// Whether face `k` sees `target`: the target lies in front of the face (180 deg field
    /// of view) and no other body stands on the line between.
    fn face_sees(&self, index: usize, k: usize, target: Vector2<f64>) -> bool {
        let Some(&(centre, normal)) = self.faces_of(index).get(k) else { return false };
        if (target - centre).dot(&normal) <= 0.0 {
            return false;
        }
        !self
            .index
            .grid
            .any_on_segment(centre, target, |j| j as usize != index && segment_hits_body(centre, target, &self.bodies[j as usize]))
    }
}

#[cfg(test)]
mod tests;
