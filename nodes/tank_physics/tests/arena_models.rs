//! The arena models in urdf/ and the arenas the physics builds agree: same tank, same wall
//! boxes, same inlets (one source of truth for what rviz, Gazebo and the physics show).

use flotilla_common::models::{ArenaModel, Geometry, Model};
use nalgebra::{Vector2, Vector3};
use tank_physics::{Arena, ArenaConfig, ArenaKind};

/// (centre, yaw, full size) of each box collision of the arena's base link, floor excluded.
fn wall_boxes(model: &Model) -> Vec<(Vector3<f64>, f64, Vector3<f64>)> {
    model.links[0]
        .collisions
        .iter()
        .filter(|c| c.origin.xyz.z > 0.0)
        .map(|c| match c.geometry {
            Geometry::Box { size } => (c.origin.xyz, c.origin.rpy.z, size),
            other => panic!("wall is not a box: {other:?}"),
        })
        .collect()
}

fn assert_same_walls(model: &Model, arena: &Arena) {
    let boxes = wall_boxes(model);
    assert_eq!(boxes.len(), arena.walls.len(), "{}", model.name);
    for (wall, (centre, yaw, size)) in arena.walls.iter().zip(&boxes) {
        assert!((wall.pose.translation.vector - centre).norm() < 1e-12, "{}: wall at {centre}", model.name);
        let (_, _, wall_yaw) = wall.pose.rotation.euler_angles();
        let turn = (wall_yaw - yaw).rem_euclid(2.0 * std::f64::consts::PI);
        assert!(turn < 1e-9 || (2.0 * std::f64::consts::PI - turn) < 1e-9, "{}: yaw {yaw} vs {wall_yaw}", model.name);
        assert!((2.0 * wall.half_extents - size).norm() < 1e-12, "{}: size {size}", model.name);
    }
}

#[test]
fn lily_tank_model_is_the_physics_default_tank() {
    let config = ArenaConfig::default();
    assert_eq!(config.kind, ArenaKind::RoundTank);
    let arena = Arena::new(&config);
    let model = ArenaModel::LilyTank.model();
    assert_same_walls(&model, &arena);
    // Water surface height and every inlet: position on the wall, nozzle depth, jet direction.
    let surface = model.rest_pose("water_surface").translation.z;
    assert!((surface - arena.surface_z.expect("water")).abs() < 1e-12);
    assert_eq!(arena.inlets.len(), 7);
    for (i, inlet) in arena.inlets.iter().enumerate() {
        let frame = model.rest_pose(&format!("inlet_{i}"));
        let p = frame.translation.vector;
        assert!((p.xy() - inlet.position.coords).norm() < 1e-12, "inlet {i} at {p}");
        assert!((surface - p.z - inlet.depth_below_surface).abs() < 1e-12, "inlet {i} depth");
        let jet: Vector2<f64> = (frame.rotation * Vector3::x()).xy();
        assert!((jet - inlet.direction).norm() < 1e-12, "inlet {i} jet {jet}");
    }
}

#[test]
fn mhp_tank_model_is_the_physics_rectangular_tank() {
    let config = ArenaConfig { kind: ArenaKind::RectTank, ..ArenaConfig::default() };
    let arena = Arena::new(&config);
    assert_same_walls(&ArenaModel::MhpTank.model(), &arena);
}
