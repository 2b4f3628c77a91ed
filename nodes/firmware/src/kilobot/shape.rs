//! The shape a swarm assembles, as every robot stores it: a black-and-white bitmap and
//! its scale, the origin at the bitmap's lower-left corner (x to the right, y up), where
//! the seed robots sit.

/// A bitmap shape.
#[derive(Clone, Debug, PartialEq)]
pub struct Shape {
    /// Columns, pixels.
    width: usize,
    /// Rows, pixels.
    height: usize,
    /// Side of a pixel, world units.
    scale: f64,
    /// Whether each pixel belongs to the shape, row-major, row 0 at the bottom.
    inside: Vec<bool>,
}

/// A bitmap that cannot be a shape.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum ShapeError {
    /// The scale is not a positive number.
    #[error("shape scale {0} must be a number > 0 (world units per pixel)")]
    Scale(f64),
    /// Width times height is not the number of pixels given, or the bitmap is empty.
    #[error("shape bitmap: {width} x {height} pixels but {given} values")]
    Size {
        /// Columns.
        width: usize,
        /// Rows.
        height: usize,
        /// Values given.
        given: usize,
    },
    /// No pixel belongs to the shape.
    #[error("the shape has no dark pixel: nothing to assemble")]
    Empty,
}

impl Shape {
    /// A shape from `inside` (row-major, row 0 at the bottom) of `width` x `height` pixels of
    /// `scale` world units each.
    pub fn new(width: usize, height: usize, scale: f64, inside: Vec<bool>) -> Result<Self, ShapeError> {
        if !(scale.is_finite() && scale > 0.0) {
            return Err(ShapeError::Scale(scale));
        }
        if width == 0 || height == 0 || inside.len() != width * height {
            return Err(ShapeError::Size { width, height, given: inside.len() });
        }
        if !inside.iter().any(|p| *p) {
            return Err(ShapeError::Empty);
        }
        Ok(Self { width, height, scale, inside })
    }

    /// Whether the point (`x`, `y`) (world units) is in the shape.
    #[inline]
    pub fn contains(&self, x: f64, y: f64) -> bool {
        if !(x >= 0.0 && y >= 0.0) {
            return false;
        }
        let (px, py) = ((x / self.scale) as usize, (y / self.scale) as usize);
        px < self.width && py < self.height && self.inside[py * self.width + px]
    }

    /// Columns, pixels.
    pub fn width(&self) -> usize {
        self.width
    }

    /// Rows, pixels.
    pub fn height(&self) -> usize {
        self.height
    }

    /// Side of a pixel, world units.
    pub fn scale(&self) -> f64 {
        self.scale
    }

    /// Whether pixel (`column`, `row`) belongs to the shape (row 0 at the bottom).
    pub fn pixel(&self, column: usize, row: usize) -> bool {
        column < self.width && row < self.height && self.inside[row * self.width + column]
    }

    /// Area of the shape, world units^2.
    pub fn area(&self) -> f64 {
        self.inside.iter().filter(|p| **p).count() as f64 * self.scale * self.scale
    }

    /// The centres of the shape's pixels, world units.
    pub fn pixel_centres(&self) -> impl Iterator<Item = [f64; 2]> + '_ {
        (0..self.height).flat_map(move |r| {
            (0..self.width)
                .filter(move |&c| self.inside[r * self.width + c])
                .map(move |c| [(c as f64 + 0.5) * self.scale, (r as f64 + 0.5) * self.scale])
        })
    }

    /// A filled rectangle `width` x `height` world units drawn with `scale`-unit pixels.
    pub fn rectangle(width: f64, height: f64, scale: f64) -> Result<Self, ShapeError> {
        let (w, h) = ((width / scale).round() as usize, (height / scale).round() as usize);
        Self::new(w, h, scale, vec![true; w * h])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_origin_is_the_lower_left_corner() {
        // An L: bottom row full, top row only its left pixel.
        let l = Shape::new(2, 2, 0.5, vec![true, true, true, false]).unwrap();
        assert!(l.contains(0.0, 0.0) && l.contains(0.9, 0.2) && l.contains(0.2, 0.9));
        assert!(!l.contains(0.7, 0.7) && !l.contains(-0.01, 0.2) && !l.contains(1.0, 0.2) && !l.contains(f64::NAN, 0.0));
        assert_eq!(l.area(), 0.75);
        assert_eq!(l.pixel_centres().count(), 3);
        assert_eq!(Shape::new(2, 2, 0.0, vec![true; 4]).unwrap_err(), ShapeError::Scale(0.0));
        assert_eq!(Shape::new(2, 2, 1.0, vec![false; 4]).unwrap_err(), ShapeError::Empty);
        assert!(matches!(Shape::new(2, 3, 1.0, vec![true; 4]), Err(ShapeError::Size { .. })));
        let r = Shape::rectangle(10.0, 5.0, 0.1).unwrap();
        assert_eq!((r.width(), r.height()), (100, 50));
    }
}
