//! Accuracy of detections and tracks against ground truth, CLEAR-MOT style: per frame,
//! truth and estimates are matched one-to-one (Hungarian, within a match radius);
//! unmatched truth is a miss, an unmatched estimate a false positive, and a truth
//! object whose matched track id changes is an identity switch.

use crate::detect::Detection;
use crate::render::SceneObject;
use crate::track::{Assigner, Candidate, Track};
use serde::Serialize;
use std::collections::HashMap;
use std::f64::consts::{PI, TAU};

/// Accuracy over a run.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct AccuracyReport {
    /// Frames evaluated.
    pub frames: usize,
    /// Ground-truth object-frames.
    pub truth_samples: usize,
    /// RMS position error of matched detections, m.
    pub detection_rmse: f64,
    /// Largest position error of a matched detection, m.
    pub detection_max_error: f64,
    /// RMS heading error of matched detections whose marker encodes heading, rad
    /// (`None` when no marker encodes heading).
    pub heading_rmse: Option<f64>,
    /// Largest heading error, rad.
    pub heading_max_error: Option<f64>,
    /// Truth object-frames without a matching detection.
    pub missed_detections: usize,
    /// Detections without a matching truth object.
    pub false_detections: usize,
    /// RMS position error of matched published tracks (coasting ones included), m.
    pub track_rmse: f64,
    /// Truth object-frames not covered by a published track.
    pub missed_tracks: usize,
    /// Published tracks without a matching truth object.
    pub false_tracks: usize,
    /// Times a truth object's matched track id changed.
    pub identity_switches: usize,
    /// Distinct track ids published over the run.
    pub track_ids: usize,
}

/// Accumulates [`AccuracyReport`] frame by frame.
pub struct Evaluator {
    match_radius: f64,
    last_track_of: HashMap<u32, u32>,
    seen_track_ids: std::collections::HashSet<u32>,
    assigner: Assigner,
    detection_sq_sum: f64,
    detection_matches: usize,
    heading_sq_sum: f64,
    heading_matches: usize,
    heading_max: f64,
    track_sq_sum: f64,
    track_matches: usize,
    report: AccuracyReport,
}

impl Evaluator {
    /// Matches truth and estimates closer than `match_radius` (m).
    pub fn new(match_radius: f64) -> Self {
        Self {
            match_radius,
            last_track_of: HashMap::new(),
            seen_track_ids: Default::default(),
            assigner: Assigner::default(),
            detection_sq_sum: 0.0,
            detection_matches: 0,
            heading_sq_sum: 0.0,
            heading_matches: 0,
            heading_max: 0.0,
            track_sq_sum: 0.0,
            track_matches: 0,
            report: AccuracyReport::default(),
        }
    }

    /// Adds one frame: the truth, the detector output and the published tracks.
    pub fn add_frame(&mut self, truth: &[SceneObject], detections: &[Detection], tracks: &[Track]) {
        self.report.frames += 1;
        self.report.truth_samples += truth.len();
        let det_pairs = self.match_points(truth, detections.iter().map(|d| (d.x, d.y)));
        self.report.missed_detections += truth.len() - det_pairs.len();
        self.report.false_detections += detections.len() - det_pairs.len();
        for &(t, d) in &det_pairs {
            let (truth, det) = (&truth[t], &detections[d]);
            let error2 = (det.x - truth.x).powi(2) + (det.y - truth.y).powi(2);
            self.detection_sq_sum += error2;
            self.detection_matches += 1;
            self.report.detection_max_error = self.report.detection_max_error.max(error2.sqrt());
            if let (true, Some(heading)) = (truth.kind.encodes_heading(), det.heading) {
                let error = wrap_angle(heading - truth.heading).abs();
                self.heading_sq_sum += error * error;
                self.heading_matches += 1;
                self.heading_max = self.heading_max.max(error);
            }
        }
        let track_pairs = self.match_points(truth, tracks.iter().map(|t| (t.x, t.y)));
        self.report.missed_tracks += truth.len() - track_pairs.len();
        self.report.false_tracks += tracks.len() - track_pairs.len();
        for &(t, k) in &track_pairs {
            let (truth, track) = (&truth[t], &tracks[k]);
            self.track_sq_sum += (track.x - truth.x).powi(2) + (track.y - truth.y).powi(2);
            self.track_matches += 1;
            if let Some(previous) = self.last_track_of.insert(truth.id, track.id) {
                if previous != track.id {
                    self.report.identity_switches += 1;
                    tracing::debug!(truth = truth.id, from = previous, to = track.id, frame = self.report.frames, "identity switch");
                }
            }
        }
        self.seen_track_ids.extend(tracks.iter().map(|t| t.id));
    }

