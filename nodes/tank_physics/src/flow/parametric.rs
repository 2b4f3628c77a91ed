//! Parametric surface flow of the round tank, derived from the inlets (SPEC 1: seven
//! inlets deflected ~15 deg give a radial part with dead spots at the wall and a
//! tangential part that circulates).
//!
//! Mean surface velocity at a point = sum of the inlets' jets + a tank-wide rotation:
//! - jet i (round turbulent jet): exit speed u0 = Q / (pi d^2 / 4), Q = power x max flow;
//!   centre-line speed u0 min(1, K d / s) at distance s along the jet; Gaussian profile
//!   exp(-(l / b)^2) across it, half-width b = d/2 + spread s; zero behind the nozzle;
//!   the jet dives toward the bottom outlets, leaving the surface as exp(-(s / reach)^2),
//!   so the surface sees an inward push near the wall and calmer water in the middle.
//! - rotation: solid-body, v_theta(r) = gain sin(deflection) (sum_i u0_i K d / R) r / R.
//! - both scaled by the surface coupling exp(-h / h0), h = nozzle depth below the surface:
//!   a lower water level brings the surface closer to the nozzles (SPEC 1).
//!
//! Standard deviation per axis = turbulence |mean| + noise_floor x coupling x mean power.

use crate::arena::{Arena, Inlet};
use crate::config::{ArenaKind, ConfigError, FlowConfig};
use flotilla_common::flow_field::{FlowCell, FlowGrid, GridExtent};
use nalgebra::{Point2, Vector2};
use std::f64::consts::PI;

/// exp(-depth / scale): the share of a nozzle's jet felt at the surface (dimensionless).
pub fn surface_coupling(depth_below_surface: f64, scale: f64) -> f64 {
    (-depth_below_surface.max(0.0) / scale).exp()
}

/// Jet exit speed for `power` % of `max_flow_lpm` L/min through a nozzle of diameter `d` m, m/s.
fn exit_speed(power: f64, max_flow_lpm: f64, d: f64) -> f64 {
    let flow = 0.01 * power * max_flow_lpm / 60_000.0;
    flow / (0.25 * PI * d * d)
}

/// Velocity (m/s, before surface coupling) of a turbulent round jet leaving `inlet` with
/// exit speed `u0` m/s through diameter `d` m, at point `p` (m).
pub fn jet_velocity(inlet: &Inlet, u0: f64, d: f64, config: &FlowConfig, p: Point2<f64>) -> Vector2<f64> {
    let q = p - inlet.position;
    let s = q.dot(&inlet.direction);
    if s <= 0.0 {
        return Vector2::zeros();
    }
    let lateral = (q - s * inlet.direction).norm();
    let centre_line = u0 * (config.jet_decay * d / s).min(1.0);
    let half_width = 0.5 * d + config.jet_spread * s;
    let dive = (-(s / config.jet_reach).powi(2)).exp();
    centre_line * dive * (-(lateral / half_width).powi(2)).exp() * inlet.direction
}

/// Tank-wide rotation (m/s, before surface coupling) at `p` for a tank of radius `radius` m:
/// solid-body, `tip_speed` m/s at the wall.
pub fn swirl_velocity(p: Point2<f64>, radius: f64, tip_speed: f64) -> Vector2<f64> {
    Vector2::new(-p.y, p.x) * (tip_speed / radius)
}

