//! Scores of a tracker run against the nuisance scenes' truth: detection RMSE, missed and
//! false detections, heading percentiles, identity switches and transfers.

#![allow(dead_code)] // Shared by the test and the example; each uses part of it.

use super::nuisance::{wrap, Kind, Truth};
use std::collections::HashMap;
use std::fmt;
use tracking::{Detection, Track};

/// A truth sticker less visible than this is not expected to be detected.
pub const DETECTABLE_FRACTION: f64 = 0.6;

/// Accumulated scores.
#[derive(Default, Clone, Debug)]
pub struct Scores {
    pub frames: usize,
    /// Truth body-frames expected to be detected (sticker visible enough).
    pub expected: usize,
    pub matched: usize,
    pub squared_error_sum: f64,
    pub max_error: f64,
    pub missed: usize,
    pub false_detections: usize,
    /// Detections checked for being false (all of them).
    pub detections: usize,
    /// Absolute heading errors of matched Lily detections, rad.
    pub heading_errors: Vec<f64>,
    /// A truth body's (non-coasting) track id changed.
    pub identity_switches: usize,
    /// A track id moved from one truth body to another (a swap or a steal).
    pub identity_transfers: usize,
    /// Distinct published track ids.
    pub track_ids: usize,
    /// Published tracks on no body (excluding coasting ones).
    pub false_tracks: usize,
    /// Truth body-frames (visible) without a published track.
    pub missed_tracks: usize,
    /// Print every miss and false detection.
    pub verbose: bool,
    /// Camera nadir (x, y), m: radial errors are measured from it.
    pub nadir: (f64, f64),
    /// Per kind (ball, Lily): sum of radial error x radius, m^2, and of radius^2, m^2.
    pub radial: [(f64, f64); 2],
    #[doc(hidden)]
    pub last_track_of: HashMap<u32, u32>,
    #[doc(hidden)]
    pub last_truth_of: HashMap<u32, u32>,
    #[doc(hidden)]
    pub seen_ids: std::collections::HashSet<u32>,
}

/// Pairs (truth index, estimate index) closer than `radius`, greedy by distance (bodies
/// are at least 30 mm apart, matches are unambiguous with a 10 mm radius).
fn pairs(truth: &[Truth], estimates: &[(f64, f64)], radius: f64) -> Vec<(usize, usize, f64)> {
    let mut all: Vec<(usize, usize, f64)> = Vec::new();
    for (t, body) in truth.iter().enumerate() {
        for (e, &(x, y)) in estimates.iter().enumerate() {
            let d = (x - body.x).hypot(y - body.y);
            if d < radius {
                all.push((t, e, d));
            }
        }
    }
    all.sort_by(|a, b| a.2.total_cmp(&b.2));
    let (mut truth_used, mut est_used) = (vec![false; truth.len()], vec![false; estimates.len()]);
    all.retain(|&(t, e, _)| {
        let keep = !truth_used[t] && !est_used[e];
        if keep {
            truth_used[t] = true;
            est_used[e] = true;
        }
        keep
    });
    all
}

