//! Yield, assembly rate and wrong attachments of a run, from the latch graph over time.

use super::structure::{structures, Bond, Structure};
use super::LatticeShape;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};
use tank_physics::BodyState;

/// What a structure is with respect to the target.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum StructureClass {
    /// A single unlatched module.
    Free,
    /// The target (up to rotation).
    Target,
    /// Two or more modules that fit inside the target: on the way.
    Partial,
    /// Two or more modules that do not fit inside the target.
    Wrong,
}

/// Classifies one structure.
pub fn classify(structure: &Structure, target: &LatticeShape) -> StructureClass {
    match &structure.shape {
        _ if structure.members.len() == 1 => StructureClass::Free,
        Some(shape) if shape == target => StructureClass::Target,
        Some(shape) if shape.is_part_of(target) => StructureClass::Partial,
        _ => StructureClass::Wrong,
    }
}

/// The assembly state at one time.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Snapshot {
    /// Sim time, s.
    pub time: f64,
    /// Complete target structures that have held together for the tracker's hold time.
    pub targets: usize,
    /// Targets over the most that the modules can make (floor(modules / target size)), 0..1.
    pub yield_fraction: f64,
    /// Structures on the way to the target.
    pub partial: usize,
    /// Structures that are not part of the target.
    pub wrong: usize,
    /// Unlatched modules.
    pub free: usize,
    /// Latches made.
    pub bonds: usize,
}

/// Totals of a run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunSummary {
    /// Time observed, s.
    pub duration: f64,
    /// Targets at the end.
    pub final_targets: usize,
    /// Yield at the end, 0..1.
    pub final_yield: f64,
    /// Sim time at which the first target that went on to hold came together, s (`None` if
    /// none formed).
    pub first_target_time: Option<f64>,
    /// Times a target came into being.
    pub targets_formed: usize,
    /// Times a target came apart.
    pub targets_broken: usize,
    /// Assembly rate: targets formed per minute of sim time, 1/min.
    pub assembly_rate: f64,
    /// Latches made that left their structure not part of the target.
    pub wrong_attachments: usize,
    /// Latches made in all.
    pub attachments: usize,
}

/// Default time a target must hold together before it counts, s: longer than a bond
/// handshake plus the release of a wrong attachment, so a target shape that exists only
/// until the rules let go of it is not counted.
pub const DEFAULT_TARGET_HOLD: f64 = 2.0;

/// Follows a run: call [`MetricsTracker::observe`] after every control step (it needs to
/// see each latch while it exists to count it); a [`Snapshot`] is kept every sample period.
#[derive(Clone, Debug)]
pub struct MetricsTracker {
    target: LatticeShape,
    sample_period: f64,
    hold: f64,
    next_sample: f64,
    bonds: BTreeSet<Bond>,
    /// Target-shaped structures present now, by members, with the time they came together.
    candidates: BTreeMap<Vec<u32>, f64>,
    /// Candidates that have held for `hold`.
    targets: BTreeSet<Vec<u32>>,
    series: Vec<Snapshot>,
    /// Whether `series` keeps the samples (off in long-running nodes, whose records are
    /// their CSV rows: memory then stays flat however long the run).
    keep_series: bool,
    /// Whether the last observation was a sample.
    sampled_last: bool,
    first_target_time: Option<f64>,
    targets_formed: usize,
    targets_broken: usize,
    wrong_attachments: usize,
    attachments: usize,
    last: Option<Snapshot>,
}

impl MetricsTracker {
    /// A tracker for `target`, keeping a snapshot every `sample_period` s (from time 0), a
    /// target counting once it held [`DEFAULT_TARGET_HOLD`].
    pub fn new(target: LatticeShape, sample_period: f64) -> Self {
        Self {
            target,
            sample_period,
            hold: DEFAULT_TARGET_HOLD,
            next_sample: 0.0,
            bonds: BTreeSet::new(),
            candidates: BTreeMap::new(),
            targets: BTreeSet::new(),
            series: Vec::new(),
            keep_series: true,
            sampled_last: false,
            first_target_time: None,
            targets_formed: 0,
            targets_broken: 0,
            wrong_attachments: 0,
            attachments: 0,
            last: None,
        }
    }

