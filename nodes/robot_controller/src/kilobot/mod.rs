//! The Kilobot self-assembly scene, built one way for every host: the in-process
//! experiments (`flotilla experiment kilobot self-assembly`) and the ROS swarm host
//! (`kilobot_swarm`). [`layout`] turns an image into the shape and places the seeds and
//! the pack; [`Scene`] adds what a run draws from its seed: robot ids (a seeded shuffle,
//! as real Kilobots carry arbitrary distinct ids), headings (robots put down by hand) and
//! each robot's firmware.

pub mod layout;

use flotilla_firmware::kilobot::{KilobotFirmware, ParamError, Role, SelfAssembly, SelfAssemblyParams, Shape};
use flotilla_firmware::robot_seed;
use layout::{Headings, Layout, LayoutError, PackSpec};
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::sync::Arc;
use tank_physics::systems::kilobot::Pose;

/// A laid-out self-assembly run: robots `0..seeds` are the seeds (robot 0 the source), the
/// others the pack.
#[derive(Clone, Debug)]
pub struct Scene {
    /// The shape the swarm assembles.
    pub shape: Arc<Shape>,
    /// Seeds and pack, world units.
    pub layout: Layout,
    /// Start poses (world units, rad), one per robot.
    pub poses: Vec<Pose>,
    /// Kilobot ids (kilolib `kilo_uid`), one per robot.
    pub uids: Vec<u16>,
    /// The run seed.
    pub seed: u64,
}

impl Scene {
    /// Lays out `shape` with `pack` and draws ids and headings from `seed`.
    pub fn new(shape: Arc<Shape>, pack: &PackSpec, seed: u64) -> Result<Self, LayoutError> {
        let layout = layout::layout(&shape, pack)?;
        let mut rng = ChaCha8Rng::seed_from_u64(robot_seed(seed, u32::MAX));
        let n = layout.seeds.len() + layout.robots.len();
        let mut uids: Vec<u16> = (0..n as u16).collect();
        // The study numbers its robots in layout order; kept for its arrangement (the
        // start rule breaks gradient ties by id, so this picks the first robots to move).
        if pack.arrangement != layout::Arrangement::Study {
            uids.shuffle(&mut rng);
        }
        let poses = layout
            .seeds
            .iter()
            .chain(&layout.robots)
            .map(|p| {
                // Drawn either way, so the ids above and the firmware's streams do not
                // depend on the heading rule.
                let drawn = rng.gen_range(-std::f64::consts::PI..std::f64::consts::PI);
                let theta = match pack.headings {
                    Headings::Random => drawn,
                    Headings::North => std::f64::consts::FRAC_PI_2,
                };
                Pose { x: p[0], y: p[1], theta }
            })
            .collect();
        Ok(Self { shape, layout, poses, uids, seed })
    }

    /// Robots, seeds included.
    pub fn len(&self) -> usize {
        self.poses.len()
    }

    /// Whether there is no robot (never: a scene has its seeds).
    pub fn is_empty(&self) -> bool {
        self.poses.is_empty()
    }

    /// Seeds (the first robots).
    pub fn seeds(&self) -> usize {
        self.layout.seeds.len()
    }

    /// Robot `i`'s role: a seed (robot 0 the source) or a robot that joins.
    pub fn role(&self, i: usize) -> Role {
        match self.layout.seeds.get(i) {
            Some(position) => Role::Seed { position: *position, source: i == 0 },
            None => Role::Robot,
        }
    }

    /// Robot `i`'s firmware: the self-assembly program with `params`, its id and its own
    /// random stream.
    pub fn firmware(&self, i: usize, params: SelfAssemblyParams) -> Result<KilobotFirmware<SelfAssembly>, ParamError> {
        let program = SelfAssembly::new(params, self.shape.clone(), self.role(i))?;
        Ok(KilobotFirmware::new(self.uids[i], robot_seed(self.seed, i as u32), program))
    }

    /// The seed of the table's own random stream (speed factors, channel, failures).
    pub fn table_seed(&self) -> u64 {
        robot_seed(self.seed, u32::MAX - 1)
    }
}

