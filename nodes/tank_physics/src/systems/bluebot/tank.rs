//! The Blueswarm tank (SPEC 3): 1.78 x 1.78 x 1.17 m, water 0.91 m deep, and the red light
//! source of the search experiment. Tank frame: origin at a floor corner, x and y along
//! the walls, z up; the water surface is the plane z = `water_depth`.

use nalgebra::Vector3;

/// The tank and what is in it besides the robots.
#[derive(Clone, Debug, PartialEq)]
pub struct Tank {
    /// Inner length along x, m.
    pub size_x: f64,
    /// Inner width along y, m.
    pub size_y: f64,
    /// Wall height, m.
    pub height: f64,
    /// Water depth (height of the surface above the floor), m.
    pub water_depth: f64,
    /// The red light source, if the tank has one.
    pub red_source: Option<RedSource>,
}

/// A red light on the tank floor or walls (search, SPEC 3).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RedSource {
    /// Position in the tank frame, m.
    pub position: Vector3<f64>,
    /// Distance at which its thresholded image shrinks to the detector's 2-pixel limit, m
    /// (the paper tuned its detection radius to about 3 BL).
    pub detection_range: f64,
}

impl Default for Tank {
    fn default() -> Self {
        Self { size_x: 1.78, size_y: 1.78, height: 1.17, water_depth: 0.91, red_source: None }
    }
}

impl Tank {
    /// The paper's tank with the red source in a bottom corner (15 cm from the walls and
    /// the floor), detected within 3 BL (0.39 m).
    pub fn with_red_source_in_a_corner(mut self) -> Self {
        self.red_source = Some(RedSource { position: Vector3::new(0.15, 0.15, 0.15), detection_range: 0.39 });
        self
    }

    /// Checks the dimensions are finite and positive and the water fits.
    pub fn validate(&self) -> Result<(), String> {
        let dims = [("size_x", self.size_x), ("size_y", self.size_y), ("height", self.height), ("water_depth", self.water_depth)];
        if let Some((name, value)) = dims.iter().find(|(_, v)| !(v.is_finite() && *v > 0.0)) {
            return Err(format!("tank {name} must be a positive number of metres, got {value}"));
        }
        if self.water_depth > self.height {
            return Err(format!("tank water_depth {} m exceeds its height {} m", self.water_depth, self.height));
        }
        if let Some(source) = &self.red_source {
            if !self.contains(&source.position) || source.detection_range.is_nan() || source.detection_range <= 0.0 {
                return Err(format!("red source at {:?} must be under water with a positive detection range", source.position));
            }
        }
        Ok(())
    }

    /// Whether `p` is inside the water.
    pub fn contains(&self, p: &Vector3<f64>) -> bool {
        (0.0..=self.size_x).contains(&p.x) && (0.0..=self.size_y).contains(&p.y) && (0.0..=self.water_depth).contains(&p.z)
    }

    /// Keeps a sphere of `radius` m at `position` inside the walls and above the floor;
    /// removes the velocity component into a wall it touches. Returns whether it touched.
    pub fn confine(&self, position: &mut Vector3<f64>, velocity: &mut Vector3<f64>, radius: f64) -> bool {
        let upper = [self.size_x - radius, self.size_y - radius, self.height - radius];
        let mut touched = false;
        for axis in 0..3 {
            if position[axis] < radius {
                position[axis] = radius;
                velocity[axis] = velocity[axis].max(0.0);
                touched = true;
            } else if position[axis] > upper[axis] {
                position[axis] = upper[axis];
                velocity[axis] = velocity[axis].min(0.0);
                touched = true;
            }
        }
        touched
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn confinement_and_validation() {
        let tank = Tank::default().with_red_source_in_a_corner();
        assert_eq!(tank.validate(), Ok(()));
        let mut p = Vector3::new(-0.1, 0.9, 0.5);
        let mut v = Vector3::new(-0.2, 0.1, 0.0);
        assert!(tank.confine(&mut p, &mut v, 0.05));
        assert_eq!((p.x, v.x, v.y), (0.05, 0.0, 0.1));
        let bad = Tank { water_depth: 2.0, ..Tank::default() };
        assert!(bad.validate().unwrap_err().contains("exceeds its height"));
        let bad = Tank { size_x: f64::NAN, ..Tank::default() };
        assert!(bad.validate().unwrap_err().contains("size_x"));
    }
}
