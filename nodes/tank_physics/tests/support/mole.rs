//! The mole of the MoleMOD physics tests: the committed final model and the firmware's
//! view of its joints.

use flotilla_common::models::{read_urdf, Model};
use flotilla_firmware::molemod::motion::AxisSpec;
use std::path::Path;
use tank_physics::systems::molemod::world::MoleWorld;

/// `urdf/molemod_robot.urdf`, the final model (three main cubes, four prismatic and two
/// universal joints).
pub fn committed_model() -> Model {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../urdf/molemod_robot.urdf");
    read_urdf(&path).unwrap_or_else(|e| panic!("{e}"))
}

/// The firmware's view of the robot: its joint coordinates in reading order.
pub fn axes(world: &MoleWorld) -> Vec<AxisSpec> {
    let robot = world.robot();
    robot
        .joint_names()
        .map(|name| {
            let limits = robot.limits(name).expect("joint");
            AxisSpec {
                name: name.to_owned(),
                prismatic: robot.is_prismatic(name).expect("joint"),
                lower: limits.lower,
                upper: limits.upper,
            }
        })
        .collect()
}
