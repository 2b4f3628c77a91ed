//! The firmware each robot system offers, built from configuration: the one place a host
//! (the `robot_controller` node, in-process experiments) learns which controller runs a
//! robot of a given system.

use crate::bluebot::Behaviour;
use crate::lily::{LilyFirmware, Ruleset};
use crate::mhp::{CentralisedGains, MhpCentralised, MhpPrototypeReactive, MhpReactive};
use flotilla_contract::bluebot::Bluebot;
use flotilla_contract::lily::Lily;
use flotilla_contract::mhp::{Mhp, MhpLayout};
use flotilla_contract::{erase, AnyFirmware, System};
use std::collections::BTreeMap;
use std::sync::Arc;

/// Which controller runs every MHP robot of a host.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub enum MhpController {
    /// The occlusion rule per face ([`MhpReactive`]); needs no layout.
    #[default]
    Decentralised,
    /// The 2-D prototype's rule, opposite pairs off ([`MhpPrototypeReactive`]); needs the
    /// robot's layout (faces per module).
    Prototype,
    /// Pseudo-inverses and two PD controllers ([`MhpCentralised`]); needs the robot's
    /// layout and navigation in its readings.
    Centralised(CentralisedGains),
}

impl MhpController {
    /// The names [`MhpController::parse`] takes.
    pub const NAMES: &'static str = "decentralised, prototype, centralised";

    /// `decentralised`, `prototype` or `centralised` (default gains).
    pub fn parse(text: &str) -> Result<Self, String> {
        match text {
            "decentralised" | "decentralized" => Ok(Self::Decentralised),
            "prototype" => Ok(Self::Prototype),
            "centralised" | "centralized" => Ok(Self::Centralised(CentralisedGains::default())),
            _ => Err(format!("unknown MHP controller `{text}`: expected one of {}", Self::NAMES)),
        }
    }

    /// Its name.
    pub fn name(&self) -> &'static str {
        match self {
            Self::Decentralised => "decentralised",
            Self::Prototype => "prototype",
            Self::Centralised(_) => "centralised",
        }
    }

    /// Whether the controller is built from the robot's thruster layout.
    pub fn needs_layout(&self) -> bool {
        !matches!(self, Self::Decentralised)
    }
}

/// What firmware is built from.
#[derive(Clone, Debug, Default)]
pub struct FirmwareParams {
    /// Run seed; each robot's firmware draws from (seed, robot id).
    pub seed: u64,
    /// Ruleset of every Lily.
    pub lily_ruleset: Option<Arc<Ruleset>>,
    /// Behaviour of every Bluebot.
    pub bluebot: Option<Behaviour>,
    /// Controller of every MHP robot.
    pub mhp: MhpController,
    /// MHP robots' thruster layouts by robot id (for the controllers that need one).
    pub mhp_layouts: BTreeMap<u32, Arc<MhpLayout>>,
}

/// Why a robot's firmware cannot be built.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum BuildError {
    /// The system has no firmware that runs from configuration alone.
    #[error("no firmware for {system} robots is built from configuration; firmware exists for: {known}")]
    NoFirmware {
        /// The robot's system.
        system: System,
        /// Systems with firmware, comma separated.
        known: String,
    },
    /// A Lily without a ruleset.
    #[error("a Lily needs a ruleset and none was given")]
    MissingRuleset,
    /// A Bluebot without a behaviour.
    #[error("a Bluebot needs a behaviour (sync, dispersion, milling or search) and none was given")]
    MissingBehaviour,
    /// A Bluebot behaviour with parameters out of range.
    #[error("Bluebot behaviour: {0}")]
    Behaviour(String),
    /// An MHP controller that is built from the robot's layout, and no layout.
    #[error("the {controller} MHP controller needs the robot's thruster layout and none was given")]
    MissingLayout {
        /// The controller's name.
        controller: &'static str,
    },
    /// A layout that does not fit its own arrays (a thruster on a face beyond them, an odd
    /// number of faces per module: the controllers indexed past their arrays and panicked).
    #[error("the robot's thruster layout is refused: {0}")]
    Layout(String),
}

/// Systems whose firmware [`build`] makes.
pub const SYSTEMS_WITH_FIRMWARE: &[System] = &[System::Lily, System::Mhp, System::Bluebot];

