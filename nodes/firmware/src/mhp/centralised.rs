//! The centralised MHP controller (SPEC 5, after Doniec et al. 2010): the robot knows the
//! target relative to itself, its own motion and attitude ([`MhpNavigation`]) and its
//! outer thrusters ([`MhpLayout`]). A translational PD turns the target offset into a
//! wanted force, a rotational PD the attitude error into a wanted torque; the
//! Moore-Penrose pseudo-inverses of the thruster force and torque matrices turn each
//! into a vector of thruster values; the two vectors are summed and a thruster fires iff
//! its sum is positive (binary pumps). The integral gains are zero, as in the paper.
//!
//! With `A` the 3 x m matrix of thruster force (or torque) columns, `A+ = A^T (A A^T)+`;
//! only the 3 x 3 `(A A^T)+` is stored, so a step costs one dot product per thruster.
//! Because the pumps are binary, scaling all four gains together changes nothing: what
//! matters is the damping times `kd / kp` and the weight of rotation against translation.

use flotilla_contract::mhp::{Mhp, MhpCommand, MhpFirmware, MhpLayout, MhpNavigation, MhpSensors};
use flotilla_contract::Firmware;

use super::linalg::{cross, dot, mat_vec, pinv_sym, quat_conj, quat_mul, rotation_vector, scale, M3, V3};

/// Gains of the two PD controllers (I = 0).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CentralisedGains {
    /// Translational proportional gain: wanted force per metre of target offset, N/m.
    pub kp_translation: f64,
    /// Translational derivative gain: wanted force per m/s of velocity, N s/m.
    pub kd_translation: f64,
    /// Rotational proportional gain: wanted torque per radian of attitude error, N m/rad.
    pub kp_rotation: f64,
    /// Rotational derivative gain: wanted torque per rad/s of angular velocity, N m s/rad.
    pub kd_rotation: f64,
}

impl Default for CentralisedGains {
    /// Tuned on the 3 x 3 x 3 cube by the paper's procedure (docs/mhp.md, "Tuning the
    /// centralised controller"): kp raised until the robot reaches the target, then kd
    /// until the overshoot is minimal.
    fn default() -> Self {
        Self { kp_translation: 1.0, kd_translation: 1.0, kp_rotation: 0.01, kd_rotation: 0.05 }
    }
}

/// Thruster columns of one controlled quantity and the pseudo-inverse of their Gram matrix.
#[derive(Clone, Debug)]
struct Allocation {
    /// Per outer thruster: its column (force N, or torque N m, per unit command), body frame.
    columns: Vec<V3>,
    /// `(A A^T)+`.
    gram_pinv: M3,
}

impl Allocation {
    fn new(columns: Vec<V3>) -> Self {
        let mut gram = [[0.0; 3]; 3];
        for c in &columns {
            for i in 0..3 {
                for j in 0..3 {
                    gram[i][j] += c[i] * c[j];
                }
            }
        }
        Self { gram_pinv: pinv_sym(&gram, 1e-9), columns }
    }
}

/// The centralised controller of one robot.
#[derive(Clone, Debug)]
pub struct MhpCentralised {
    gains: CentralisedGains,
    /// Face index of each outer thruster.
    faces: Vec<usize>,
    /// Faces in the arrays.
    face_count: usize,
    force: Allocation,
    torque: Allocation,
    /// The attitude to hold (the first reading's), (w, x, y, z).
    hold: Option<[f64; 4]>,
}

impl MhpCentralised {
    /// The controller of a robot with thrusters `layout`.
    pub fn new(layout: &MhpLayout, gains: CentralisedGains) -> Self {
        let forces: Vec<V3> = layout.thrusters.iter().map(|t| scale(t.direction, t.force)).collect();
        let torques = layout.thrusters.iter().zip(&forces).map(|(t, &f)| cross(t.position, f)).collect();
        Self {
            gains,
            faces: layout.thrusters.iter().map(|t| t.face).collect(),
            face_count: layout.faces,
            force: Allocation::new(forces),
            torque: Allocation::new(torques),
            hold: None,
        }
    }

    fn control(&mut self, nav: &MhpNavigation, thrust: &mut [f64]) {
        let g = self.gains;
        let hold = *self.hold.get_or_insert(nav.orientation);
        let wanted_force: V3 = std::array::from_fn(|i| g.kp_translation * nav.target[i] - g.kd_translation * nav.velocity[i]);
        // Attitude error in the body frame: the rotation from the current attitude to the held one.
        let error = rotation_vector(quat_mul(quat_conj(nav.orientation), hold));
        let wanted_torque: V3 = std::array::from_fn(|i| g.kp_rotation * error[i] - g.kd_rotation * nav.angular_velocity[i]);
        let f = mat_vec(&self.force.gram_pinv, wanted_force);
        let t = mat_vec(&self.torque.gram_pinv, wanted_torque);
        for ((&face, fc), tc) in self.faces.iter().zip(&self.force.columns).zip(&self.torque.columns) {
            if dot(*fc, f) + dot(*tc, t) > 0.0 {
                thrust[face] = 1.0;
            }
        }
    }
}

