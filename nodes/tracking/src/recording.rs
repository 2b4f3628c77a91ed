//! Tracks to the shared trajectory CSV (`frame,time,id,x,y,heading,confidence,vx,vy`,
//! see `flotilla_common::trajectory`), so calibration reads tracker output and physics
//! recordings alike.

use crate::track::Track;
use flotilla_common::trajectory::{OptionalColumn, TrajectoryError, TrajectorySample, TrajectoryWriter};
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;

/// Streams tracker output frame by frame. Only tracks detected in a frame are written
/// (coasting predictions are not measurements; the format allows gaps). Markers that
/// do not encode heading are written with heading 0.
pub struct TrackRecorder<W: Write> {
    writer: TrajectoryWriter<W>,
    frame: u64,
}

impl TrackRecorder<BufWriter<File>> {
    /// Creates (truncates) `path` and writes the header.
    pub fn create(path: impl AsRef<Path>) -> Result<Self, TrajectoryError> {
        Ok(Self { writer: TrajectoryWriter::create(path, &OptionalColumn::ALL)?, frame: 0 })
    }
}

impl<W: Write> TrackRecorder<W> {
    /// Wraps any writer and writes the header.
    pub fn new(out: W) -> Result<Self, TrajectoryError> {
        Ok(Self { writer: TrajectoryWriter::new(out, &OptionalColumn::ALL)?, frame: 0 })
    }

    /// Writes one tracker frame (stamp taken from the tracks; frames with no detected
    /// track still advance the frame counter).
    pub fn write(&mut self, tracks: &[Track]) -> Result<(), TrajectoryError> {
        let samples: Vec<TrajectorySample> = tracks
            .iter()
            .filter(|t| t.missed_frames == 0)
            .map(|t| TrajectorySample {
                confidence: Some(t.confidence),
                vx: Some(t.vx),
                vy: Some(t.vy),
                ..TrajectorySample::new(self.frame, t.stamp, t.id, t.x, t.y, t.heading.unwrap_or(0.0))
            })
            .collect();
        self.frame += 1;
        self.writer.write_frame(&samples)
    }

    /// Flushes and returns the underlying writer.
    pub fn into_inner(self) -> Result<W, TrajectoryError> {
        self.writer.into_inner()
    }
}

/// `base` with `.<n>` before its extension (`tracks.csv` -> `tracks.1.csv`): where a
/// recording continues after time went back, as the physics recording does after a reset.
pub fn numbered_path(base: &Path, n: u32) -> std::path::PathBuf {
    let stem = base.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    let ext = base.extension().map(|e| format!(".{}", e.to_string_lossy())).unwrap_or_default();
    base.with_file_name(format!("{stem}.{n}{ext}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use flotilla_common::trajectory::TrajectoryRecording;

    fn track(id: u32, stamp: f64, missed_frames: u32) -> Track {
        Track { id, x: 0.1, y: -0.2, vx: 0.01, vy: 0.0, heading: Some(1.5), stamp, confidence: 0.5, missed_frames }
    }

    #[test]
    fn numbered_paths() {
        assert_eq!(numbered_path(Path::new("/tmp/run/tracks.csv"), 2), Path::new("/tmp/run/tracks.2.csv"));
        assert_eq!(numbered_path(Path::new("tracks"), 1), Path::new("tracks.1"));
    }

    #[test]
    fn writes_detected_tracks_in_the_shared_format() {
        let mut recorder = TrackRecorder::new(Vec::new()).unwrap();
        recorder.write(&[track(1, 0.0, 0), track(2, 0.0, 1)]).unwrap();
        recorder.write(&[]).unwrap();
        recorder.write(&[Track { heading: None, ..track(2, 0.1, 0) }]).unwrap();
        let bytes = recorder.into_inner().unwrap();
        let text = String::from_utf8(bytes.clone()).unwrap();
        assert!(text.starts_with("frame,time,id,x,y,heading,confidence,vx,vy\n"), "{text}");
        let recording = TrajectoryRecording::from_reader(bytes.as_slice()).unwrap();
        let tracks = recording.tracks();
        assert_eq!(tracks.len(), 2);
        // Coasting track 2 is skipped in frame 0; it appears in frame 2 with heading 0.
        assert_eq!(tracks[1].frames, vec![2]);
        assert_eq!(tracks[1].headings, vec![0.0]);
        assert_eq!(tracks[0].headings, vec![1.5]);
    }
}
