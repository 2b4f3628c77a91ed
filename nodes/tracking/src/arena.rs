//! The arena seen by the camera: a round tank or a rectangular one, centred on the
//! world origin.

use serde::{Deserialize, Serialize};

/// Shape of the water surface, centred on the world origin.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "shape", rename_all = "snake_case")]
pub enum Arena {
    /// Round tank (the Lily tank).
    RoundTank {
        /// Inner radius of the tank wall, m.
        radius: f64,
    },
    /// Rectangular tank or table.
    Rectangle {
        /// Inner size along world x, m.
        size_x: f64,
        /// Inner size along world y, m.
        size_y: f64,
    },
}

impl Arena {
    /// The 0.60 m diameter Lily tank (SPEC 1).
    pub fn lily_tank() -> Self {
        Arena::RoundTank { radius: 0.30 }
    }

    /// Half sizes of the axis-aligned bounding box of the water, m.
    pub fn half_extent(&self) -> (f64, f64) {
        match *self {
            Arena::RoundTank { radius } => (radius, radius),
            Arena::Rectangle { size_x, size_y } => (size_x / 2.0, size_y / 2.0),
        }
    }

    /// Signed distance bound to the wall grown by `grow` (m): negative inside, positive
    /// outside; its magnitude never exceeds the true distance to that boundary.
    pub fn boundary_distance(&self, x: f64, y: f64, grow: f64) -> f64 {
        match *self {
            Arena::RoundTank { radius } => (x * x + y * y).sqrt() - (radius + grow),
            Arena::Rectangle { size_x, size_y } => (x.abs() - (size_x / 2.0 + grow)).max(y.abs() - (size_y / 2.0 + grow)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn boundary_distance_hand_computed() {
        let tank = Arena::lily_tank();
        assert!((tank.boundary_distance(0.3, 0.4, 0.0) - 0.2).abs() < 1e-15);
        assert!((tank.boundary_distance(0.0, 0.1, 0.01) + 0.21).abs() < 1e-15);
        let rect = Arena::Rectangle { size_x: 1.0, size_y: 0.5 };
        // Inside: nearest wall is y = 0.25, 0.15 away.
        assert!((rect.boundary_distance(0.2, 0.1, 0.0) + 0.15).abs() < 1e-15);
        // Outside the corner: max(0.1, 0.05) = 0.1 <= true distance 0.1118.
        assert!((rect.boundary_distance(0.6, 0.3, 0.0) - 0.1).abs() < 1e-15);
        assert_eq!(rect.half_extent(), (0.5, 0.25));
    }
}