    /// Sets the time a target must hold together before it counts, s.
    pub fn with_hold(mut self, hold: f64) -> Self {
        self.hold = hold;
        self
    }

    /// Keeps no series of samples ([`Self::series`] stays empty); [`Self::new_sample`] still
    /// says when a sample is due. For nodes that run for days of sim time.
    pub fn without_series(mut self) -> Self {
        self.keep_series = false;
        self
    }

    /// Looks at the world at `time` (s); returns the snapshot of this moment.
    pub fn observe(&mut self, time: f64, bodies: &[BodyState]) -> Snapshot {
        let found = structures(bodies);
        let modules: usize = found.iter().map(|s| s.members.len()).sum();
        let mut snapshot = Snapshot { time, targets: 0, yield_fraction: 0.0, partial: 0, wrong: 0, free: 0, bonds: 0 };
        let mut bonds = BTreeSet::new();
        let mut present = BTreeMap::new();
        for structure in &found {
            let class = classify(structure, &self.target);
            match class {
                StructureClass::Free => snapshot.free += 1,
                StructureClass::Target => {
                    let since = self.candidates.get(&structure.members).copied().unwrap_or(time);
                    present.insert(structure.members.clone(), since);
                }
                StructureClass::Partial => snapshot.partial += 1,
                StructureClass::Wrong => snapshot.wrong += 1,
            }
            for bond in &structure.bonds {
                if !self.bonds.contains(bond) {
                    self.attachments += 1;
                    if class == StructureClass::Wrong {
                        self.wrong_attachments += 1;
                        tracing::debug!(time, a = bond.0, b = bond.2, "wrong attachment");
                    }
                }
                bonds.insert(*bond);
            }
        }
        let targets: BTreeSet<Vec<u32>> =
            present.iter().filter(|(_, since)| time - **since >= self.hold - 1e-9).map(|(m, _)| m.clone()).collect();
        for members in targets.difference(&self.targets) {
            self.targets_formed += 1;
            let since = present[members];
            if self.first_target_time.is_none() {
                self.first_target_time = Some(since);
                tracing::info!(time = since, "first target structure");
            }
        }
        self.targets_broken += self.targets.difference(&targets).count();
        snapshot.targets = targets.len();
        self.candidates = present;
        snapshot.bonds = bonds.len();
        let most = modules / self.target.len();
        snapshot.yield_fraction = if most == 0 { 0.0 } else { snapshot.targets as f64 / most as f64 };
        self.bonds = bonds;
        self.targets = targets;
        self.sampled_last = time + 1e-9 >= self.next_sample;
        if self.sampled_last {
            if self.keep_series {
                self.series.push(snapshot.clone());
            }
            self.next_sample += self.sample_period;
        }
        self.last = Some(snapshot.clone());
        snapshot
    }

    /// The snapshot of the last observation when it was a sample (one per sample period).
    pub fn new_sample(&self) -> Option<&Snapshot> {
        self.last.as_ref().filter(|_| self.sampled_last)
    }

    /// Snapshots kept so far, one per sample period.
    pub fn series(&self) -> &[Snapshot] {
        &self.series
    }

    /// Totals up to the last observation.
    pub fn summary(&self) -> RunSummary {
        let duration = self.last.as_ref().map_or(0.0, |s| s.time);
        RunSummary {
            duration,
            final_targets: self.last.as_ref().map_or(0, |s| s.targets),
            final_yield: self.last.as_ref().map_or(0.0, |s| s.yield_fraction),
            first_target_time: self.first_target_time,
            targets_formed: self.targets_formed,
            targets_broken: self.targets_broken,
            assembly_rate: if duration > 0.0 { self.targets_formed as f64 / (duration / 60.0) } else { 0.0 },
            wrong_attachments: self.wrong_attachments,
            attachments: self.attachments,
        }
    }
}

#[cfg(test)]
mod tests;
