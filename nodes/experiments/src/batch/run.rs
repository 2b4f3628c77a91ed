//! One run: the tank side stepping with a robot side.

use super::{BatchError, TankExperiment};
use robot_controller::firmware::{has_firmware, ControllerHost, ControllerParams, RobotSide};
use robot_controller::metrics::{MetricsTracker, RunSummary, Snapshot};
use robot_controller::station::BaseStation;
use std::collections::BTreeMap;
use tank_physics::robots::RobotBus;
use tank_physics::World;

/// What a run produced.
#[derive(Clone, Debug, PartialEq)]
pub struct RunResult {
    /// The experiment's label.
    pub label: String,
    /// The run's seed.
    pub seed: u64,
    /// Totals.
    pub summary: RunSummary,
    /// Snapshots, one per sample period, and one at the end.
    pub series: Vec<Snapshot>,
    /// Robots per state, as the base station last heard.
    pub reported_states: BTreeMap<String, usize>,
}

/// The tank side of a run: world, sensing, message delivery, base station, stirring and
/// metrics. Each [`Run::tick`] reads every robot's sensors (one snapshot, ascending id),
/// asks the robot side for each command and applies it in that order through the same
/// [`RobotBus`] the physics node uses (messages arrive with the next reading), and steps
/// the physics by one control period. The node's lock-step mode keeps this order.
pub struct Run<'a> {
    experiment: &'a TankExperiment,
    seed: u64,
    world: World,
    bus: RobotBus,
    station: BaseStation,
    tracker: MetricsTracker,
    /// Controlled robots: (name, id).
    robots: Vec<(String, u32)>,
    steps_per_tick: usize,
    pump_step: Option<usize>,
    next_broadcast: usize,
}

impl<'a> Run<'a> {
    /// Builds the world for `seed`.
    pub fn new(experiment: &'a TankExperiment, seed: u64) -> Result<Self, BatchError> {
        let steps_per_tick = experiment.validate()?;
        let world = World::new(experiment.world.clone(), seed)?;
        let robots = world.bodies().into_iter().filter(|b| has_firmware(b.kind)).map(|b| (b.name, b.id)).collect();
        Ok(Self {
            experiment,
            seed,
            world,
            bus: RobotBus::new(experiment.sensing.clone())?,
            station: BaseStation::new(&experiment.ruleset),
            tracker: MetricsTracker::new(experiment.ruleset.target.clone(), experiment.sample_period),
            robots,
            steps_per_tick,
            pump_step: None,
            next_broadcast: 0,
        })
    }

    /// The standard robot side: one controller per robot, seeded like the world.
    pub fn controller_host(&self) -> Result<ControllerHost, BatchError> {
        let params =
            ControllerParams { seed: self.seed, lily_ruleset: Some(self.experiment.ruleset.clone()), ..ControllerParams::default() };
        let mut host = ControllerHost::new(params);
        for body in self.world.bodies().iter().filter(|b| has_firmware(b.kind)) {
            host.add(&body.name, body.id, body.kind.name())?;
        }
        Ok(host)
    }

    /// Sim time, s.
    pub fn time(&self) -> f64 {
        self.world.time()
    }

    /// Whether the experiment's duration is reached.
    pub fn is_done(&self) -> bool {
        self.world.time() >= self.experiment.duration - 1e-9
    }

    /// The world (read only).
    pub fn world(&self) -> &World {
        &self.world
    }

    /// The base station.
    pub fn station(&self) -> &BaseStation {
        &self.station
    }

    /// Controlled robots: (name, id).
    pub fn robots(&self) -> &[(String, u32)] {
        &self.robots
    }

    /// One control period; returns the snapshot at its start.
    pub fn tick(&mut self, robot_side: &mut impl RobotSide) -> Result<Snapshot, BatchError> {
        let time = self.world.time();
        if let Some(step) = self.experiment.stirring.step_at(time).filter(|s| Some(*s) != self.pump_step) {
            self.world.set_pumps(&self.experiment.stirring.steps[step].power)?;
            self.pump_step = Some(step);
        }
        while let Some(broadcast) = self.experiment.broadcasts.get(self.next_broadcast).filter(|b| b.at <= time + 1e-9) {
            let payload = self.station.command(&broadcast.command)?;
            self.bus.broadcast(self.robots.iter().map(|(_, id)| *id), &payload)?;
            self.next_broadcast += 1;
        }
        let bodies = self.world.bodies();
        // Every reading first, so a message sent in this tick reaches every receiver with
        // its next reading, whatever the ids (the physics node's order too).
        let indices = self
            .robots
            .iter()
            .map(|(_, id)| bodies.binary_search_by_key(id, |b| b.id).map_err(|_| tank_physics::PhysicsError::NoSuchBody { id: *id }))
            .collect::<Result<Vec<_>, _>>()?;
        let names: BTreeMap<usize, &String> = indices.iter().zip(&self.robots).map(|(&i, (name, _))| (i, name)).collect();
        for (index, reading) in self.bus.read_tick(&bodies, indices, time) {
            let name = names[&index];
            if let Some(command) = robot_side.command(name, reading.stamp(), &reading)? {
                self.bus.apply(&mut self.world, &bodies[index], &command)?;
            }
        }
        self.station.receive(self.bus.take_uplink());
        let snapshot = self.tracker.observe(time, &bodies);
        for _ in 0..self.steps_per_tick {
            self.world.step();
        }
        Ok(snapshot)
    }

    /// Ends the run: a last snapshot at the current time, totals and series.
    pub fn finish(mut self) -> RunResult {
        let last = self.tracker.observe(self.world.time(), &self.world.bodies());
        let mut series = self.tracker.series().to_vec();
        if series.last().is_none_or(|s| s.time < last.time) {
            series.push(last);
        }
        let summary = self.tracker.summary();
        tracing::info!(label = %self.experiment.label, seed = self.seed, targets = summary.final_targets, yield_ = summary.final_yield, wrong = summary.wrong_attachments, "run finished");
        RunResult { label: self.experiment.label.clone(), seed: self.seed, summary, series, reported_states: self.station.state_counts() }
    }
}

/// Runs `experiment` with seed `seed` and in-process controllers to its end.
pub fn run(experiment: &TankExperiment, seed: u64) -> Result<RunResult, BatchError> {
    let mut run = Run::new(experiment, seed)?;
    let mut host = run.controller_host()?;
    while !run.is_done() {
        run.tick(&mut host)?;
    }
    Ok(run.finish())
}
