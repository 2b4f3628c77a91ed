use super::*;
use crate::metrics::structure::tests::lilies;

fn chain4() -> LatticeShape {
    LatticeShape::from_cells(&[[0, 0], [1, 0], [2, 0], [3, 0]]).unwrap()
}

#[test]
fn counts_by_hand_over_a_short_story() {
    let mut tracker = MetricsTracker::new(chain4(), 1.0).with_hold(0.0);
    // t = 0: nine free Lilies.
    let s = tracker.observe(0.0, &lilies(9, &[]));
    assert_eq!((s.free, s.partial, s.targets, s.wrong, s.bonds), (9, 0, 0, 0, 0));
    // t = 0.5: a dimer 0-1 and a corner 4-5-6 (wrong for a chain: 5's face 1 is +y).
    let step1 = [(0, 0, 1, 2), (4, 0, 5, 2), (5, 1, 6, 3)];
    let s = tracker.observe(0.5, &lilies(9, &step1));
    assert_eq!((s.free, s.partial, s.wrong, s.bonds), (4, 1, 1, 3));
    // t = 1: the corner released, 0-1-2-3 is a chain of four.
    let step2 = [(0, 0, 1, 2), (1, 0, 2, 2), (2, 0, 3, 2)];
    let s = tracker.observe(1.0, &lilies(9, &step2));
    assert_eq!((s.targets, s.free, s.wrong), (1, 5, 0));
    // Yield: 9 modules make at most two chains of four.
    assert!((s.yield_fraction - 0.5).abs() < 1e-12);
    // t = 2: the chain breaks in the middle.
    let s = tracker.observe(2.0, &lilies(9, &[(0, 0, 1, 2), (2, 0, 3, 2)]));
    assert_eq!((s.targets, s.partial), (0, 2));
    let summary = tracker.summary();
    // Bonds made: 3 at t = 0.5, 2 new at t = 1 (0-1 existed); wrong: 2 (the corner's two).
    assert_eq!(summary.attachments, 5);
    assert_eq!(summary.wrong_attachments, 2);
    assert_eq!((summary.targets_formed, summary.targets_broken), (1, 1));
    assert_eq!(summary.first_target_time, Some(1.0));
    // One target in 2 s of sim time: 30 per minute.
    assert!((summary.assembly_rate - 30.0).abs() < 1e-9);
    assert_eq!((summary.final_targets, summary.final_yield), (0, 0.0));
    // Snapshots kept at t = 0, 1, 2 (every 1 s), not at 0.5.
    let times: Vec<f64> = tracker.series().iter().map(|s| s.time).collect();
    assert_eq!(times, vec![0.0, 1.0, 2.0]);
}

#[test]
fn classes_of_structures() {
    let target = chain4();
    let found = structures(&lilies(6, &[(0, 0, 1, 2), (2, 0, 3, 2), (3, 0, 4, 2), (4, 0, 5, 2)]));
    let classes: Vec<StructureClass> = found.iter().map(|s| classify(s, &target)).collect();
    assert_eq!(classes, vec![StructureClass::Partial, StructureClass::Target]);
    let five = structures(&lilies(5, &[(0, 0, 1, 2), (1, 0, 2, 2), (2, 0, 3, 2), (3, 0, 4, 2)]));
    assert_eq!(classify(&five[0], &target), StructureClass::Wrong);
}

#[test]
fn a_target_counts_only_once_it_held() {
    let chain = [(0, 0, 1, 2), (1, 0, 2, 2), (2, 0, 3, 2)];
    let mut tracker = MetricsTracker::new(chain4(), 10.0);
    tracker.observe(0.0, &lilies(4, &chain));
    // A target shape that lasts 1 s (less than the 2 s hold) and is let go.
    assert_eq!(tracker.observe(1.0, &lilies(4, &chain)).targets, 0);
    tracker.observe(1.1, &lilies(4, &chain[..2]));
    // Back at 5 s, holding from then on: counts at 7 s, formed at 5 s.
    assert_eq!(tracker.observe(5.0, &lilies(4, &chain)).targets, 0);
    assert_eq!(tracker.observe(6.9, &lilies(4, &chain)).targets, 0);
    assert_eq!(tracker.observe(7.0, &lilies(4, &chain)).targets, 1);
    let summary = tracker.summary();
    assert_eq!((summary.targets_formed, summary.targets_broken), (1, 0));
    assert_eq!(summary.first_target_time, Some(5.0));
}

/// Regression (30-minute lily_15 soak): the base station kept every sample in memory, growing
/// by ~54 bytes per sample period for as long as it ran; without a series it keeps none but
/// still says which observations are samples.
#[test]
fn without_series_keeps_no_samples_but_marks_them() {
    let mut kept = MetricsTracker::new(chain4(), 1.0);
    let mut flat = MetricsTracker::new(chain4(), 1.0).without_series();
    let mut marked = Vec::new();
    for step in 0..10_000 {
        let time = step as f64 * 0.25;
        kept.observe(time, &lilies(4, &[]));
        flat.observe(time, &lilies(4, &[]));
        if let Some(sample) = flat.new_sample() {
            marked.push(sample.time);
        }
    }
    assert!(flat.series().is_empty());
    let kept_times: Vec<f64> = kept.series().iter().map(|s| s.time).collect();
    assert_eq!(marked.len(), 2_500);
    assert_eq!(marked, kept_times);
}
