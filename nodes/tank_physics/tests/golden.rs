//! Golden trajectories: a fixed seed gives the same ball and Lily trajectories as the
//! committed files in `tests/golden/`, recorded before the architecture change of the
//! world's step (medium and force models as extension points). A change that moves a
//! trajectory must say why in the commit and re-record with `FLOTILLA_BLESS=1`.

#[path = "support/golden_file.rs"]
mod golden_file;
use flotilla_common::catalogue::ModuleKind;
use std::fmt::Write as _;
use tank_physics::{HydroParams, World, WorldConfig};

/// Positions and headings of every body once per simulated second, as CSV text with
/// shortest round-trip floats (the file is the exact bits).
fn trajectory(config: WorldConfig, seed: u64, seconds: usize) -> String {
    let mut world = World::new(config, seed).unwrap();
    let steps_per_second = (1.0 / world.config().dt).round() as usize;
    let mut out = String::from("t,name,x,y,heading\n");
    for second in 0..=seconds {
        if second > 0 {
            for _ in 0..steps_per_second {
                world.step();
            }
        }
        for b in world.bodies() {
            let p = b.pose.translation;
            writeln!(out, "{second},{},{:?},{:?},{:?}", b.name, p.x, p.y, b.heading()).unwrap();
        }
    }
    out
}

fn check(name: &str, actual: &str) {
    let Some(expected) = golden_file::expected(name, actual) else { return };
    let mut worst = (0.0f64, String::new());
    for (e, a) in expected.lines().zip(actual.lines()).skip(1) {
        let (ef, af): (Vec<&str>, Vec<&str>) = (e.split(',').collect(), a.split(',').collect());
        assert_eq!(ef[..2], af[..2], "{name}: rows differ in time or body: `{e}` vs `{a}`");
        for k in 2..5 {
            let d = (ef[k].parse::<f64>().unwrap() - af[k].parse::<f64>().unwrap()).abs();
            if d > worst.0 {
                worst = (d, format!("`{e}` vs `{a}`"));
            }
        }
    }
    assert_eq!(expected.lines().count(), actual.lines().count(), "{name}: row count");
    assert!(worst.0 == 0.0, "{name}: largest deviation {:e} at {}", worst.0, worst.1);
}

#[test]
fn balls_follow_the_golden_trajectories() {
    let config = WorldConfig::default().with_modules(ModuleKind::PingPongBall, 24, "ball");
    check("balls_24_seed_11.csv", &trajectory(config, 11, 30));
}

#[test]
fn lilies_follow_the_golden_trajectories() {
    let config = WorldConfig { hydro: HydroParams::lily_published(), ..WorldConfig::default() }.with_modules(ModuleKind::Lily, 15, "lily");
    check("lilies_15_seed_3.csv", &trajectory(config, 3, 30));
}