    /// The report so far.
    pub fn report(&self) -> AccuracyReport {
        let rms = |sum: f64, n: usize| if n == 0 { 0.0 } else { (sum / n as f64).sqrt() };
        AccuracyReport {
            detection_rmse: rms(self.detection_sq_sum, self.detection_matches),
            heading_rmse: (self.heading_matches > 0).then(|| rms(self.heading_sq_sum, self.heading_matches)),
            heading_max_error: (self.heading_matches > 0).then_some(self.heading_max),
            track_rmse: rms(self.track_sq_sum, self.track_matches),
            track_ids: self.seen_track_ids.len(),
            ..self.report.clone()
        }
    }

    /// One-to-one truth-estimate pairs within the match radius, minimising squared distance.
    fn match_points(&mut self, truth: &[SceneObject], estimates: impl Iterator<Item = (f64, f64)>) -> Vec<(usize, usize)> {
        let radius2 = self.match_radius * self.match_radius;
        let mut candidates = Vec::new();
        let mut count = 0;
        for (e, (x, y)) in estimates.enumerate() {
            count += 1;
            for (t, object) in truth.iter().enumerate() {
                let d2 = (x - object.x).powi(2) + (y - object.y).powi(2);
                if d2 < radius2 {
                    candidates.push(Candidate { track: t, detection: e, cost: d2 });
                }
            }
        }
        self.assigner.solve(truth.len(), count, &candidates, &vec![radius2; truth.len()])
    }
}

/// Angle wrapped into [-pi, pi), rad.
pub fn wrap_angle(angle: f64) -> f64 {
    (angle + PI).rem_euclid(TAU) - PI
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::MarkerKind;

    fn det(x: f64, y: f64, heading: Option<f64>) -> Detection {
        Detection { u: 0.0, v: 0.0, x, y, heading, diameter: 0.015, contrast: 100.0, kind: None, coverage: 1.0, edge_width: 2.0 }
    }

    fn track(id: u32, x: f64, y: f64) -> Track {
        Track { id, x, y, vx: 0.0, vy: 0.0, heading: None, stamp: 0.0, confidence: 1.0, missed_frames: 0 }
    }

    #[test]
    fn counts_hand_computed() {
        let truth = [
            SceneObject::new(0, MarkerKind::Lily, 0.0, 0.0).with_heading(0.1),
            SceneObject::new(1, MarkerKind::Lily, 0.1, 0.0).with_heading(3.1),
        ];
        let mut e = Evaluator::new(0.01);
        // Frame 1: detection errors 3 mm and 4 mm; headings off by 0.1 and by 0.2
        // across the +-pi seam; one false detection far away.
        e.add_frame(
            &truth,
            &[det(0.003, 0.0, Some(0.0)), det(0.1, 0.004, Some(3.1 + 0.2 - TAU)), det(0.2, 0.2, None)],
            &[track(7, 0.0, 0.0), track(8, 0.1, 0.0)],
        );
        // Frame 2: truth 1 undetected; its track id changes from 8 to 9.
        e.add_frame(&truth, &[det(0.0, 0.0, Some(0.1))], &[track(7, 0.0, 0.0), track(9, 0.1, 0.0)]);
        let r = e.report();
        assert_eq!((r.frames, r.truth_samples), (2, 4));
        assert_eq!((r.missed_detections, r.false_detections), (1, 1));
        assert_eq!((r.missed_tracks, r.false_tracks, r.identity_switches, r.track_ids), (0, 0, 1, 3));
        // sqrt((9e-6 + 16e-6 + 0) / 3) m.
        assert!((r.detection_rmse - (25e-6f64 / 3.0).sqrt()).abs() < 1e-12);
        assert!((r.detection_max_error - 0.004).abs() < 1e-12);
        // Heading errors 0.1, 0.2, 0.0: sqrt(0.05 / 3).
        assert!((r.heading_rmse.unwrap() - (0.05f64 / 3.0).sqrt()).abs() < 1e-9);
        assert_eq!(r.track_rmse, 0.0);
    }

    #[test]
    fn wrap_angle_hand_computed() {
        assert!((wrap_angle(3.0 * PI / 2.0) + PI / 2.0).abs() < 1e-12);
        assert!((wrap_angle(-0.25) + 0.25).abs() < 1e-12);
        assert!((wrap_angle(TAU + 0.5) - 0.5).abs() < 1e-12);
    }
}
