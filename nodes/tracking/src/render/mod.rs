//! Overhead camera emulation: scene description, marker designs, and the renderer.

mod options;
mod post;
mod renderer;
mod scene;

pub use options::{RenderError, RenderOptions};
pub use renderer::Renderer;
pub use scene::{Colour, HeadingDot, MarkerDesign, MarkerKind, Outline, Region, SceneObject};
