//! The closed set of module kinds and their configuration names.

use flotilla_contract::System;
use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// A module type Flotilla can simulate. The configuration name (`snake_case`) is what
/// scenario files, spawn requests and URDF file names use.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ModuleKind {
    /// Lily: square floating module with four EPM latches (SPEC 1).
    Lily,
    /// Weighted 3 cm ping-pong ball, the isotropic calibration object (SPEC 1).
    PingPongBall,
    /// Bluebot: fish-inspired underwater robot (SPEC 3).
    Bluebot,
    /// Modular Hydraulic Propulsion 2-D module: floating square, a pump per face (SPEC 5).
    MhpSquare,
    /// Modular Hydraulic Propulsion 3-D module: neutrally buoyant cube, a pump per face (SPEC 5).
    MhpCube,
    /// Kilobot: 33 mm table-top robot with vibration motors (SPEC 4).
    Kilobot,
    /// MoleMOD active robot ("mole") that moves through block tunnels (SPEC 2).
    MolemodRobot,
    /// MoleMOD passive lattice block with two straight square tunnels (SPEC 2).
    MolemodBlock,
}

impl ModuleKind {
    /// Every kind, in catalogue order.
    pub const ALL: [ModuleKind; 8] = [
        ModuleKind::Lily,
        ModuleKind::PingPongBall,
        ModuleKind::Bluebot,
        ModuleKind::MhpSquare,
        ModuleKind::MhpCube,
        ModuleKind::Kilobot,
        ModuleKind::MolemodRobot,
        ModuleKind::MolemodBlock,
    ];

    /// Number of kinds.
    pub const COUNT: usize = Self::ALL.len();

    /// Position of this kind in [`Self::ALL`] (for per-kind tables).
    pub fn index(self) -> usize {
        self as usize
    }

    /// The configuration name, e.g. `ping_pong_ball`.
    pub fn name(self) -> &'static str {
        match self {
            ModuleKind::Lily => "lily",
            ModuleKind::PingPongBall => "ping_pong_ball",
            ModuleKind::Bluebot => "bluebot",
            ModuleKind::MhpSquare => "mhp_square",
            ModuleKind::MhpCube => "mhp_cube",
            ModuleKind::Kilobot => "kilobot",
            ModuleKind::MolemodRobot => "molemod_robot",
            ModuleKind::MolemodBlock => "molemod_block",
        }
    }

    /// The robot system whose hardware contract this kind's robots speak; `None` for a
    /// passive object (balls, MoleMOD blocks).
    pub fn system(self) -> Option<System> {
        match self {
            ModuleKind::Lily => Some(System::Lily),
            ModuleKind::MhpSquare | ModuleKind::MhpCube => Some(System::Mhp),
            ModuleKind::Bluebot => Some(System::Bluebot),
            ModuleKind::Kilobot => Some(System::Kilobot),
            ModuleKind::MolemodRobot => Some(System::Molemod),
            ModuleKind::PingPongBall | ModuleKind::MolemodBlock => None,
        }
    }

    /// All configuration names, comma separated (for error messages).
    pub fn known_names() -> String {
        Self::ALL.iter().map(|k| k.name()).collect::<Vec<_>>().join(", ")
    }
}

impl fmt::Display for ModuleKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A module kind name that is not in the catalogue.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown module kind `{given}`; known kinds: {known}")]
pub struct UnknownKind {
    /// The name that was asked for.
    pub given: String,
    /// The known names, comma separated.
    pub known: String,
}

impl FromStr for ModuleKind {
    type Err = UnknownKind;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::ALL.iter().copied().find(|k| k.name() == s).ok_or_else(|| UnknownKind { given: s.to_owned(), known: Self::known_names() })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for kind in ModuleKind::ALL {
            assert_eq!(kind.name().parse::<ModuleKind>(), Ok(kind));
        }
    }

    #[test]
    fn index_is_the_position_in_all() {
        for (i, kind) in ModuleKind::ALL.iter().enumerate() {
            assert_eq!(kind.index(), i);
        }
    }

    #[test]
    fn unknown_kind_lists_known_ones() {
        let err = "submarine".parse::<ModuleKind>().unwrap_err();
        let text = err.to_string();
        assert!(text.contains("submarine"), "{text}");
        assert!(text.contains("lily") && text.contains("ping_pong_ball"), "{text}");
    }
}
