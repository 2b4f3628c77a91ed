//! SPEC 1's MSD behaviour, from simulation runs of the 24-ball scenario: the 60 s MSD
//! oscillates then settles on a plateau; more pump power or a lower water level gives a
//! lower plateau and a faster oscillation (an earlier first peak).

use flotilla_common::catalogue::ModuleKind;
use flotilla_common::msd::{pooled_mean_squared_displacement, MsdSettings, TrackSet};
use rayon::prelude::*;
use tank_physics::{World, WorldConfig};

const WINDOW: usize = 2400; // 60 s at 25 ms (SPEC 1)
const SECONDS: f64 = 300.0;
const SEEDS: u64 = 2;

struct Summary {
    plateau: f64,
    first_peak_s: f64,
    /// Index of the first peak in `curve`.
    peak: usize,
    /// MSD at lags 1..=WINDOW steps, m^2.
    curve: Vec<f64>,
}

fn summarise(power: f64, level: f64) -> Summary {
    let mut config = WorldConfig::default().with_modules(ModuleKind::PingPongBall, 24, "ball").with_pump_power(power);
    config.arena.water_level = level;
    let steps = (SECONDS / config.dt) as usize;
    // Seeds pooled: same length, no gaps, so the mean of their MSDs.
    let runs: Vec<Vec<Vec<_>>> = (0..SEEDS)
        .map(|seed| {
            let mut world = World::new(config.clone(), 1000 + seed).unwrap();
            let mut tracks = (0..24).map(|_| Vec::with_capacity(steps)).collect::<Vec<_>>();
            for _ in 0..steps {
                world.step();
                for (track, b) in tracks.iter_mut().zip(world.bodies()) {
                    track.push(Some(b.pose.translation.vector.xy()));
                }
            }
            tracks
        })
        .collect();
    let sets: Vec<TrackSet<'_>> = runs.iter().map(|tracks| TrackSet { dt: config.dt, tracks }).collect();
    let curve = pooled_mean_squared_displacement(&sets, &MsdSettings { window_frames: WINDOW, start_stride: 40 }).unwrap();
    let peak = curve.first_peak(1e-3).expect("the MSD oscillates");
    Summary { plateau: curve.plateau(0.5), first_peak_s: curve.lag(peak), peak, curve: curve.values }
}

fn assert_shape(s: &Summary, label: &str) {
    let peak = s.peak;
    // Oscillation: the first peak overshoots the plateau and the curve dips below it after.
    assert!(s.curve[peak] > 1.1 * s.plateau, "{label}: peak {} vs plateau {}", s.curve[peak], s.plateau);
    let dip = s.curve[peak..].iter().cloned().fold(f64::INFINITY, f64::min);
    assert!(dip < 0.95 * s.plateau, "{label}: no dip below the plateau");
    // Then a plateau: the swing over the last quarter of the window is under half the
    // swing of the 15 s after the first peak, and stays within 15 % of the plateau.
    let swing = |part: &[f64]| part.iter().cloned().fold(f64::MIN, f64::max) - part.iter().cloned().fold(f64::MAX, f64::min);
    let early = swing(&s.curve[peak..peak + 600]);
    let tail = &s.curve[3 * WINDOW / 4..];
    assert!(swing(tail) < 0.5 * early, "{label}: oscillation does not settle ({} vs {early})", swing(tail));
    assert!(tail.iter().all(|v| (v - s.plateau).abs() < 0.15 * s.plateau), "{label}: no plateau");
    // Bounded by the tank: at most the diameter squared.
    assert!(s.curve.iter().all(|v| v.is_finite() && *v < 0.36), "{label}");
}

#[test]
fn msd_shape_and_orderings() {
    let settings = [(40.0, -0.08), (68.6, -0.08), (90.0, -0.08), (68.6, -0.07), (68.6, -0.09)];
    let mut runs: Vec<Summary> = settings.par_iter().map(|&(power, level)| summarise(power, level)).collect();
    let deep = runs.pop().unwrap();
    let shallow = runs.pop().unwrap();
    let high = runs.pop().unwrap();
    let mid = runs.pop().unwrap();
    let low = runs.pop().unwrap();
    for (s, label) in [(&low, "40 %"), (&mid, "68.6 %"), (&high, "90 %"), (&shallow, "-7 cm"), (&deep, "-9 cm")] {
        eprintln!("{label}: plateau {:.4} m^2, first peak {:.2} s", s.plateau, s.first_peak_s);
        assert_shape(s, label);
    }
    // More pump power: lower plateau, faster oscillation.
    assert!(low.plateau > mid.plateau && mid.plateau > high.plateau);
    assert!(low.first_peak_s > mid.first_peak_s && mid.first_peak_s > high.first_peak_s);
    // Lower water level (further below the rim): the same.
    assert!(shallow.plateau > mid.plateau && mid.plateau > deep.plateau);
    assert!(shallow.first_peak_s > mid.first_peak_s && mid.first_peak_s > deep.first_peak_s);
}