/// The parametric field on a `config.cells`-square grid over the arena; still water
/// (all zero) outside the round tank's water or when there are no inlets.
pub fn parametric_field(arena: &Arena, pumps: &[f64], config: &FlowConfig) -> Result<FlowGrid, ConfigError> {
    let half = arena.spawn_half_extents();
    let extent = GridExtent { x_min: -half.x, x_max: half.x, y_min: -half.y, y_max: half.y };
    let mut grid = FlowGrid::new(config.cells, config.cells, extent)
        .map_err(|e| ConfigError::Invalid { path: "flow_field.cells".into(), message: e.to_string() })?;
    if arena.kind != ArenaKind::RoundTank || arena.inlets.is_empty() {
        return Ok(grid);
    }
    let c = &arena.config;
    let radius = 0.5 * c.diameter;
    let d = c.inlets.nozzle_diameter;
    let speeds: Vec<f64> = arena
        .inlets
        .iter()
        .zip(pumps.iter().chain(std::iter::repeat(&0.0)))
        .map(|(_, &power)| exit_speed(power, c.inlets.max_flow_lpm, d))
        .collect();
    let coupling = surface_coupling(arena.inlets[0].depth_below_surface, config.surface_coupling_depth);
    let tip_speed = config.swirl_gain
        * c.inlets.deflection_deg.to_radians().sin()
        * speeds.iter().map(|u0| u0 * (config.jet_decay * d / radius).min(1.0)).sum::<f64>();
    let mean_power = pumps.iter().sum::<f64>() / pumps.len().max(1) as f64;
    let floor = config.noise_floor * coupling * 0.01 * mean_power;
    for iy in 0..grid.ny() {
        for ix in 0..grid.nx() {
            let p = grid.cell_centre(ix, iy);
            if p.coords.norm() > radius {
                continue;
            }
            let jets: Vector2<f64> = arena.inlets.iter().zip(&speeds).map(|(inlet, &u0)| jet_velocity(inlet, u0, d, config, p)).sum();
            let mean = coupling * (jets + swirl_velocity(p, radius, tip_speed));
            let std = config.turbulence * mean.norm() + floor;
            if let Some(cell) = grid.cell_mut(ix, iy) {
                *cell = FlowCell { mean, std: Vector2::repeat(std), count: 0 };
            }
        }
    }
    Ok(grid)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::ArenaConfig;

    #[test]
    fn exit_speed_by_hand() {
        // 9 L/min = 1.5e-4 m^3/s through 8 mm (5.0265e-5 m^2): 2.9842 m/s.
        assert!((exit_speed(100.0, 9.0, 0.008) - 2.984155).abs() < 1e-5);
    }

    #[test]
    fn jet_by_hand() {
        let inlet = Inlet { position: Point2::new(0.3, 0.0), direction: Vector2::new(-1.0, 0.0), depth_below_surface: 0.0 };
        let cfg = FlowConfig::default(); // K = 6, spread = 0.15, reach = 0.15 m
                                         // On the axis 0.096 m out: u0 K d / s = 2 * 6 * 0.008 / 0.096 = 1.0 m/s along -x,
                                         // times the dive exp(-(0.096 / 0.15)^2) = exp(-0.4096) = 0.663916.
        let v = jet_velocity(&inlet, 2.0, 0.008, &cfg, Point2::new(0.204, 0.0));
        assert!((v - Vector2::new(-0.663916, 0.0)).norm() < 1e-6, "{v}");
        // 0.0184 m off the axis: b = 0.004 + 0.15 * 0.096 = 0.0184, profile e^-1.
        let v = jet_velocity(&inlet, 2.0, 0.008, &cfg, Point2::new(0.204, 0.0184));
        assert!((v.x + 0.663916 * (-1.0f64).exp()).abs() < 1e-6, "{v}");
        // Behind the nozzle: nothing.
        assert_eq!(jet_velocity(&inlet, 2.0, 0.008, &cfg, Point2::new(0.31, 0.0)), Vector2::zeros());
    }

    #[test]
    fn coupling_and_swirl_by_hand() {
        // 3 cm under the surface with a 3 cm scale: e^-1.
        assert!((surface_coupling(0.03, 0.03) - (-1.0f64).exp()).abs() < 1e-15);
        // Solid-body rotation: at (0, 0.15) in a 0.3 m tank with 0.2 m/s at the wall: -0.1 x.
        let v = swirl_velocity(Point2::new(0.0, 0.15), 0.3, 0.2);
        assert!((v - Vector2::new(-0.1, 0.0)).norm() < 1e-15);
    }

    #[test]
    fn field_has_a_dead_wall_between_inlets_and_grows_with_power_and_lower_level() {
        let cfg = FlowConfig::default();
        let arena = Arena::new(&ArenaConfig::default());
        let mean_speed = |grid: &FlowGrid| {
            let cells: Vec<_> = grid.cells().iter().filter(|c| c.mean.norm() > 0.0).collect();
            cells.iter().map(|c| c.mean.norm()).sum::<f64>() / cells.len() as f64
        };
        let base = parametric_field(&arena, &[68.6; 7], &cfg).unwrap();
        let strong = parametric_field(&arena, &[90.0; 7], &cfg).unwrap();
        let low = Arena::new(&ArenaConfig { water_level: -0.09, ..ArenaConfig::default() });
        let lowered = parametric_field(&low, &[68.6; 7], &cfg).unwrap();
        assert!(mean_speed(&strong) > mean_speed(&base));
        assert!(mean_speed(&lowered) > mean_speed(&base));
        // Without the tangential part, the wall halfway between two inlets is a dead spot.
        let radial_only = parametric_field(&arena, &[68.6; 7], &FlowConfig { swirl_gain: 0.0, ..cfg.clone() }).unwrap();
        let between = 2.0 * PI / 14.0;
        let wall = radial_only.sample_cell(Point2::new(0.28 * between.cos(), 0.28 * between.sin())).unwrap();
        let jet = radial_only.sample_cell(Point2::new(0.2, -0.02)).unwrap();
        assert!(wall.mean.norm() < 0.1 * jet.mean.norm(), "{} vs {}", wall.mean.norm(), jet.mean.norm());
        // The tangential part moves it along the wall (counter-clockwise).
        let wall = base.sample_cell(Point2::new(0.28 * between.cos(), 0.28 * between.sin())).unwrap();
        let tangent = Vector2::new(-between.sin(), between.cos());
        assert!(wall.mean.dot(&tangent) > 0.5 * wall.mean.norm());
        // Mean surface speed of the order of the measured 0.2 m/s.
        let m = mean_speed(&base);
        assert!(m > 0.03 && m < 0.5, "{m}");
        // Outside the tank: still.
        assert_eq!(base.cell(0, 0).unwrap().mean, Vector2::zeros());
    }
}
