//! The foreign-data bench (issue #19): a tank simulator that shares no code with the
//! physics (`support/foreign_tank.rs`) is deterministic per seed, behaves like the
//! tank it claims to be, and its recordings go through the flow-field estimation with
//! the unvisited still core filled.

#[path = "support/foreign_tank.rs"]
mod foreign_tank;

use calibration::flow_estimation::{estimate_flow_field, CellCoverage, FlowEstimationSettings};
use foreign_tank::{ForeignTank, Tracking};

fn short_tank() -> ForeignTank {
    ForeignTank { warmup: 5.0, ..ForeignTank::default() }
}

#[test]
fn deterministic_per_seed() {
    let tank = short_tank();
    let tracking = Tracking { dropout_rate: 0.05, swap_rate: 0.2, ..Tracking::default() };
    let a = tank.record(20.0, 7, &tracking);
    let b = tank.record(20.0, 7, &tracking);
    let c = tank.record(20.0, 8, &tracking);
    assert_eq!(a, b);
    assert_ne!(a, c);
    assert!(!a.samples.is_empty());
}

#[test]
fn balls_stay_in_the_tank_and_out_of_the_still_core() {
    let tank = short_tank();
    let rec = tank.record(120.0, 3, &Tracking::default());
    let expected = 24 * (120 * 30 + 1);
    let missing = 1.0 - rec.samples.len() as f64 / expected as f64;
    // 1 % missing detections: binomial sd over 86 k detections is 0.03 %.
    assert!((missing - 0.01).abs() < 0.002, "missing fraction {missing}");
    let radii: Vec<f64> = rec.samples.iter().map(|s| s.x.hypot(s.y)).collect();
    let outermost = radii.iter().fold(0.0f64, |a, &r| a.max(r));
    // Soft wall: a ball centre may press a few mm past radius - ball radius.
    assert!(outermost < tank.radius - tank.ball_radius + 0.01, "outermost {outermost}");
    let in_core = radii.iter().filter(|&&r| r < tank.core_radius()).count() as f64 / radii.len() as f64;
    assert!(in_core < 0.002, "fraction of samples in the still core {in_core}");
    // The balls do move: mean speed between frames of the same id well above the noise.
    let tracks = rec.tracks();
    let (mut sum, mut n) = (0.0, 0usize);
    for t in &tracks {
        for k in 1..t.len() {
            if t.frames[k] == t.frames[k - 1] + 1 {
                sum += (t.positions[k] - t.positions[k - 1]).norm() * 30.0;
                n += 1;
            }
        }
    }
    let speed = sum / n as f64;
    assert!(speed > 0.03 && speed < 0.5, "mean speed {speed} m/s");
}

#[test]
fn stirring_and_level_change_the_flow() {
    let p = nalgebra::Vector2::new(0.2, 0.05);
    let base = ForeignTank::default();
    let strong = ForeignTank { stirring: 1.4, ..base.clone() };
    let low = ForeignTank { water_level: 0.10, ..base.clone() };
    assert!((strong.flow(p, 1.0).norm() / base.flow(p, 1.0).norm() - 1.4).abs() < 1e-9);
    assert!(low.flow(p, 1.0).norm() > base.flow(p, 1.0).norm());
    assert!(low.core_radius() > base.core_radius());
    // In the core only the outward upwelling drift: no swirl, no jets.
    let core = base.flow(nalgebra::Vector2::new(0.01, 0.0), 0.0);
    assert!(core.x > 0.0 && core.y == 0.0, "{core}");
}

#[test]
fn unvisited_core_is_filled_not_still() {
    let tank = short_tank();
    let rec = tank.record(180.0, 11, &Tracking::default());
    let raw = estimate_flow_field(std::slice::from_ref(&rec), &FlowEstimationSettings { fill: false, ..Default::default() }).unwrap();
    let filled = estimate_flow_field(&[rec], &FlowEstimationSettings::default()).unwrap();
    let coverage = filled.coverage_summary();
    assert_eq!(coverage, raw.coverage_summary());
    assert!(coverage.unvisited >= 10, "{coverage:?}");
    assert!(coverage.measured > 1000, "{coverage:?}");
    for (r, f) in raw.cells.iter().zip(&filled.cells) {
        match f.coverage {
            CellCoverage::Unvisited => {
                // The old behaviour: silent still water. Now: moving water's spread.
                assert_eq!((r.mean.norm(), r.std.norm()), (0.0, 0.0));
                assert!(f.filled && f.std.x > 0.0 && f.std.y > 0.0, "{f:?}");
            }
            CellCoverage::Measured => assert_eq!((r.mean, r.std, f.filled), (f.mean, f.std, false)),
            CellCoverage::Sparse => assert!(f.filled),
            CellCoverage::Outside => assert_eq!(r, f),
        }
    }
}