/// The shape's outline: the pixel edges between a dark pixel and a light one (or the
/// image's border), as segments in world units (the shape's frame, which is the table's).
pub fn outline(shape: &Shape) -> Vec<[[f64; 2]; 2]> {
    let s = shape.scale();
    let dark = |c: isize, r: isize| c >= 0 && r >= 0 && shape.pixel(c as usize, r as usize);
    let mut segments = Vec::new();
    for r in 0..shape.height() as isize {
        for c in 0..shape.width() as isize {
            if !dark(c, r) {
                continue;
            }
            let (x0, y0, x1, y1) = (c as f64 * s, r as f64 * s, (c + 1) as f64 * s, (r + 1) as f64 * s);
            if !dark(c, r - 1) {
                segments.push([[x0, y0], [x1, y0]]);
            }
            if !dark(c, r + 1) {
                segments.push([[x0, y1], [x1, y1]]);
            }
            if !dark(c - 1, r) {
                segments.push([[x0, y0], [x0, y1]]);
            }
            if !dark(c + 1, r) {
                segments.push([[x1, y0], [x1, y1]]);
            }
        }
    }
    segments
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The study's arrangement numbers robots in layout order and `North` turns them all to +y.
    #[test]
    fn the_study_scene_numbers_robots_in_order_and_faces_them_north() {
        let shape = Arc::new(Shape::rectangle(10.0, 5.0, 0.05).unwrap());
        let pack = PackSpec {
            robots: 25,
            arrangement: layout::Arrangement::Study,
            headings: Headings::North,
            spacing: 1.0,
            clearance: 1.5,
            gradient_distance: 1.715,
            bounds: None,
        };
        let scene = Scene::new(shape, &pack, 7).unwrap();
        assert_eq!(scene.uids, (0..29).collect::<Vec<u16>>());
        assert!(scene.poses.iter().all(|p| p.theta == std::f64::consts::FRAC_PI_2));
    }

    #[test]
    fn a_scene_is_seeded_and_its_seeds_come_first() {
        let shape = Arc::new(Shape::rectangle(10.0, 5.0, 0.05).unwrap());
        let pack = PackSpec {
            robots: 25,
            arrangement: layout::Arrangement::Corner,
            headings: Headings::Random,
            spacing: 1.615,
            clearance: 1.5,
            gradient_distance: 1.715,
            bounds: None,
        };
        let a = Scene::new(shape.clone(), &pack, 3).unwrap();
        let b = Scene::new(shape.clone(), &pack, 3).unwrap();
        let c = Scene::new(shape, &pack, 4).unwrap();
        assert_eq!((a.len(), a.seeds()), (29, 4));
        assert_eq!((a.uids.clone(), a.poses.clone()), (b.uids.clone(), b.poses.clone()));
        assert_ne!(a.uids, c.uids);
        let mut sorted = a.uids.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, (0..29).collect::<Vec<u16>>());
        assert_eq!(a.role(0), Role::Seed { position: [-0.5, 0.0], source: true });
        assert!(matches!(a.role(3), Role::Seed { source: false, .. }));
        assert_eq!(a.role(4), Role::Robot);
        let fw = a.firmware(0, SelfAssemblyParams::default()).unwrap();
        assert!(fw.program().is_seed() && fw.kilo().kilo_uid() == a.uids[0]);
    }

    #[test]
    fn the_outline_of_an_l_runs_round_its_pixels() {
        // An L of three pixels: (0,0), (1,0), (0,1); perimeter 8 pixel edges.
        let l = Shape::new(2, 2, 0.5, vec![true, true, true, false]).unwrap();
        let edges = outline(&l);
        assert_eq!(edges.len(), 8);
        let length: f64 = edges.iter().map(|[a, b]| (a[0] - b[0]).hypot(a[1] - b[1])).sum();
        assert!((length - 4.0).abs() < 1e-12, "{length}");
        assert!(edges.contains(&[[0.5, 0.5], [1.0, 0.5]]) && edges.contains(&[[0.5, 0.5], [0.5, 1.0]]));
    }
}
