//! Golden runs of the Kilobot table: a fixed seed gives the same poses, readings and
//! counters as the committed files in `tests/golden/`, bit for bit, so a change made for
//! speed shows it keeps the run. Each row is one simulated second: a digest of every
//! robot's pose (the exact bits), a digest of the readings taken in that second (messages
//! of a reading in sorted order: their order is not defined) and the table's counters. A
//! change that moves a run must say why in the commit and re-record with
//! `FLOTILLA_BLESS=1`.

#[path = "support/golden_file.rs"]
mod golden_file;
use flotilla_contract::kilobot::{KilobotCommand, KilobotSensors};
use std::fmt::Write as _;
use tank_physics::systems::kilobot::{hex_block, Bounds, ChannelConfig, DistanceError, Failures, KilobotTable, TableConfig};

/// FNV-1a over 64-bit words.
struct Digest(u64);

impl Digest {
    fn new() -> Self {
        Self(0xcbf2_9ce4_8422_2325)
    }

    fn add(&mut self, word: u64) {
        for b in word.to_le_bytes() {
            self.0 = (self.0 ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01B3);
        }
    }
}

/// Robot `i`'s command in round `round`: a motion and a message that change per round
/// (some robots stop, some stay silent).
fn command(i: usize, round: usize) -> KilobotCommand {
    let k = (i * 7 + round * 3) % 8;
    let (left, right) = match k {
        0..=2 => (1.0, 1.0),
        3..=4 => (1.0, 0.0),
        5..=6 => (0.0, 1.0),
        _ => (0.0, 0.0),
    };
    let message = if (i + round) % 5 == 0 { Vec::new() } else { vec![i as u8, (i >> 8) as u8, round as u8] };
    KilobotCommand { motor_left: left, motor_right: right, led: [0.0, 0.0, 1.0], message }
}

/// `seconds` of the table with `count` robots `spacing` diameters apart, readings every
/// third step, new commands every 100 steps.
fn run(config: TableConfig, count: usize, spacing: f64, seed: u64, anchored: usize, seconds: usize) -> String {
    let mut table = KilobotTable::new(config, &hex_block(count, spacing), seed).unwrap();
    (0..anchored).for_each(|i| table.set_anchored(i * 5, true));
    let steps_per_second = (1.0 / config.step_duration).round() as usize;
    let mut readings: Vec<KilobotSensors> = Vec::new();
    let mut out = String::from("second,poses,readings,collisions,transmissions,deliveries,failed\n");
    let mut heard = Digest::new();
    for step in 0..seconds * steps_per_second {
        if step % 100 == 0 {
            let commands: Vec<KilobotCommand> = (0..count).map(|i| command(i, step / 100)).collect();
            table.apply_all(&commands).unwrap();
        }
        if step % 3 == 0 {
            table.read_all(&mut readings);
            for r in &readings {
                heard.add(u64::from(r.ticks));
                heard.add(r.light.to_bits());
                let mut messages: Vec<(&[u8], u64)> = r.messages.iter().map(|m| (&m.payload[..], m.distance.to_bits())).collect();
                messages.sort_unstable();
                for (payload, distance) in messages {
                    payload.iter().for_each(|&b| heard.add(u64::from(b)));
                    heard.add(distance);
                }
            }
        }
        table.step();
        if (step + 1) % steps_per_second == 0 {
            let mut poses = Digest::new();
            for i in 0..table.len() {
                let p = table.pose(i);
                [p.x, p.y, p.theta, table.odometer(i)].iter().for_each(|v| poses.add(v.to_bits()));
            }
            writeln!(
                out,
                "{},{:016x},{:016x},{},{},{},{}",
                (step + 1) / steps_per_second,
                poses.0,
                heard.0,
                table.collisions(),
                table.transmissions(),
                table.deliveries(),
                table.failed_count()
            )
            .unwrap();
            heard = Digest::new();
        }
    }
    out
}

fn check(name: &str, actual: &str) {
    let Some(expected) = golden_file::expected(name, actual) else { return };
    for (e, a) in expected.lines().zip(actual.lines()) {
        assert_eq!(e, a, "{name}: first row that differs (second, poses, readings, collisions, transmissions, deliveries, failed)");
    }
    assert_eq!(expected.lines().count(), actual.lines().count(), "{name}: row count");
}

/// The study's defaults (ideal channel, uniform distance error, avoidance), robots packed
/// closer than they can pass, so contacts and overlaps are resolved all along.
#[test]
fn kilobots_with_the_defaults_follow_the_golden_run() {
    check("kilobots_300_defaults_seed_7.csv", &run(TableConfig::default(), 300, 1.2, 7, 0, 20));
}

/// Every optional part on: bounds, speed spread, failures, a shared lossy channel with
/// Gaussian distance error, pushes of robots at rest and anchored robots.
#[test]
fn kilobots_with_every_option_follow_the_golden_run() {
    let config = TableConfig {
        bounds: Some(Bounds { min: [-9.0, -8.0], max: [9.0, 8.0] }),
        speed_factor_std: 0.1,
        failures: Some(Failures { interval: 100, threshold: 0.97 }),
        channel: ChannelConfig { distance_error: DistanceError::Gaussian { sigma: 0.05 }, loss: 0.1, ..ChannelConfig::default().shared() },
        push_share: 0.5,
        ..TableConfig::default()
    };
    check("kilobots_200_options_seed_9.csv", &run(config, 200, 1.1, 9, 8, 20));
}