/// Mean over measured cells of the norm of the per-axis deviation (m/s).
fn mean_deviation(estimate: &calibration::flow_estimation::FlowFieldEstimate) -> f64 {
    let measured: Vec<f64> = estimate.cells.iter().filter(|c| c.coverage == CellCoverage::Measured).map(|c| c.std.norm()).collect();
    measured.iter().sum::<f64>() / measured.len() as f64
}

#[test]
fn estimated_deviation_does_not_follow_the_tracking_noise() {
    // The drag inversion takes the slip from sqrt|a|: with a fixed 7-sample window, 2 mm
    // of tracking noise doubles the estimated deviation (docs/calibration.md, "Kinematics
    // from noisy tracks"); with windows chosen from the measured noise it moves by less
    // than a quarter (measured: -20 %, the wide windows smooth away some real variation).
    let tank = short_tank();
    let estimate = |noise: f64, half_window: Option<usize>| {
        let rec = tank.record(180.0, 13, &Tracking { position_sd: noise, ..Tracking::default() });
        estimate_flow_field(&[rec], &FlowEstimationSettings { half_window, ..Default::default() }).unwrap()
    };
    let clean = estimate(0.0, None);
    let noisy = estimate(0.002, None);
    let noisy_fixed = estimate(0.002, Some(3));
    let measured_noise = noisy.windows.unwrap().noise_sd;
    assert!((measured_noise / 0.002 - 1.0).abs() < 0.05, "measured noise {measured_noise} m");
    let (c, n, f) = (mean_deviation(&clean), mean_deviation(&noisy), mean_deviation(&noisy_fixed));
    eprintln!("mean |sd|: no noise {c:.4}, 2 mm chosen windows {n:.4}, 2 mm fixed window 3 {f:.4} m/s");
    assert!((n / c - 1.0).abs() < 0.25, "2 mm noise moved the deviation from {c} to {n} m/s");
    assert!(f > 1.5 * c, "the fixed window no longer inflates the deviation ({c} -> {f} m/s): is this test still needed?");
}

/// The foreign tank's time-averaged field as a flow grid (for `compare_with`).
fn true_field(tank: &ForeignTank) -> flotilla_common::flow_field::FlowGrid {
    use flotilla_common::flow_field::{FlowCell, FlowGrid, GridExtent};
    let mut grid = FlowGrid::new(50, 50, GridExtent::centred_square(0.6)).unwrap();
    for (cell, (_, mean, std)) in grid.cells_mut().iter_mut().zip(tank.mean_field(50, 0.6)) {
        *cell = FlowCell { mean, std, count: 0 };
    }
    grid
}

#[test]
fn subtracting_the_mean_flow_acceleration_removes_the_inward_bias() {
    // Issue #19, set-up B's diagnosis: inverting the whole acceleration as quadratic drag
    // reads the circulating balls' centripetal acceleration as an inward flow (the foreign
    // balls' small-slip drag is mostly linear, so they turn with much less slip). Over
    // the measured cells, the mean radial error against the true field must stay within
    // `bound` once the mean ball flow's (V.grad)V is subtracted (it then errs outward:
    // measured +7 and +2 mm/s); the whole-acceleration inversion is beyond it, inward
    // (-13 and -6 mm/s: this test fails with it).
    for (name, stirring, level, seed, bound) in [("A", 1.0, 0.08, 21, 0.009), ("B", 0.7, 0.06, 22, 0.003)] {
        let tank = ForeignTank { stirring, water_level: level, ..short_tank() };
        let rec = tank.record(300.0, seed, &Tracking::default());
        let truth = true_field(&tank);
        let bias = |subtract: bool| {
            let settings = FlowEstimationSettings { subtract_mean_flow_acceleration: subtract, ..Default::default() };
            estimate_flow_field(std::slice::from_ref(&rec), &settings).unwrap().compare_with(&truth, 20)
        };
        let (whole, relative) = (bias(false), bias(true));
        eprintln!(
            "{name}: radial bias whole {:.4} / relative {:.4} m/s; RMS error {:.4} / {:.4} m/s over {} / {} cells",
            whole.radial_bias, relative.radial_bias, whole.rms_error, relative.rms_error, whole.cells, relative.cells
        );
        assert!(relative.radial_bias.abs() < bound, "{name}: radial bias {} m/s", relative.radial_bias);
        assert!(whole.radial_bias < -bound, "{name}: the whole-acceleration inversion is no longer biased inward: {whole:?}");
        assert!(relative.rms_error < whole.rms_error, "{name}: {relative:?} vs {whole:?}");
    }
}

