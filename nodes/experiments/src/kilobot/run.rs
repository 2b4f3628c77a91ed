//! One self-assembly run in-process: the table, every robot's firmware, the study's stop
//! rules and what the metrics and plots need.

use super::layout::{Arrangement, Headings, Layout, LayoutError, PackSpec};
use flotilla_contract::kilobot::KilobotCommand;
use flotilla_firmware::kilobot::{KilobotFirmware, Localisation, SelfAssembly, SelfAssemblyParams, Shape, State};
use robot_controller::kilobot::Scene;
use std::ops::ControlFlow;
use std::sync::Arc;
use tank_physics::systems::kilobot::{KilobotTable, TableConfig, TableError};

/// Everything a run is made of.
#[derive(Clone, Debug)]
pub struct Scenario {
    /// The shape.
    pub shape: Arc<Shape>,
    /// The firmware's parameters.
    pub params: SelfAssemblyParams,
    /// The table's parameters.
    pub table: TableConfig,
    /// Non-seed robots.
    pub robots: usize,
    /// Where the pack stands.
    pub arrangement: Arrangement,
    /// Which way the robots face at the start.
    pub headings: Headings,
    /// Pack lattice spacing, world units.
    pub pack_spacing: f64,
    /// Pack clearance from the shape, world units.
    pub clearance: f64,
    /// Most steps before the run is stopped.
    pub max_steps: u64,
    /// Steps between recorded positions (paths); 0 records none.
    pub record_every: u64,
    /// Steps between checks of the loop rule (the study: 1000).
    pub loop_check_every: u64,
    /// Run seed.
    pub seed: u64,
}

/// Why a run ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ending {
    /// Every robot joined the shape.
    AllJoined,
    /// A robot crossed the seeds' mean y twice to the left of the seeds: a loop.
    Loop,
    /// `max_steps` reached.
    MaxSteps,
    /// Stopped early at the caller's request (Ctrl-C).
    Interrupted,
}

impl Ending {
    /// Its name in the summary.
    pub fn name(self) -> &'static str {
        match self {
            Ending::AllJoined => "all_joined",
            Ending::Loop => "loop",
            Ending::MaxSteps => "max_steps",
            Ending::Interrupted => "interrupted",
        }
    }
}