/// The firmware of robot `id` of `system`.
pub fn build(system: System, id: u32, params: &FirmwareParams) -> Result<Box<dyn AnyFirmware>, BuildError> {
    match system {
        System::Lily => {
            let rules = params.lily_ruleset.clone().ok_or(BuildError::MissingRuleset)?;
            Ok(erase::<Lily>(LilyFirmware::new(rules, id, params.seed)))
        }
        System::Mhp => {
            let layout = || {
                let layout = params.mhp_layouts.get(&id).ok_or(BuildError::MissingLayout { controller: params.mhp.name() })?;
                layout.validate().map_err(BuildError::Layout)?;
                Ok::<_, BuildError>(layout)
            };
            match params.mhp {
                MhpController::Decentralised => Ok(erase::<Mhp>(MhpReactive)),
                MhpController::Prototype => Ok(erase::<Mhp>(MhpPrototypeReactive { faces_per_module: layout()?.faces_per_module })),
                MhpController::Centralised(gains) => Ok(erase::<Mhp>(MhpCentralised::new(layout()?, gains))),
            }
        }
        System::Bluebot => {
            let behaviour = params.bluebot.ok_or(BuildError::MissingBehaviour)?;
            behaviour.build(params.seed, id).map(erase::<Bluebot>).map_err(BuildError::Behaviour)
        }
        // A mole's joint control is set up per motion (its targets come from the motion
        // being executed); Kilobot firmware comes with its system.
        System::Molemod | System::Kilobot => {
            Err(BuildError::NoFirmware { system, known: SYSTEMS_WITH_FIRMWARE.iter().map(|s| s.name()).collect::<Vec<_>>().join(", ") })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_listed_system_builds_and_the_others_say_why() {
        let params = FirmwareParams {
            seed: 1,
            lily_ruleset: Some(Arc::new(crate::lily::tests_support::chain4())),
            bluebot: Some(Behaviour::by_name("milling").unwrap()),
            ..FirmwareParams::default()
        };
        for &system in System::ALL {
            let built = build(system, 0, &params);
            assert_eq!(built.is_ok(), SYSTEMS_WITH_FIRMWARE.contains(&system), "{system}");
            if let Ok(fw) = built {
                assert_eq!(fw.system(), system);
            }
        }
        let err = build(System::Kilobot, 0, &params).err().map(|e| e.to_string()).unwrap_or_default();
        assert!(err.contains("kilobot") && err.contains("lily, mhp, bluebot"), "{err}");
        assert_eq!(build(System::Bluebot, 0, &FirmwareParams::default()).err(), Some(BuildError::MissingBehaviour));
        assert_eq!(build(System::Lily, 0, &FirmwareParams::default()).err(), Some(BuildError::MissingRuleset));
    }

    #[test]
    fn mhp_controllers_are_built_from_the_layout_of_their_robot() {
        use flotilla_contract::mhp::{MhpSensors, MhpThruster};
        let mut params = FirmwareParams { mhp: MhpController::parse("centralised").unwrap(), ..FirmwareParams::default() };
        let missing = build(System::Mhp, 3, &params).err().map(|e| e.to_string()).unwrap_or_default();
        assert!(missing.contains("centralised") && missing.contains("layout"), "{missing}");
        // One square module: a pump on each face.
        let thrusters = (0..4)
            .map(|face| {
                let n = flotilla_contract::mhp::FACE_NORMALS[face].map(f64::from);
                MhpThruster { face, position: n.map(|v| 0.04 * v), direction: n.map(|v| -v), force: 0.01 }
            })
            .collect();
        let good = MhpLayout { faces_per_module: 4, faces: 4, thrusters };
        // Regression: layouts from /<robot>/layout that do not fit their arrays panicked the
        // controllers (a thruster on face 9 of 4: index out of bounds; 5 faces per module:
        // the prototype's opposite face 5 of a 5-face module); now refused with the reason.
        for controller in ["centralised", "prototype"] {
            params.mhp = MhpController::parse(controller).unwrap();
            for (edit, says) in [
                (&(|l: &mut MhpLayout| l.thrusters[0].face = 9) as &dyn Fn(&mut MhpLayout), "face 9 is not one of the 4 faces"),
                (&|l: &mut MhpLayout| l.faces_per_module = 5, "faces_per_module must be 4 (squares) or 6 (cubes), got 5"),
                (&|l: &mut MhpLayout| l.faces = 6, "positive multiple of faces_per_module = 4"),
                (&|l: &mut MhpLayout| l.faces = u32::MAX as usize - 3, "positive multiple"),
                (&|l: &mut MhpLayout| l.thrusters[1].direction[0] = f64::NAN, "thruster 1: position"),
                (&|l: &mut MhpLayout| l.thrusters[2].force = -1.0, "thruster 2: force"),
            ] {
                let mut bad = good.clone();
                edit(&mut bad);
                params.mhp_layouts.insert(3, Arc::new(bad));
                let err = build(System::Mhp, 3, &params).err().map(|e| e.to_string()).unwrap_or_default();
                assert!(err.contains("thruster layout is refused") && err.contains(says), "{controller}: {err}");
            }
        }
        params.mhp = MhpController::parse("centralised").unwrap();
        params.mhp_layouts.insert(3, Arc::new(good));
        assert!(build(System::Mhp, 3, &params).is_ok());
        params.mhp = MhpController::Prototype;
        let mut fw = build(System::Mhp, 3, &params).unwrap();
        // Target ahead (+x face sees it): the -x pump pushes, the two side pumps cancel and stop.
        let reading = MhpSensors { stamp: 0.0, connected: vec![false; 4], target_seen: vec![true, false, false, false], navigation: None };
        let out = fw.step(0.0, &flotilla_contract::Reading::Mhp(reading)).unwrap();
        assert_eq!(out, flotilla_contract::Actuation::Mhp(flotilla_contract::mhp::MhpCommand { thrust: vec![0.0, 1.0, 0.0, 0.0] }));
        assert!(build(System::Mhp, 4, &params).is_err(), "robot 4 has no layout");
        assert_eq!(
            MhpController::parse("pid").unwrap_err(),
            "unknown MHP controller `pid`: expected one of decentralised, prototype, centralised"
        );
    }
}
