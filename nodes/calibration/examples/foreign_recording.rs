//! Writes a recording of the foreign tank (`tests/support/foreign_tank.rs`, a simulator
//! that shares no code with `tank_physics`) in the trajectory CSV `flotilla-calibrate`
//! reads, and optionally its time-averaged flow field as a flow-field file.
//! `cargo run --release -p calibration --no-default-features --example foreign_recording -- --seed 1 --out a.csv`

#[path = "../tests/support/foreign_tank.rs"]
mod foreign_tank;

use std::path::PathBuf;

use clap::Parser;
use flotilla_common::flow_field::{FlowCell, FlowGrid, GridExtent};
use foreign_tank::{ForeignTank, Tracking};

/// A recording of the foreign tank.
#[derive(Debug, Parser)]
struct Args {
    /// Recorded duration (s).
    #[arg(long, default_value_t = 600.0)]
    seconds: f64,
    /// Seed of the simulation and the tracker.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Stirring strength (factor on every flow velocity; 1 = nominal).
    #[arg(long, default_value_t = 1.0)]
    stirring: f64,
    /// Water level below the rim (m).
    #[arg(long, default_value_t = 0.08)]
    level: f64,
    /// Balls.
    #[arg(long, default_value_t = 24)]
    balls: usize,
    /// Tracking noise per axis (m).
    #[arg(long, default_value_t = 5e-4)]
    noise: f64,
    /// Fraction of detections missing.
    #[arg(long, default_value_t = 0.01)]
    missing: f64,
    /// Track dropouts per ball per second (mean length 1 s).
    #[arg(long, default_value_t = 0.0)]
    dropout_rate: f64,
    /// Identity swaps between close balls per second.
    #[arg(long, default_value_t = 0.0)]
    swap_rate: f64,
    /// Correlation time of the balls' turbulent velocity (s).
    #[arg(long, default_value_t = 0.5)]
    turbulence_time: f64,
    /// Output trajectory CSV.
    #[arg(long)]
    out: PathBuf,
    /// Also write the time-averaged flow field (50 x 50 over 0.6 m) here.
    #[arg(long)]
    flow_out: Option<PathBuf>,
}

fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    let tank = ForeignTank {
        stirring: args.stirring,
        water_level: args.level,
        balls: args.balls,
        turbulence_time: args.turbulence_time,
        ..ForeignTank::default()
    };
    let tracking = Tracking {
        position_sd: args.noise,
        missing: args.missing,
        dropout_rate: args.dropout_rate,
        swap_rate: args.swap_rate,
        ..Tracking::default()
    };
    let recording = tank.record(args.seconds, args.seed, &tracking);
    recording.write(&args.out)?;
    println!(
        "foreign tank: stirring {} level {} m, core radius {:.3} m: {} samples over {:.1} s -> {}",
        args.stirring,
        args.level,
        tank.core_radius(),
        recording.samples.len(),
        recording.duration(),
        args.out.display()
    );
    if let Some(path) = &args.flow_out {
        let mut grid = FlowGrid::new(50, 50, GridExtent::centred_square(0.6))?;
        for (cell, (_, mean, std)) in grid.cells_mut().iter_mut().zip(tank.mean_field(50, 0.6)) {
            *cell = FlowCell { mean, std, count: 0 };
        }
        grid.write_csv(path)?;
        println!("mean flow field -> {}", path.display());
    }
    Ok(())
}