impl MhpFirmware for MhpCentralised {
    fn step_into(&mut self, _time: f64, sensors: &MhpSensors, command: &mut MhpCommand) {
        command.thrust.clear();
        command.thrust.resize(self.face_count, 0.0);
        match &sensors.navigation {
            Some(nav) if sensors.connected.len() == self.face_count => self.control(nav, &mut command.thrust),
            Some(_) => {
                tracing::warn!(faces = sensors.connected.len(), layout = self.face_count, "MHP reading does not fit the layout; holding")
            }
            None => tracing::warn!("MHP reading without navigation; the centralised controller holds"),
        }
    }
}

impl Firmware<Mhp> for MhpCentralised {
    fn step(&mut self, time: f64, sensors: &MhpSensors) -> MhpCommand {
        let mut command = MhpCommand::default();
        self.step_into(time, sensors, &mut command);
        command
    }

    fn status(&self) -> String {
        format!("mhp_centralised ({} thrusters)", self.faces.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use flotilla_contract::mhp::{MhpThruster, FACE_NORMALS};

    /// One cube module of side 2 m: six thrusters at the face centres pushing inwards.
    fn one_cube() -> MhpLayout {
        let thrusters = FACE_NORMALS
            .iter()
            .enumerate()
            .map(|(face, n)| {
                let n = n.map(f64::from);
                MhpThruster { face, position: n, direction: scale(n, -1.0), force: 1.0 }
            })
            .collect();
        MhpLayout { faces_per_module: 6, faces: 6, thrusters }
    }

    fn reading(nav: MhpNavigation) -> MhpSensors {
        MhpSensors { connected: vec![false; 6], target_seen: vec![false; 6], navigation: Some(nav), ..MhpSensors::default() }
    }

    const IDENTITY: [f64; 4] = [1.0, 0.0, 0.0, 0.0];

    #[test]
    fn pushes_towards_the_target() {
        let mut c = MhpCentralised::new(&one_cube(), CentralisedGains::default());
        // Target at +x: the -x face (face 1) pushes towards +x.
        let nav = MhpNavigation { target: [1.0, 0.0, 0.0], orientation: IDENTITY, ..MhpNavigation::default() };
        assert_eq!(c.step(0.0, &reading(nav)).thrust, vec![0.0, 1.0, 0.0, 0.0, 0.0, 0.0]);
        // Target at +x and -y: faces -x and +y.
        let nav = MhpNavigation { target: [1.0, -0.5, 0.0], orientation: IDENTITY, ..MhpNavigation::default() };
        assert_eq!(c.step(0.0, &reading(nav)).thrust, vec![0.0, 1.0, 1.0, 0.0, 0.0, 0.0]);
        // Flying past the target fast: damping wins, the +x face brakes.
        let nav = MhpNavigation { target: [0.1, 0.0, 0.0], velocity: [1.0, 0.0, 0.0], orientation: IDENTITY, ..MhpNavigation::default() };
        assert_eq!(c.step(0.0, &reading(nav)).thrust, vec![1.0, 0.0, 0.0, 0.0, 0.0, 0.0]);
    }

    #[test]
    fn a_bar_turns_against_its_spin() {
        // Two cubes along x (side 2 m): the +y faces at x = +-2 give torque about z.
        let mut thrusters = Vec::new();
        for (m, cx) in [-1.0, 1.0].into_iter().enumerate() {
            for (face, n) in FACE_NORMALS.iter().enumerate() {
                if (m == 0 && face == 0) || (m == 1 && face == 1) {
                    continue; // the connected faces
                }
                let n = n.map(f64::from);
                thrusters.push(MhpThruster {
                    face: m * 6 + face,
                    position: [cx + n[0], n[1], n[2]],
                    direction: scale(n, -1.0),
                    force: 1.0,
                });
            }
        }
        let layout = MhpLayout { faces_per_module: 6, faces: 12, thrusters };
        let gains = CentralisedGains { kp_translation: 0.0, kd_translation: 0.0, kp_rotation: 0.0, kd_rotation: 1.0 };
        let mut c = MhpCentralised::new(&layout, gains);
        let nav = MhpNavigation { angular_velocity: [0.0, 0.0, 1.0], orientation: IDENTITY, ..MhpNavigation::default() };
        let sensors =
            MhpSensors { connected: vec![false; 12], target_seen: vec![false; 12], navigation: Some(nav), ..MhpSensors::default() };
        let thrust = c.step(0.0, &sensors).thrust;
        // Spinning +z: brake with -z torque: push -y at x = +1.. (the +y face of module 1,
        // force -y at x > 0 gives torque -z) and +y at x < 0 (the -y face of module 0).
        assert_eq!(thrust[6 + 2], 1.0, "{thrust:?}");
        assert_eq!(thrust[3], 1.0, "{thrust:?}");
        assert_eq!(thrust[2] + thrust[6 + 3], 0.0, "{thrust:?}");
    }

    #[test]
    fn no_navigation_or_wrong_size_holds() {
        let mut c = MhpCentralised::new(&one_cube(), CentralisedGains::default());
        let s = MhpSensors { connected: vec![false; 6], target_seen: vec![false; 6], ..MhpSensors::default() };
        assert_eq!(c.step(0.0, &s).thrust, vec![0.0; 6]);
        let s =
            MhpSensors { connected: vec![false; 5], target_seen: vec![false; 5], navigation: Some(MhpNavigation::default()), stamp: 0.0 };
        assert_eq!(c.step(0.0, &s).thrust, vec![0.0; 6]);
    }
}
