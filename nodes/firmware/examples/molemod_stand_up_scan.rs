//! Where the mole can stand up in task 1's C (`flotilla_firmware::molemod::stand_up`):
//! 1. for a lower head held in C's vertical tunnel at each height (1 mm steps from resting on
//!    the floor to 15 mm above the crossing's centre), the most clearance the body keeps 45
//!    degrees up towards B and towards the empty cell (`stand_up::best_lower_head`);
//! 2. a seeded random scan of the hand-over a stand-up on the floor would need: the front
//!    head resting on C's floor (tilted up to 0.4 rad, standing on its lowest corner), the
//!    body above its universal joint within 45 degrees of upright, the other joints anywhere
//!    in range: how many samples put the rear head's centre in B or C (where it could hold),
//!    and how many of those keep every cube, joint disc and rod clear (touching allowed);
//! 3. the same for the hand-over into a stand-up on a raised head: the front head held 10-35
//!    mm above resting, the body not yet 45 degrees up towards B (lying or on the way).
//!
//! `cargo run --release -p flotilla_firmware --example molemod_stand_up_scan -- [samples] [seed] [1: parts 2 and 3 only]`

use flotilla_firmware::molemod::follow::{self, Base, Grip, FLOOR};
use flotilla_firmware::molemod::stand_up::{self, HALF_WAY, HALF_WAY_OTHER_SIDE};

/// Prints what [`stand_up::hand_over_scan`] finds.
fn handover(samples: u64, seed: u64, raised: (f64, f64), body: (f64, f64), what: &str) {
    let h = stand_up::hand_over_scan(samples, seed, raised, body);
    println!(
        "{what}, {samples} samples, seed {seed}: rear head's centre in B or C in {}, of those every pair clear in {}",
        h.held, h.clear
    );
    if let Some((least, q, head)) = h.clearest {
        let l = follow::links(&Grip { base: Base::Front, pose: head }, &q);
        println!(
            "  the clearest of them: least {:.2} mm (front head ({:.1}, {:.1}) mm tilted {:+.3} rad; body ({:.1}, {:.1}); rear head ({:.1}, {:.1}); joints {q:.4?})",
            least * 1e3,
            head.x * 1e3,
            head.z * 1e3,
            head.angle + 0.5 * std::f64::consts::PI,
            l.body.x * 1e3,
            l.body.z * 1e3,
            l.rear.x * 1e3,
            l.rear.z * 1e3
        );
    }
    if let Some(p) = h.passage {
        println!("  the most clearance the body keeps 45 degrees up towards B over a clear draw's head: {:.2} mm", p * 1e3);
    }
}

fn main() {
    let args: Vec<u64> = std::env::args().skip(1).filter_map(|a| a.parse().ok()).collect();
    let samples = args.first().copied().unwrap_or(1_000_000);
    let seed = args.get(1).copied().unwrap_or(1);
    if args.get(2) == Some(&1) {
        // Only the hand-over scans.
        return scans(samples, seed);
    }
    println!("1. lower head held in C's vertical tunnel: best clearance of the body at 45 degrees (mm)");
    for k in 0..=45 {
        let z = FLOOR + 0.020 + 0.001 * f64::from(k);
        let show = |body| match stand_up::best_lower_head(z, body) {
            Some((d, p)) => format!("{:7.2} (head x {:+.0} mm, tilt {:+.2} rad)", d * 1e3, p.x * 1e3, p.angle + 0.5 * std::f64::consts::PI),
            None => "no head fits".to_string(),
        };
        println!(
            "  centre {:2.0} mm above the floor: towards B {}, towards the empty cell {}",
            (z - FLOOR) * 1e3,
            show(HALF_WAY),
            show(HALF_WAY_OTHER_SIDE)
        );
    }
    scans(samples, seed);
}

/// Parts 2 and 3.
fn scans(samples: u64, seed: u64) {
    let pi = std::f64::consts::PI;
    handover(
        samples,
        seed,
        (0.0, 0.0),
        (-0.75 * pi, -0.25 * pi),
        "2. hand-over onto a head resting on the floor, the body within 45 degrees of upright",
    );
    handover(
        samples,
        seed,
        (0.010, 0.035),
        (-0.25 * pi, 0.25 * pi),
        "3. hand-over onto a head held 10-35 mm above resting (where the body can pass), the body lying towards B or less than 45 degrees up",
    );
}
