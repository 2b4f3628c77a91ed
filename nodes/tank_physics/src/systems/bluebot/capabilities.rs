//! The Bluebot's swimming capabilities measured by simulating one robot in open water
//! (no walls: a tank large enough to never be touched): the published figures (SPEC 3)
//! the fin-to-force map is calibrated against.

use super::body::{BodyParams, BodyState};
use super::vision::pipeline::wrap;
use flotilla_contract::bluebot::BluebotCommand;
use nalgebra::Vector3;

/// Integration step of the measurements, s.
const DT: f64 = 0.01;

fn swim(params: &BodyParams, command: &BluebotCommand, seconds: f64, mut each: impl FnMut(f64, &BodyState)) -> BodyState {
    let k = params.constants();
    // Deep water: the surface 10 m above, so buoyancy is whole.
    let mut s = BodyState::at_rest(Vector3::new(0.0, 0.0, 0.0), 0.0);
    let steps = (seconds / DT).round() as usize;
    for i in 0..steps {
        s.step(params, &k, command, 10.0, DT);
        each((i + 1) as f64 * DT, &s);
    }
    s
}

/// Steady forward speed with the caudal fin at `caudal` Hz and the dorsal fin holding the
/// depth (its vertical speed is left out), m/s.
pub fn cruise_speed(params: &BodyParams, caudal: f64) -> f64 {
    let s = swim(params, &BluebotCommand { caudal, ..Default::default() }, 30.0, |_, _| ());
    (s.orientation.inverse() * s.velocity).x
}

/// Steady sinking speed with the dorsal fin at `dorsal` Hz (negative: it rises), m/s.
pub fn dive_speed(params: &BodyParams, dorsal: f64) -> f64 {
    let s = swim(params, &BluebotCommand { dorsal, ..Default::default() }, 30.0, |_, _| ());
    -s.velocity.z
}

/// Radius of the steady circle swum with the caudal at `caudal` Hz and the left pectoral
/// at `pectoral` Hz (a right turn), m: horizontal speed over yaw rate after 60 s (the
/// path's radius of curvature once the turn is steady).
pub fn turning_radius(params: &BodyParams, caudal: f64, pectoral: f64) -> f64 {
    let command = BluebotCommand { caudal, pectoral_left: pectoral, ..Default::default() };
    let s = swim(params, &command, 60.0, |_, _| ());
    let yaw_rate = (s.orientation * s.angular_velocity).z.abs();
    s.velocity.x.hypot(s.velocity.y) / yaw_rate.max(1e-12)
}

/// The pectoral frequency (Hz) at which the caudal at `caudal` Hz swims circles of
/// `radius` m (bisection: the radius shrinks as the pectoral beats faster), or None when
/// no frequency up to saturation turns that wide or that tight.
pub fn pectoral_for_radius(params: &BodyParams, caudal: f64, radius: f64) -> Option<f64> {
    let (mut lo, mut hi) = (0.02, params.fins.pectoral_saturation);
    if turning_radius(params, caudal, hi) > radius || turning_radius(params, caudal, lo) < radius {
        return None;
    }
    for _ in 0..30 {
        let mid = 0.5 * (lo + hi);
        if turning_radius(params, caudal, mid) > radius {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    Some(0.5 * (lo + hi))
}

/// Time to turn 180 deg from rest with the caudal at `caudal` Hz and the left pectoral at
/// `pectoral` Hz, s (infinite if it does not within 60 s).
pub fn half_turn_time(params: &BodyParams, caudal: f64, pectoral: f64) -> f64 {
    let command = BluebotCommand { caudal, pectoral_left: pectoral, ..Default::default() };
    let mut turned = 0.0;
    let mut last = 0.0;
    let mut done = f64::INFINITY;
    swim(params, &command, 60.0, |t, s| {
        let yaw = s.yaw();
        turned += wrap(yaw - last).abs();
        last = yaw;
        if turned >= std::f64::consts::PI && done.is_infinite() {
            done = t;
        }
    });
    done
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params() -> BodyParams {
        BodyParams::bluebot()
    }

    #[test]
    fn cruise_up_to_150_mm_per_s() {
        let p = params();
        let top = cruise_speed(&p, p.fins.caudal_saturation);
        assert!((top - 0.150).abs() < 0.0075, "top speed {top} m/s");
        // Slower at a lower frequency, and no faster above saturation.
        assert!(cruise_speed(&p, 2.0) < 0.6 * top);
        assert!((cruise_speed(&p, 12.0) - top).abs() < 1e-9);
    }

    #[test]
    fn dive_up_to_75_mm_per_s_and_rise_without_the_dorsal_fin() {
        let p = params();
        let dive = dive_speed(&p, p.fins.dorsal_saturation);
        assert!((dive - 0.075).abs() < 0.00375, "dive {dive} m/s");
        let rise = dive_speed(&p, 0.0);
        assert!(rise < 0.0 && rise > -0.06, "slightly buoyant: rises at {rise} m/s");
    }

    #[test]
    fn turning_radius_down_to_65_mm_and_a_half_turn_in_under_5_s() {
        let p = params();
        let tightest = turning_radius(&p, p.fins.caudal_saturation, p.fins.pectoral_saturation);
        assert!((tightest - 0.065).abs() < 0.0065, "tightest radius {tightest} m");
        // A weaker pectoral turns wider.
        assert!(turning_radius(&p, p.fins.caudal_saturation, 0.5 * p.fins.pectoral_saturation) > 1.5 * tightest);
        let half = half_turn_time(&p, p.fins.caudal_saturation, p.fins.pectoral_saturation);
        assert!(half < 5.0, "180 deg in {half} s");
        // On the spot (caudal still) as fast: yaw does not depend on the caudal fin.
        let spot = half_turn_time(&p, 0.0, p.fins.pectoral_saturation);
        assert!(spot < 5.0, "180 deg on the spot in {spot} s");
    }

    #[test]
    fn the_pectoral_for_a_radius_swims_that_radius() {
        let p = params();
        let f = pectoral_for_radius(&p, 1.2, 0.3).unwrap();
        assert!((turning_radius(&p, 1.2, f) - 0.3).abs() < 0.003, "{f} Hz");
        assert!(pectoral_for_radius(&p, 1.2, 0.001).is_none());
    }

    #[test]
    fn milling_gait_turns_tighter_than_the_smallest_published_circle() {
        // Caudal 3 Hz, pectoral 6 Hz (the paper's milling gait): r0 must not exceed the
        // N = 5 circle (190 mm) for the circle to be stable.
        let r0 = turning_radius(&params(), 3.0, 6.0);
        assert!(r0 < 0.19 && r0 > 0.03, "r0 = {r0} m");
    }
}