impl Scores {
    pub fn add(&mut self, truth: &[Truth], detections: &[Detection], tracks: &[Track]) {
        const RADIUS: f64 = 0.010;
        self.frames += 1;
        let points: Vec<_> = detections.iter().map(|d| (d.x, d.y)).collect();
        let matched = pairs(truth, &points, RADIUS);
        let detectable = |t: &Truth| t.visible >= DETECTABLE_FRACTION;
        self.expected += truth.iter().filter(|t| detectable(t)).count();
        self.detections += detections.len();
        let mut found = vec![false; truth.len()];
        for &(t, e, d) in &matched {
            found[t] = true;
            if !detectable(&truth[t]) {
                continue;
            }
            self.matched += 1;
            self.squared_error_sum += d * d;
            let (rx, ry) = (truth[t].x - self.nadir.0, truth[t].y - self.nadir.1);
            let r = rx.hypot(ry);
            if r > 1e-6 {
                let radial_error = ((detections[e].x - truth[t].x) * rx + (detections[e].y - truth[t].y) * ry) / r;
                let slot = &mut self.radial[usize::from(truth[t].kind == Kind::Lily)];
                slot.0 += radial_error * r;
                slot.1 += r * r;
            }
            self.max_error = self.max_error.max(d);
            if truth[t].kind == Kind::Lily {
                let error = detections[e].heading.map_or(std::f64::consts::PI, |h| wrap(h - truth[t].heading).abs());
                self.heading_errors.push(error);
            }
        }
        self.missed += truth.iter().zip(&found).filter(|(t, f)| detectable(t) && !**f).count();
        self.false_detections += detections.len() - matched.len();
        if self.verbose {
            for (t, _) in truth.iter().zip(&found).filter(|(t, f)| detectable(t) && !**f) {
                println!("frame {} miss {:?} at ({:.4}, {:.4}) visible {:.2}", self.frames, t.kind, t.x, t.y, t.visible);
            }
            for (e, d) in detections.iter().enumerate().filter(|(e, _)| !matched.iter().any(|m| m.1 == *e)) {
                let _ = e;
                println!("frame {} false {d:?}", self.frames);
            }
            for &(t, e, dist) in matched.iter().filter(|m| m.2 > 0.001) {
                println!(
                    "frame {} error {:.2} mm {:?} visible {:.2} {:?}",
                    self.frames,
                    dist * 1e3,
                    truth[t].kind,
                    truth[t].visible,
                    detections[e]
                );
            }
        }
        let live: Vec<&Track> = tracks.iter().filter(|t| t.missed_frames == 0).collect();
        let points: Vec<_> = live.iter().map(|t| (t.x, t.y)).collect();
        let matched = pairs(truth, &points, RADIUS);
        self.false_tracks += live.len() - matched.len();
        let all_points: Vec<_> = tracks.iter().map(|t| (t.x, t.y)).collect();
        let covered = pairs(truth, &all_points, 2.0 * RADIUS);
        self.missed_tracks += truth.iter().enumerate().filter(|(i, t)| detectable(t) && !covered.iter().any(|c| c.0 == *i)).count();
        for &(t, e, _) in &matched {
            let (body, id) = (truth[t].id, live[e].id);
            if let Some(previous) = self.last_track_of.insert(body, id) {
                if previous != id {
                    self.identity_switches += 1;
                }
            }
            if let Some(previous) = self.last_truth_of.insert(id, body) {
                if previous != body {
                    self.identity_transfers += 1;
                }
            }
        }
        self.seen_ids.extend(tracks.iter().map(|t| t.id));
        self.track_ids = self.seen_ids.len();
    }

    /// Radial error per metre from the nadir, per kind (ball, Lily), m/m: a marker plane
    /// `dh` too high gives `-dh / (H - h)`.
    pub fn radial_slope(&self) -> [f64; 2] {
        self.radial.map(|(er, r2)| if r2 > 0.0 { er / r2 } else { 0.0 })
    }

    pub fn rmse(&self) -> f64 {
        if self.matched == 0 {
            0.0
        } else {
            (self.squared_error_sum / self.matched as f64).sqrt()
        }
    }

    pub fn missed_fraction(&self) -> f64 {
        self.missed as f64 / self.expected.max(1) as f64
    }

    pub fn false_fraction(&self) -> f64 {
        self.false_detections as f64 / self.detections.max(1) as f64
    }

    /// Heading error percentile (0..100), rad; `None` without Lilies.
    pub fn heading_percentile(&self, p: f64) -> Option<f64> {
        if self.heading_errors.is_empty() {
            return None;
        }
        let mut sorted = self.heading_errors.clone();
        sorted.sort_by(f64::total_cmp);
        let i = ((p / 100.0) * (sorted.len() - 1) as f64).round() as usize;
        Some(sorted[i])
    }
}

impl fmt::Display for Scores {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "frames {} | radial bias ball {:.2} Lily {:.2} mm/m | RMSE {:.3} mm (max {:.2}) | missed {} of {} ({:.3} %) | false {} of {} ({:.3} %) | heading p99 {} | id switches {} transfers {} | ids {} | false tracks {} missed tracks {}",
            self.frames,
            self.radial_slope()[0] * 1e3,
            self.radial_slope()[1] * 1e3,
            self.rmse() * 1e3,
            self.max_error * 1e3,
            self.missed,
            self.expected,
            100.0 * self.missed_fraction(),
            self.false_detections,
            self.detections,
            100.0 * self.false_fraction(),
            self.heading_percentile(99.0).map_or("-".to_owned(), |h| format!("{:.2} deg", h.to_degrees())),
            self.identity_switches,
            self.identity_transfers,
            self.track_ids,
            self.false_tracks,
            self.missed_tracks,
        )
    }
}
