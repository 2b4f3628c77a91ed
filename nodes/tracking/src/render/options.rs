//! Image-formation options of the emulated camera (everything but the lens, which is
//! part of [`crate::camera::CameraModel`]).

use serde::{Deserialize, Serialize};

/// Bad render option, with the field named.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum RenderError {
    /// A render option is out of range.
    #[error("render option `{field}` = {value} is invalid: {reason}")]
    InvalidOption { field: &'static str, value: f64, reason: &'static str },
    /// The camera model is unusable.
    #[error(transparent)]
    Camera(#[from] crate::camera::CameraError),
}

/// How the emulated camera forms an image.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct RenderOptions {
    /// Standard deviation of the additive Gaussian pixel noise, 8-bit levels.
    pub noise_sigma: f64,
    /// Illumination gain change from the image centre to its edge along
    /// `illumination_direction`, fraction (0.2 means 0.8x .. 1.2x).
    pub illumination_gradient: f64,
    /// Direction in which illumination grows, rad from the image +u (column) axis.
    pub illumination_direction: f64,
    /// Standard deviation of the Gaussian optical blur, px (0 = sharp).
    pub blur_sigma: f64,
    /// Sub-samples per pixel side on region edges (n x n per edge pixel), count.
    pub supersampling: u32,
    /// Width of the tank rim drawn around the water, m.
    pub rim_width: f64,
    /// Seed of the pixel noise (frame `k` draws from stream `k` of this seed).
    pub seed: u64,
}

impl Default for RenderOptions {
    fn default() -> Self {
        Self {
            noise_sigma: 0.0,
            illumination_gradient: 0.0,
            illumination_direction: 0.0,
            blur_sigma: 0.0,
            supersampling: 4,
            rim_width: 0.01,
            seed: 0,
        }
    }
}

impl RenderOptions {
    /// A degraded camera: noise, blur and an illumination gradient.
    pub fn degraded(noise_sigma: f64, blur_sigma: f64, illumination_gradient: f64) -> Self {
        Self { noise_sigma, blur_sigma, illumination_gradient, ..Self::default() }
    }

    /// Sets the noise seed (builder style).
    pub fn with_seed(mut self, seed: u64) -> Self {
        self.seed = seed;
        self
    }

    /// Checks every option; the error names the first bad one.
    pub fn validate(&self) -> Result<(), RenderError> {
        let non_negative = [("noise_sigma", self.noise_sigma), ("blur_sigma", self.blur_sigma), ("rim_width", self.rim_width)];
        for (field, value) in non_negative {
            if !(value.is_finite() && value >= 0.0) {
                return Err(RenderError::InvalidOption { field, value, reason: "must be finite and >= 0" });
            }
        }
        if !(self.illumination_gradient.is_finite() && self.illumination_gradient.abs() < 1.0) {
            return Err(RenderError::InvalidOption {
                field: "illumination_gradient",
                value: self.illumination_gradient,
                reason: "must be in (-1, 1)",
            });
        }
        if !self.illumination_direction.is_finite() {
            return Err(RenderError::InvalidOption {
                field: "illumination_direction",
                value: self.illumination_direction,
                reason: "must be finite",
            });
        }
        if !(1..=16).contains(&self.supersampling) {
            return Err(RenderError::InvalidOption {
                field: "supersampling",
                value: f64::from(self.supersampling),
                reason: "must be in 1..=16",
            });
        }
        if self.blur_sigma > 20.0 {
            return Err(RenderError::InvalidOption { field: "blur_sigma", value: self.blur_sigma, reason: "must be <= 20 px" });
        }
        Ok(())
    }
}