/// `run --estimate-flow` on the foreign tank, `args` appended; returns the output directory.
fn estimate_and_calibrate(dir: &std::path::Path, recording: &str, out: &str, args: &[&str]) -> std::path::PathBuf {
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_flotilla-calibrate"))
        .args(["run", "--recording", recording, "--estimate-flow", "--out", out, "--seed", "1"])
        .args(["--iterations", "1", "--swarm-size", "16", "--final-reevaluations", "0"])
        .args(args)
        .current_dir(dir)
        .output()
        .expect("the binary runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    dir.join(out)
}

/// Issue #19: the pilot tells which inversion a recording needs: the relative one for the
/// foreign tank (its balls turn with little slip), the whole one for Flotilla's own
/// physics (drag alone turns its balls). The chosen field is the one the calibration
/// ran on and the one its parameter file loads; a forced inversion skips the pilot and
/// equals the two-step pipeline (`flow-field`, then `run` on a world loading it) bit for
/// bit.
#[test]
fn the_pilot_picks_the_relative_inversion_for_the_foreign_tank_and_the_whole_for_flotillas_own() {
    let dir = tempfile::tempdir().unwrap();
    let tank = ForeignTank { stirring: 0.7, water_level: 0.06, ..short_tank() };
    tank.record(300.0, 22, &Tracking::default()).write(dir.path().join("foreign.csv")).unwrap();
    let own = std::process::Command::new(env!("CARGO_BIN_EXE_flotilla-calibrate"))
        .args(["record", "--seconds", "300", "--seed", "101", "--parameters", "1.3,1.8,120,0.3,0.25", "--out", "own.csv"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert!(own.status.success(), "{}", String::from_utf8_lossy(&own.stderr));
    for (recording, expected, other) in [("foreign.csv", "relative", "whole"), ("own.csv", "whole", "relative")] {
        let out = estimate_and_calibrate(dir.path(), recording, &format!("auto_{recording}"), &[]);
        let choice: serde_yaml::Value = serde_yaml::from_str(&std::fs::read_to_string(out.join("flow_choice.yaml")).unwrap()).unwrap();
        let pilot = |k: usize| choice["pilots"][k]["best_fitness"].as_f64().unwrap();
        eprintln!("{recording}: pilots whole {:.1}, relative {:.1} m^2", pilot(0), pilot(1));
        assert_eq!(choice["chosen"].as_str(), Some(expected), "{recording}: {choice:?}");
        let parameters = std::fs::read_to_string(out.join("calibrated_params.yaml")).unwrap();
        assert!(parameters.contains(&format!("flow_{expected}.csv")) && !parameters.contains(&format!("flow_{other}.csv")), "{parameters}");
    }
    // Forced: no pilot, and the same run as the two-step pipeline.
    let forced = estimate_and_calibrate(dir.path(), "foreign.csv", "forced", &["--flow-inversion", "whole"]);
    assert!(!forced.join("flow_choice.yaml").exists());
    let world = format!(
        "tank_physics:\n  ros__parameters:\n    flow_field: {{file: {}}}\n    modules:\n      ball: {{kind: ping_pong_ball, count: 24}}\n",
        forced.join("flow_whole.csv").display()
    );
    std::fs::write(dir.path().join("world.yaml"), world).unwrap();
    let two_step = std::process::Command::new(env!("CARGO_BIN_EXE_flotilla-calibrate"))
        .args(["run", "--recording", "foreign.csv", "--world", "world.yaml", "--out", "two_step", "--seed", "1"])
        .args(["--iterations", "1", "--swarm-size", "16", "--final-reevaluations", "0"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert!(two_step.status.success(), "{}", String::from_utf8_lossy(&two_step.stderr));
    let history = |d: &std::path::Path| std::fs::read_to_string(d.join("fitness_history.csv")).unwrap();
    assert_eq!(history(&forced), history(&dir.path().join("two_step")));
}
