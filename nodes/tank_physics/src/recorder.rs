//! Crash-safe trajectory recording: every body's planar pose (and ground-truth velocity)
//! to the shared SwisTrack-like CSV (`flotilla_common::trajectory`), one flushed frame at
//! a time, so a crash loses at most the frame being written.

use crate::World;
use flotilla_common::trajectory::{OptionalColumn, TrajectoryError, TrajectorySample, TrajectoryWriter};
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;

/// Writes a frame every `every` steps; frame number = the world's step count.
pub struct TrajectoryRecorder<W: Write> {
    writer: TrajectoryWriter<W>,
    every: u64,
    frames: u64,
}

impl TrajectoryRecorder<BufWriter<File>> {
    /// Creates (truncates) `path`. `every` is the recording period in steps (>= 1; 1 at
    /// 25 ms gives 40 Hz, 1 s / 30 Hz tracking is closest with dt = 1/30 s).
    pub fn create(path: impl AsRef<Path>, every: u64) -> Result<Self, TrajectoryError> {
        Ok(Self { writer: TrajectoryWriter::create(path, &[OptionalColumn::Vx, OptionalColumn::Vy])?, every: every.max(1), frames: 0 })
    }
}

impl<W: Write> TrajectoryRecorder<W> {
    /// Records into `out` (header written now).
    pub fn new(out: W, every: u64) -> Result<Self, TrajectoryError> {
        Ok(Self { writer: TrajectoryWriter::new(out, &[OptionalColumn::Vx, OptionalColumn::Vy])?, every: every.max(1), frames: 0 })
    }

    /// Writes the world's current state if its step count is a multiple of `every`;
    /// returns whether a frame was written. A world that went back in time (reset) is an
    /// error: start a new file after a reset.
    pub fn record(&mut self, world: &World) -> Result<bool, TrajectoryError> {
        let frame = world.step_count();
        if frame % self.every != 0 {
            return Ok(false);
        }
        let time = world.time();
        let samples: Vec<TrajectorySample> = world
            .bodies()
            .iter()
            .map(|b| TrajectorySample {
                vx: Some(b.linvel.x),
                vy: Some(b.linvel.y),
                ..TrajectorySample::new(frame, time, b.id, b.pose.translation.x, b.pose.translation.y, b.heading())
            })
            .collect();
        self.writer.write_frame(&samples)?;
        self.frames += 1;
        Ok(true)
    }

    /// Frames written so far.
    pub fn frames(&self) -> u64 {
        self.frames
    }

    /// Flushes and returns the output.
    pub fn finish(self) -> Result<W, TrajectoryError> {
        self.writer.into_inner()
    }
}
