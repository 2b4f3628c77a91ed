//! The radial and tangential bias of flow-field estimates on a foreign-tank recording
//! (`tests/support/foreign_tank.rs`) against the tank's true time-averaged field, per
//! 2.1 cm ring and over all measured cells (docs/calibration.md, "The estimate's radial
//! bias"). Estimates: the library's with the whole acceleration inverted and with the mean
//! ball flow's acceleration subtracted; for diagnosis, the same samples inverted with the
//! foreign balls' own drag law (linear + quadratic, added mass: what no real tank tells
//! the estimator) and the plain mean ball velocity.
//! `cargo run --release -p calibration --no-default-features --example flow_bias -- STIRRING LEVEL SEED [NOISE_M [PREFIX]]`
//! (PREFIX: also write the mean-ball-velocity field, filled, to PREFIX_vbar.csv).

#[path = "../tests/support/foreign_tank.rs"]
mod foreign_tank;

use anyhow::Context;
use calibration::flow_estimation::{estimate_flow_field, harmonic_fill, FlowEstimationSettings};
use calibration::kinematics::{choose_windows, differentiate, estimate_position_noise, DifferentiationSettings};
use flotilla_common::flow_field::{FlowCell, FlowGrid, GridExtent};
use foreign_tank::{ForeignTank, Tracking};
use nalgebra::Vector2;

const N: usize = 50;
const SIDE: f64 = 0.6;
const RINGS: usize = 14;
const MIN_SAMPLES: usize = 20;

fn centre(i: usize) -> Vector2<f64> {
    let d = SIDE / N as f64;
    Vector2::new(-0.5 * SIDE + ((i % N) as f64 + 0.5) * d, -0.5 * SIDE + ((i / N) as f64 + 0.5) * d)
}

fn ring(i: usize) -> usize {
    ((centre(i).norm() / 0.3 * RINGS as f64) as usize).min(RINGS - 1)
}

/// Mean (radial, tangential) of `value(i)` per ring over the cells `used`.
fn profile(used: &[bool], value: impl Fn(usize) -> Vector2<f64>) -> Vec<Option<(f64, f64)>> {
    let mut sums = vec![(0.0, 0.0, 0usize); RINGS];
    for i in (0..N * N).filter(|&i| used[i]) {
        let out = centre(i) / centre(i).norm();
        let v = value(i);
        let s = &mut sums[ring(i)];
        s.0 += v.dot(&out);
        s.1 += out.perp(&v);
        s.2 += 1;
    }
    sums.iter().map(|&(r, t, n)| (n > 0).then(|| (r / n as f64, t / n as f64))).collect()
}