/// A run's setup could not be made.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// The scene.
    #[error(transparent)]
    Layout(#[from] LayoutError),
    /// The table.
    #[error(transparent)]
    Table(#[from] TableError),
    /// The firmware's parameters.
    #[error(transparent)]
    Params(#[from] flotilla_firmware::kilobot::ParamError),
    /// The table refused a command (a firmware bug).
    #[error(transparent)]
    Command(#[from] tank_physics::systems::kilobot::CommandError),
}

/// Positions of every robot at one recorded step.
#[derive(Clone, Debug)]
pub struct Frame {
    /// Step.
    pub step: u64,
    /// True positions, world units.
    pub world: Vec<[f32; 2]>,
    /// Believed positions, world units.
    pub believed: Vec<[f32; 2]>,
    /// Whether each robot is edge-following.
    pub moving: Vec<bool>,
}

/// The swarm: table and firmware in lock step (robots 0..4 are the seeds).
pub struct Swarm {
    /// The table.
    pub table: KilobotTable,
    /// Every robot's firmware.
    pub firmware: Vec<KilobotFirmware<SelfAssembly>>,
    /// One robot's command, reused robot after robot (it stays in cache).
    command: KilobotCommand,
    /// The table's ambient light, 0..1.
    light: f64,
    ideal: bool,
    seeds: usize,
    mean_seed: [f64; 2],
    crossings: Vec<u8>,
    above: Vec<bool>,
    left_of_seeds: f64,
}

/// Half width of the band around the seeds' mean y inside which a robot keeps its side,
/// world units.
const LOOP_BAND: f64 = 0.5;

impl Swarm {
    /// The swarm of `scenario`, laid out.
    pub fn new(scenario: &Scenario) -> Result<(Self, Layout), RunError> {
        let pack = PackSpec {
            robots: scenario.robots,
            arrangement: scenario.arrangement,
            headings: scenario.headings,
            spacing: scenario.pack_spacing,
            clearance: scenario.clearance,
            gradient_distance: scenario.params.gradient_distance,
            bounds: scenario.table.bounds,
        };
        let scene = Scene::new(scenario.shape.clone(), &pack, scenario.seed)?;
        let n = scene.len();
        if n >= HUGE_PAGE_SWARM {
            heap_for_large_blocks();
        }
        let seeds = &scene.layout.seeds;
        let mean_seed =
            [seeds.iter().map(|s| s[0]).sum::<f64>() / seeds.len() as f64, seeds.iter().map(|s| s[1]).sum::<f64>() / seeds.len() as f64];
        let firmware = (0..n).map(|i| scene.firmware(i, scenario.params)).collect::<Result<Vec<_>, _>>()?;
        let mut table = KilobotTable::new(scenario.table, &scene.poses, scene.table_seed())?;
        // The seeds' positions are the swarm's coordinate frame: nothing pushes them.
        (0..scene.seeds()).for_each(|i| table.set_anchored(i, true));
        let swarm = Self {
            table,
            firmware,
            command: KilobotCommand::default(),
            light: scenario.table.ambient_light,
            ideal: scenario.params.localisation == Localisation::Ideal,
            seeds: scene.seeds(),
            mean_seed,
            crossings: vec![0; n],
            above: scene.poses.iter().map(|p| p.y > mean_seed[1]).collect(),
            left_of_seeds: seeds.iter().map(|s| s[0]).fold(f64::INFINITY, f64::min),
        };
        // Small swarms fit the caches; the hint's scan and copy would cost the many small
        // runs of a study more than it gives.
        if n >= HUGE_PAGE_SWARM {
            huge_pages();
        }
        Ok((swarm, scene.layout))
    }

    /// Seeds (the first robots).
    pub fn seeds(&self) -> usize {
        self.seeds
    }

    /// One step: each robot read, its firmware run and its command applied in turn
    /// (everything a robot hears was sent before the step's first command), then move.
    pub fn step(&mut self) -> Result<(), RunError> {
        for i in 0..self.firmware.len() {
            // Four robots ahead its firmware, two ahead the tables that firmware points to
            // (at 10,000 robots they are not in cache; a robot's tick is shorter than a
            // load from memory).
            if let Some(later) = self.firmware.get(i + 4) {
                later.prefetch_early();
            }
            if let Some(next) = self.firmware.get(i + 2) {
                next.prefetch();
            }
            let fw = &mut self.firmware[i];
            if self.ideal {
                let p = self.table.pose(i);
                fw.program_mut().set_oracle(Some([p.x, p.y]));
            }
            // The reading handed over message by message (the tick `read` + `step_into`
            // would make, without the reading's buffer).
            fw.begin_tick(self.table.ticks(), self.light);
            self.table.read_messages(i, |payload, distance| fw.receive(payload, distance));
            fw.end_tick(&mut self.command);
            self.table.apply(i, &self.command)?;
        }
        self.table.step();
        let (left, my) = (self.left_of_seeds, self.mean_seed[1]);
        let (xs, ys) = (self.table.xs(), self.table.ys());
        // Only robots that moved can change sides (most of a swarm stands still).
        for &i in self.table.movers() {
            let i = i as usize;
            // Sides change only clearly away from the line (the orbit over the pack runs
            // along it and would count every wobble).
            if i >= self.seeds && xs[i] < left && (ys[i] - my).abs() > LOOP_BAND {
                let above = ys[i] > my;
                if above != self.above[i] {
                    self.above[i] = above;
                    self.crossings[i] = self.crossings[i].saturating_add(1);
                }
            }
        }
        Ok(())
    }

    /// Whether a robot crossed the seeds' mean y twice to the left of the seeds (the
    /// study's loop rule: up toward the shape once, then down again means it came round).
    pub fn looped(&self) -> bool {
        self.crossings.iter().any(|c| *c >= 2)
    }

    /// Whether every non-seed robot has joined the shape.
    pub fn all_joined(&self) -> bool {
        self.firmware[self.seeds..].iter().all(|f| f.program().state() == State::JoinedShape)
    }

    /// Root mean square distance between believed and true positions of the localised
    /// non-seed robots (those that have a position), world units; NaN when none has.
    pub fn localisation_rmse(&self) -> f64 {
        let mut n = 0usize;
        let sum: f64 = (self.seeds..self.firmware.len())
            .filter(|&i| self.firmware[i].program().localised())
            .map(|i| {
                n += 1;
                let (p, b) = (self.table.pose(i), self.firmware[i].program().position());
                (p.x - b[0]).powi(2) + (p.y - b[1]).powi(2)
            })
            .sum();
        if n == 0 {
            f64::NAN
        } else {
            (sum / n as f64).sqrt()
        }
    }

    /// Every robot's true and believed position and whether it is moving.
    pub fn frame(&self) -> Frame {
        let n = self.firmware.len();
        Frame {
            step: self.table.steps(),
            world: (0..n).map(|i| [self.table.xs()[i] as f32, self.table.ys()[i] as f32]).collect(),
            believed: self.firmware.iter().map(|f| f.program().position().map(|v| v as f32)).collect(),
            moving: self.firmware.iter().map(|f| f.program().state().is_moving()).collect(),
        }
    }
}

/// What a run leaves for the metrics and plots.
pub struct RunRecord {
    /// The starting scene.
    pub layout: Layout,
    /// Why it ended.
    pub ending: Ending,
    /// Localisation RMSE at every step (index = step), world units.
    pub rmse: Vec<f32>,
    /// Recorded positions.
    pub frames: Vec<Frame>,
    /// The swarm at the end.
    pub swarm: Swarm,
    /// Wall time of the stepping, s.
    pub wall_seconds: f64,
}

/// Runs `scenario` to its end; `progress(steps)` is called at every loop check (every
/// `loop_check_every` steps) and ends the run early, as [`Ending::Interrupted`], when it
/// breaks.
pub fn run(scenario: &Scenario, mut progress: impl FnMut(u64) -> ControlFlow<()>) -> Result<RunRecord, RunError> {
    let (mut swarm, layout) = Swarm::new(scenario)?;
    let mut rmse = vec![swarm.localisation_rmse() as f32];
    let mut frames = Vec::new();
    if scenario.record_every > 0 {
        frames.push(swarm.frame());
    }
    let started = std::time::Instant::now();
    let check = scenario.loop_check_every.max(1);
    let ending = loop {
        if swarm.table.steps() >= scenario.max_steps {
            break Ending::MaxSteps;
        }
        swarm.step()?;
        let step = swarm.table.steps();
        rmse.push(swarm.localisation_rmse() as f32);
        if scenario.record_every > 0 && step % scenario.record_every == 0 {
            frames.push(swarm.frame());
        }
        if swarm.all_joined() {
            break Ending::AllJoined;
        }
        if step % check == 0 {
            if progress(step).is_break() {
                break Ending::Interrupted;
            }
            if swarm.looped() {
                break Ending::Loop;
            }
        }
    };
    if scenario.record_every > 0 && frames.last().is_some_and(|f| f.step != swarm.table.steps()) {
        frames.push(swarm.frame());
    }
    Ok(RunRecord { layout, ending, rmse, frames, swarm, wall_seconds: started.elapsed().as_secs_f64() })
}

/// Robots from which a swarm's state outgrows the caches and [`huge_pages`] is asked for.
const HUGE_PAGE_SWARM: usize = 1024;

/// Has glibc's malloc place blocks of up to 32 MB in its heap rather than in mappings of
/// their own, before the swarm is built: a swarm's large arrays (10,000 robots: the
/// firmware, the channel's lists, several MB each) then lie in the heap, which
/// [`huge_pages`] turns into 2 MB pages whole. In mappings of their own, touched piecemeal
/// before the hint, the kernel's collapse failed (`EINVAL`) and ~7 MB of them stayed in
/// 4 KB pages. Where blocks are placed changes no result. A process-wide setting, kept
/// for the process's later swarms too.
fn heap_for_large_blocks() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        // glibc's largest threshold on 64-bit targets (DEFAULT_MMAP_THRESHOLD_MAX).
        const LARGEST: libc::c_int = 32 << 20;
        // SAFETY: a malloc tuning parameter; it moves no block already allocated. A
        // refusal (return 0) leaves glibc's own placement.
        unsafe {
            libc::mallopt(libc::M_MMAP_THRESHOLD, LARGEST);
        }
    }
}

/// Asks the kernel to back the process's heap and anonymous memory with 2 MB pages
/// (transparent huge pages), a hint that changes no result. A swarm's state is spread over
/// tens of MB (10,000 robots: each robot's firmware tables, the channel's lists) and each
/// step touches all of it: with 4 KB pages most of those touches also miss the address
/// translation cache. Called once the swarm is built (its memory in place).
fn huge_pages() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        const HUGE: usize = 2 << 20;
        let Ok(maps) = std::fs::read_to_string("/proc/self/maps") else { return };
        for line in maps.lines() {
            // start-end perms offset device inode [path]
            let fields: Vec<&str> = line.split_whitespace().collect();
            let (Some(range), Some(perms)) = (fields.first(), fields.get(1)) else { continue };
            let anonymous = fields.get(5).is_none_or(|path| *path == "[heap]");
            let Some((a, b)) = range.split_once('-') else { continue };
            let (Ok(a), Ok(b)) = (usize::from_str_radix(a, 16), usize::from_str_radix(b, 16)) else { continue };
            let (a, b) = (a.next_multiple_of(HUGE), b / HUGE * HUGE);
            if !perms.starts_with("rw") || !anonymous || b <= a {
                continue;
            }
            // SAFETY: advice on whole pages of mappings this process owns; neither call
            // changes their contents (MADV_COLLAPSE copies them into huge pages now, a
            // best effort: a failure leaves the small pages).
            unsafe {
                libc::madvise(a as *mut libc::c_void, b - a, libc::MADV_HUGEPAGE);
                libc::madvise(a as *mut libc::c_void, b - a, libc::MADV_COLLAPSE);
            }
        }
    }
}
