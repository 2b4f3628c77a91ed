//! Publication schedules in sim time: topics at a fixed rate over steps of any length.

/// Whether the step that ended at sim time `t` (s) crossed a multiple of `1 / rate_hz`: the
/// topic then averages exactly `rate_hz` over sim time whatever the step (30 Hz on 25 ms
/// steps publishes 3 steps in 4), and a rate above `1 / dt` publishes every step.
pub fn due(rate_hz: f64, t: f64, dt: f64) -> bool {
    // The epsilon keeps exact multiples (0.1 s at 10 Hz) from flickering with rounding.
    let periods = |time: f64| (time * rate_hz + 1e-6).floor();
    periods(t) > periods(t - dt)
}

/// Sleeps until sim time `t` (s) is due in wall time at `real_time_factor` sim seconds per
/// wall second, counted from `anchor` (the wall instant at which sim time was `anchor.1`);
/// returns at once when it is already due or the factor is 0 (as fast as possible).
pub fn wait_for_real_time(anchor: (std::time::Instant, f64), t: f64, real_time_factor: f64) {
    if real_time_factor > 0.0 {
        let due_at = anchor.0 + flotilla_common::duration::saturating((t - anchor.1) / real_time_factor);
        let now = std::time::Instant::now();
        if due_at > now {
            std::thread::sleep(due_at - now);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::due;

    #[test]
    fn publishing_follows_the_rate_on_any_step() {
        let count = |rate: f64, dt: f64, steps: u32| (1..=steps).filter(|&n| due(rate, f64::from(n) * dt, dt)).count();
        assert_eq!(count(30.0, 0.025, 2400), 1800, "60 s at 30 Hz");
        assert_eq!(count(10.0, 0.025, 400), 100);
        assert_eq!(count(100.0, 0.025, 400), 400, "faster than the steps: every step");
        // 10 Hz on 25 ms steps: every 4th step, exactly.
        assert!((1..=40).all(|n: u32| due(10.0, f64::from(n) * 0.025, 0.025) == (n % 4 == 0)));
        // 10 Hz on the Kilobot table's 32.5 ms steps: 10 per 307.7 steps... 100 in 10 s.
        assert_eq!(count(10.0, 0.0325, 308), 100);
    }
}