fn show(name: &str, used: &[bool], truth: &[Vector2<f64>], est: &[Vector2<f64>]) {
    let cells = used.iter().filter(|&&u| u).count() as f64;
    let (mut radial, mut rms) = (0.0, 0.0);
    for i in (0..N * N).filter(|&i| used[i]) {
        let e = est[i] - truth[i];
        radial += e.dot(&(centre(i) / centre(i).norm()));
        rms += e.norm_squared();
    }
    let rings: Vec<String> = profile(used, |i| est[i] - truth[i])
        .iter()
        .map(|p| p.map_or("-".into(), |(r, t)| format!("{:+.1}/{:+.1}", 1e3 * r, 1e3 * t)))
        .collect();
    println!(
        "{name:<9} radial bias {:+6.2} mm/s, RMS error {:5.1} mm/s | per ring radial/tangential error (mm/s): {}",
        1e3 * radial / cells,
        1e3 * (rms / cells).sqrt(),
        rings.join(" ")
    );
}

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let number = |k: usize, default: Option<f64>| -> anyhow::Result<f64> {
        match (args.get(k), default) {
            (Some(a), _) => a.parse().with_context(|| format!("argument {} ({a})", k + 1)),
            (None, Some(d)) => Ok(d),
            (None, None) => anyhow::bail!("usage: flow_bias STIRRING LEVEL SEED [NOISE_M [PREFIX]]"),
        }
    };
    let tank = ForeignTank { stirring: number(0, None)?, water_level: number(1, None)?, ..ForeignTank::default() };
    let rec = tank.record(600.0, number(2, None)? as u64, &Tracking { position_sd: number(3, Some(5e-4))?, ..Tracking::default() });
    let truth: Vec<Vector2<f64>> = tank.mean_field(N, SIDE).into_iter().map(|(_, mean, _)| mean).collect();
    let settings = FlowEstimationSettings::default();
    let whole = estimate_flow_field(std::slice::from_ref(&rec), &settings)?;
    let relative =
        estimate_flow_field(std::slice::from_ref(&rec), &FlowEstimationSettings { subtract_mean_flow_acceleration: true, ..settings })?;
    // The library's samples again, for the diagnostic inversions.
    let tracks = rec.tracks();
    let views: Vec<(&[f64], &[Vector2<f64>])> = tracks.iter().map(|t| (t.times.as_slice(), t.positions.as_slice())).collect();
    let noise_sd = estimate_position_noise(views.iter().copied()).unwrap_or(0.0);
    let mut ds = DifferentiationSettings { noise_sd, ..DifferentiationSettings::default() };
    if let Some(c) = choose_windows(&views, &ds, noise_sd, settings.max_half_window) {
        (ds.half_window, ds.acceleration_half_window) = (c.velocity_half_window, c.acceleration_half_window);
    }
    let m = tank.mass * (1.0 + tank.added_mass);
    let (cl, cq) = (tank.linear_drag, tank.quadratic_drag);
    let (mut own_law, mut velocity, mut acceleration, mut count) =
        (vec![Vector2::zeros(); N * N], vec![Vector2::zeros(); N * N], vec![Vector2::zeros(); N * N], vec![0usize; N * N]);
    for s in views.iter().flat_map(|&(t, p)| differentiate(t, p, &ds)) {
        let Some(i) = settings.grid.index(s.position) else { continue };
        let f = m * s.acceleration.norm();
        let slip = if f > 0.0 {
            s.acceleration / s.acceleration.norm() * ((-cl + (cl * cl + 4.0 * cq * f).sqrt()) / (2.0 * cq))
        } else {
            Vector2::zeros()
        };
        own_law[i] += s.velocity + slip;
        velocity[i] += s.velocity;
        acceleration[i] += s.acceleration;
        count[i] += 1;
    }
    let mean = |sums: &[Vector2<f64>]| -> Vec<Vector2<f64>> { sums.iter().zip(&count).map(|(s, &n)| s / n.max(1) as f64).collect() };
    let (own_law, velocity, acceleration) = (mean(&own_law), mean(&velocity), mean(&acceleration));
    let used: Vec<bool> = (0..N * N).map(|i| count[i] >= MIN_SAMPLES && centre(i).norm() <= 0.3).collect();
    println!(
        "stirring {} level {} m: noise {:.2} mm, half windows {} / {}, {} measured cells",
        tank.stirring,
        tank.water_level,
        1e3 * noise_sd,
        ds.half_window,
        ds.acceleration_half_window,
        used.iter().filter(|&&u| u).count()
    );
    let rings = |v: &[Vector2<f64>], scale: f64| -> String {
        profile(&used, |i| v[i]).iter().map(|p| p.map_or("-".into(), |(r, _)| format!("{:+.1}", scale * r))).collect::<Vec<_>>().join(" ")
    };
    println!("true radial flow per ring (mm/s): {}", rings(&truth, 1e3));
    println!("mean radial ball acceleration per ring (mm/s^2): {}", rings(&acceleration, 1e3));
    show("whole", &used, &truth, &whole.cells.iter().map(|c| c.mean).collect::<Vec<_>>());
    show("relative", &used, &truth, &relative.cells.iter().map(|c| c.mean).collect::<Vec<_>>());
    show("own law", &used, &truth, &own_law);
    show("mean v", &used, &truth, &velocity);
    if let Some(prefix) = args.get(4) {
        let inside: Vec<bool> = (0..N * N).map(|i| centre(i).norm() <= 0.3).collect();
        let mut x: Vec<f64> = velocity.iter().map(|v| v.x).collect();
        let mut y: Vec<f64> = velocity.iter().map(|v| v.y).collect();
        let mut sx: Vec<f64> = whole.cells.iter().map(|c| c.std.x).collect();
        let mut sy: Vec<f64> = whole.cells.iter().map(|c| c.std.y).collect();
        for values in [&mut x, &mut y] {
            harmonic_fill(values, &used, &inside, N, N);
        }
        // The deviation as the estimate has it (already filled there).
        for values in [&mut sx, &mut sy] {
            harmonic_fill(values, &used, &inside, N, N);
        }
        let mut grid = FlowGrid::new(N, N, GridExtent::centred_square(SIDE))?;
        for (i, cell) in grid.cells_mut().iter_mut().enumerate() {
            *cell = FlowCell { mean: Vector2::new(x[i], y[i]), std: Vector2::new(sx[i], sy[i]), count: count[i] as u64 };
        }
        let path = format!("{prefix}_vbar.csv");
        grid.write_csv(std::path::Path::new(&path))?;
        println!("mean ball velocity field -> {path}");
    }
    Ok(())
}
