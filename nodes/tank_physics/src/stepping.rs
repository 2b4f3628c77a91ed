//! The stepping thread of the simulator nodes (`tank_physics`, `blueswarm_tank`,
//! `kilobot_table`, `mhp_tank`): [`run`] drains the control messages the node's ROS
//! callbacks send, holds the model while paused (stepping it on request,
//! [`Message::Step`]), waits in lock step for the robots' answers ([`LockStep`]), steps,
//! stops at `run.max_sim_time` and paces the steps to the real-time factor. What a node
//! steps, publishes and answers is its [`Stepper`]; there is no other step loop.
//!
//! No ROS here: the node's callbacks reach the thread through an [`mpsc`] channel and the
//! node publishes from its [`Stepper`] hooks.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use tracing::warn;

use crate::run::RunSettings;

/// In lock step, the readings of the robots that have not answered go out again this often
/// (wall time) until they do or `run.lockstep_timeout` passes: a controller that subscribed
/// after they went out (start-up) gets them; one that answered already answers the same.
pub const RESEND: Duration = Duration::from_millis(200);

/// Two stamps of the same reading (the messages carry nanoseconds), s.
const SAME_STAMP: f64 = 1e-6;

/// How long a paused thread waits for a control message before it looks at `stop` again.
const PAUSED_POLL: Duration = Duration::from_millis(20);

/// How long a thread waiting in lock step waits for a control message before it looks at
/// the tick (and `stop`) again.
const LOCKSTEP_POLL: Duration = Duration::from_millis(5);

/// Lock step with the controllers: the tick a reading opens, who has answered it, and the
/// ticks given up on after `run.lockstep_timeout` (wall time).
#[derive(Debug)]
pub struct LockStep {
    /// `run.lockstep_timeout`; `None` without lock step (no tick is ever opened).
    timeout: Option<Duration>,
    /// How often the readings of the robots still missing go out again (wall).
    resend: Duration,
    tick: Option<Tick>,
    /// Ticks given up on, for the summary.
    timeouts: u64,
}

/// A lock-step tick: the readings stamped `stamp` and who has answered them.
#[derive(Debug)]
struct Tick {
    /// Stamp of the readings, s of sim time.
    stamp: f64,
    /// Per robot (index): answered, or not asked (no reading).
    answered: Vec<bool>,
    /// Robots still to answer.
    missing: usize,
    /// When the tick opened (wall).
    opened: Instant,
    /// When the readings of the robots still missing were last sent (wall).
    resent: Instant,
}

/// What the stepping thread does about the open tick.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Wait {
    /// No tick waits: step.
    Step,
    /// Robots have not answered yet; `resend`: their readings are due to go out again
    /// (every [`RESEND`], or the period [`LockStep::resend_every`] set).
    Waiting {
        /// Send the readings of the robots still missing again.
        resend: bool,
    },
    /// The timeout passed (counted): step on without the robots still missing.
    TimedOut {
        /// Stamp of the tick given up on, s of sim time.
        stamp: f64,
        /// Robots that did not answer it.
        missing: usize,
    },
}

impl LockStep {
    /// Lock step with ticks given up on after `timeout` (wall time); `None`: no lock step.
    /// Readings are resent every [`RESEND`].
    pub fn new(timeout: Option<Duration>) -> Self {
        Self { timeout, resend: RESEND, tick: None, timeouts: 0 }
    }

    /// The same, resending the readings of the robots still missing every `every` (wall)
    /// instead of [`RESEND`].
    pub fn resend_every(self, every: Duration) -> Self {
        Self { resend: every, ..self }
    }

    /// `run.lockstep_timeout`; `None` without lock step.
    pub fn timeout(&self) -> Option<Duration> {
        self.timeout
    }

    /// Whether the run is in lock step.
    pub fn enabled(&self) -> bool {
        self.timeout.is_some()
    }

    /// Opens the tick of the readings stamped `stamp` (s of sim time), replacing any open
    /// one; `answered[i]` is true for a robot that was not asked (it had no reading).
    /// Without lock step, nothing.
    pub fn open(&mut self, stamp: f64, answered: Vec<bool>) {
        if self.enabled() {
            let missing = answered.iter().filter(|a| !**a).count();
            let now = Instant::now();
            self.tick = Some(Tick { stamp, answered, missing, opened: now, resent: now });
        }
    }

    /// Robot `i` answered the reading stamped `stamp` (s of sim time): counted when it is
    /// the open tick's, ignored otherwise.
    pub fn answer(&mut self, i: usize, stamp: f64) {
        let Some(tick) = self.tick.as_mut().filter(|t| (t.stamp - stamp).abs() < SAME_STAMP) else { return };
        if let Some(answered) = tick.answered.get_mut(i) {
            if !std::mem::replace(answered, true) {
                tick.missing -= 1;
            }
        }
    }

    /// Whether a tick waits for answers.
    pub fn waiting(&self) -> bool {
        self.tick.as_ref().is_some_and(|t| t.missing > 0)
    }

    /// Whether robot `i` still owes the open tick its answer.
    pub fn missing(&self, i: usize) -> bool {
        self.tick.as_ref().is_some_and(|t| t.answered.get(i) == Some(&false))
    }

    /// What to do about the open tick now; a tick whose timeout passed is counted (and
    /// still open until [`close`](Self::close)), a resend due is marked done.
    pub fn poll(&mut self) -> Wait {
        let (Some(tick), Some(timeout)) = (self.tick.as_mut(), self.timeout) else { return Wait::Step };
        if tick.missing == 0 {
            return Wait::Step;
        }
        if tick.opened.elapsed() >= timeout {
            self.timeouts += 1;
            return Wait::TimedOut { stamp: tick.stamp, missing: tick.missing };
        }
        let resend = tick.resent.elapsed() >= self.resend;
        if resend {
            tick.resent = Instant::now();
        }
        Wait::Waiting { resend }
    }

    /// Closes the open tick (the world steps on).
    pub fn close(&mut self) {
        self.tick = None;
    }

    /// Ticks given up on so far.
    pub fn timeouts(&self) -> u64 {
        self.timeouts
    }
}

/// Commands a node refused, logged the first few times and then every thousandth: a
/// swarm's bad controller must not flood the log.
#[derive(Debug, Default)]
pub struct Refusals(u64);

impl Refusals {
    /// Counts a refusal and logs `why` when it is one of the first five or a multiple of
    /// 1000.
    pub fn refuse(&mut self, why: impl std::fmt::Display) {
        self.0 += 1;
        if self.0 <= 5 || self.0 % 1000 == 0 {
            warn!(refused = self.0, "{why}");
        }
    }

    /// Refusals so far.
    pub fn count(&self) -> u64 {
        self.0
    }
}

/// Where the outcome of a [`Message::Step`] goes: the sim time after its last step (s), or
/// why it was refused or cut short.
pub type StepReply = Box<dyn FnOnce(Result<f64, String>) + Send>;

/// A message to the stepping thread.
pub enum Message<C> {
    /// `/tank/pause`: pause (true) or resume (false); `.1` is called once the thread has
    /// acted on it (the service's answer). It cancels a [`Message::Step`] under way.
    Pause(bool, Box<dyn FnOnce() + Send>),
    /// `/tank/step`: advance the paused model `.0` steps, one per turn of [`run`]'s loop;
    /// refused while running or while another is under way.
    Step(u32, StepReply),
    /// A message for the node's [`Stepper`].
    Node(C),
}

/// What one of a node's messages did to its model's time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Timeline {
    /// Time goes on from where it was.
    Continues,
    /// The model's time was set anew (a reset): the pacing counts from now.
    Restarted,
}

/// A simulator node's stepping thread, as [`run`] drives it.
pub trait Stepper {
    /// The node's own messages from its ROS callbacks (in [`Message::Node`]).
    type Control;

    /// The model's sim time, s.
    fn time(&self) -> f64;

    /// The publications of the start (before the first step).
    fn start(&mut self);

    /// Acts on one of the node's messages.
    fn handle(&mut self, msg: Self::Control) -> Timeline;

    /// The run pauses (true) or resumes (false) now. Default: nothing.
    fn pause(&mut self, _paused: bool) {}

    /// The node's lock step.
    fn lockstep(&mut self) -> &mut LockStep;

    /// Before the lock-step wait, on every turn the run is not paused: a node that reads
    /// on its model's own schedule opens its tick here. Default: nothing.
    fn before_wait(&mut self) {}

    /// The open tick's readings again, to the robots that have not answered it (every
    /// [`RESEND`] while waiting). Default: nothing (the readings go out once).
    fn resend(&mut self) {}

    /// A tick the robots did not answer in time: logged by default; the world steps on
    /// without them (the tick is closed after this).
    fn timed_out(&mut self, stamp: f64, missing: usize) {
        warn!(stamp, missing, "lock step: robots did not answer in time; stepping on");
    }

    /// One step of the model and whatever is due after it.
    fn step(&mut self);
}

/// How [`run`] ended.
#[derive(Clone, Copy, Debug)]
pub struct Ended {
    /// `stopped on request` or `reached max_sim_time`.
    pub reason: &'static str,
    /// Wall time of the run, from before the start's publications.
    pub wall: Duration,
}

impl Ended {
    /// Sim seconds per wall second over the run, reaching sim time `t` (s); 0 when no wall
    /// time passed.
    pub fn speed(&self, t: f64) -> f64 {
        let wall = self.wall.as_secs_f64();
        if wall > 0.0 {
            t / wall
        } else {
            0.0
        }
    }
}

/// A [`Message::Step`] under way.
struct Stepping {
    /// Steps asked for.
    total: u32,
    /// Steps made so far.
    done: u32,
    reply: StepReply,
}

/// Whether a run is paused, what its pacing counts from, and the steps asked of it while
/// paused.
struct Pacing {
    paused: bool,
    /// The wall instant and the sim time (s) the pacing counts from; moved on pause,
    /// resume and a restarted timeline.
    pace: (Instant, f64),
    stepping: Option<Stepping>,
}

impl Pacing {
    /// Pauses, resumes or takes a step request as `msg` says, or hands it to `sim`.
    fn take<S: Stepper>(&mut self, sim: &mut S, msg: Message<S::Control>) {
        match msg {
            Message::Node(msg) => {
                if sim.handle(msg) == Timeline::Restarted {
                    self.pace = (Instant::now(), sim.time());
                }
            }
            Message::Pause(paused, done) => {
                if let Some(step) = self.stepping.take() {
                    (step.reply)(Err(format!("cancelled by /tank/pause after {} of {} steps", step.done, step.total)));
                }
                sim.pause(paused);
                done();
                self.paused = paused;
                self.pace = (Instant::now(), sim.time());
            }
            Message::Step(steps, reply) => {
                if !self.paused {
                    reply(Err("the world is running; pause it first".to_owned()));
                } else if let Some(busy) = &self.stepping {
                    reply(Err(format!(
                        "a step of {} is under way ({} done); wait for it or cancel it with /tank/pause",
                        busy.total, busy.done
                    )));
                } else if steps == 0 {
                    reply(Ok(sim.time()));
                } else {
                    self.stepping = Some(Stepping { total: steps, done: 0, reply });
                }
            }
        }
    }

    /// One step of a [`Message::Step`] under way, answering it after its last; false when
    /// none is.
    fn step_on_request<S: Stepper>(&mut self, sim: &mut S) -> bool {
        let Some(step) = self.stepping.as_mut() else { return false };
        step.done += 1;
        let finished = step.done >= step.total;
        sim.step();
        if finished {
            if let Some(step) = self.stepping.take() {
                (step.reply)(Ok(sim.time()));
            }
        }
        true
    }
}

/// Steps `sim` (whose steps last `dt` s of sim time) as `run` says until `stop` or
/// `run.max_sim_time`, taking the messages on `control` between steps.
///
/// While paused, a [`Message::Step`] runs one step per turn of the loop, between control
/// messages and `stop` checks: the node keeps answering, [`Message::Pause`] cancels it and
/// `stop` ends it (either answered with the steps made). Those steps are the caller's:
/// they neither wait in lock step nor stop at `run.max_sim_time` nor are paced.
pub fn run<S: Stepper>(sim: &mut S, run: &RunSettings, dt: f64, stop: &AtomicBool, control: &mpsc::Receiver<Message<S::Control>>) -> Ended {
    let started = Instant::now();
    let mut pacing = Pacing { paused: run.start_paused, pace: (Instant::now(), sim.time()), stepping: None };
    sim.start();
    let mut reason = "stopped on request";
    while !stop.load(Ordering::Acquire) {
        while let Ok(msg) = control.try_recv() {
            pacing.take(sim, msg);
        }
        if pacing.paused {
            if pacing.step_on_request(sim) {
                continue;
            }
            if let Ok(msg) = control.recv_timeout(PAUSED_POLL) {
                pacing.take(sim, msg);
            }
            continue;
        }
        sim.before_wait();
        match sim.lockstep().poll() {
            Wait::Step => {}
            Wait::Waiting { resend } => {
                if resend {
                    sim.resend();
                }
                if let Ok(msg) = control.recv_timeout(LOCKSTEP_POLL) {
                    pacing.take(sim, msg);
                }
                continue;
            }
            Wait::TimedOut { stamp, missing } => sim.timed_out(stamp, missing),
        }
        sim.lockstep().close();
        sim.step();
        let t = sim.time();
        if run.max_sim_time > 0.0 && t + 0.5 * dt >= run.max_sim_time {
            reason = "reached max_sim_time";
            break;
        }
        crate::rate::wait_for_real_time(pacing.pace, t, run.real_time_factor);
    }
    if let Some(step) = pacing.stepping.take() {
        (step.reply)(Err(format!("shutting down after {} of {} steps", step.done, step.total)));
    }
    Ended { reason, wall: started.elapsed() }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A model that counts its steps (`dt` = 0.1 s) and reads every `every` steps: each
    /// reading opens a tick for `robots` robots, which the robots `answering(stamp)` answer
    /// at once (through the control channel, as a node's callbacks do).
    struct Counter {
        steps: u32,
        every: u32,
        robots: usize,
        answering: fn(f64) -> Vec<usize>,
        answers: mpsc::Sender<Message<Ctl>>,
        lock: LockStep,
        /// Messages sent on the control channel right after the step that reaches `.0`
        /// (as a node's callbacks would while it steps).
        script: Vec<(u32, Message<Ctl>)>,
        /// Every call of a hook, in order.
        log: Vec<String>,
    }

    impl Counter {
        fn new(
            robots: usize,
            every: u32,
            lockstep: Option<Duration>,
            answering: fn(f64) -> Vec<usize>,
        ) -> (Self, mpsc::Receiver<Message<Ctl>>) {
            let (answers, control) = mpsc::channel();
            let lock = LockStep::new(lockstep);
            (Self { steps: 0, every, robots, answering, answers, lock, script: Vec::new(), log: Vec::new() }, control)
        }

        fn read(&mut self) {
            let t = self.time();
            self.lock.open(t, vec![false; self.robots]);
            for i in (self.answering)(t) {
                self.answers.send(Message::Node(Ctl::Answer(i, t))).unwrap();
            }
        }
    }

    /// The counter's messages.
    enum Ctl {
        /// Robot `.0` answers the reading stamped `.1`.
        Answer(usize, f64),
        /// Back to step 0.
        Restart,
    }

    impl Stepper for Counter {
        type Control = Ctl;
        fn time(&self) -> f64 {
            0.1 * f64::from(self.steps)
        }
        fn start(&mut self) {
            self.log.push("start".into());
            self.read();
        }
        fn handle(&mut self, msg: Ctl) -> Timeline {
            match msg {
                Ctl::Answer(i, stamp) => {
                    self.lock.answer(i, stamp);
                    Timeline::Continues
                }
                Ctl::Restart => {
                    self.log.push(format!("restart at {}", self.steps));
                    self.steps = 0;
                    Timeline::Restarted
                }
            }
        }
        fn pause(&mut self, paused: bool) {
            self.log.push(format!("pause {paused}"));
        }
        fn lockstep(&mut self) -> &mut LockStep {
            &mut self.lock
        }
        fn resend(&mut self) {
            self.log.push("resend".into());
        }
        fn timed_out(&mut self, stamp: f64, missing: usize) {
            self.log.push(format!("timed out {stamp:.1} {missing}"));
        }
        fn step(&mut self) {
            self.steps += 1;
            if self.steps % self.every == 0 {
                self.read();
            }
            let (now, later): (Vec<_>, Vec<_>) = std::mem::take(&mut self.script).into_iter().partition(|(at, _)| *at == self.steps);
            self.script = later;
            for (_, msg) in now {
                self.answers.send(msg).unwrap();
            }
        }
    }

    /// Both robots answer every reading.
    fn both(_: f64) -> Vec<usize> {
        vec![0, 1]
    }

    fn settings(max_sim_time: f64, start_paused: bool) -> RunSettings {
        RunSettings { real_time_factor: 0.0, max_sim_time, start_paused, ..RunSettings::default() }
    }

    /// A [`Message::Step`] whose outcome goes to `outcomes` labelled `label`.
    fn step_request(steps: u32, label: &'static str, outcomes: &mpsc::Sender<(&'static str, Result<f64, String>)>) -> Message<Ctl> {
        let outcomes = outcomes.clone();
        Message::Step(steps, Box::new(move |r| outcomes.send((label, r)).unwrap()))
    }

    #[test]
    fn runs_to_max_sim_time_without_lock_step() {
        let (mut sim, rx) = Counter::new(2, 1, None, both);
        let ended = run(&mut sim, &settings(1.0, false), 0.1, &AtomicBool::new(false), &rx);
        assert_eq!((ended.reason, sim.steps, sim.lock.timeouts()), ("reached max_sim_time", 10, 0));
        assert_eq!(sim.log, ["start"]);
    }

    /// Answered ticks step at once; an unanswered one is resent every RESEND and given up
    /// on after the timeout, counted once.
    #[test]
    fn lock_step_waits_for_every_answer_then_times_out() {
        // Both robots answer the readings at 0 and 0.2 s; robot 1 (twice) only the one at 0.4 s.
        let answering = |t: f64| if (t - 0.4).abs() < 1e-9 { vec![1, 1] } else { vec![0, 1] };
        let (mut sim, rx) = Counter::new(2, 2, Some(Duration::from_millis(550)), answering);
        let ended = run(&mut sim, &settings(0.6, false), 0.1, &AtomicBool::new(false), &rx);
        // The tick at 0.4 s timed out (resent at 200 and 400 ms); the one opened at 0.6 s is
        // not waited for (the end).
        assert_eq!((ended.reason, sim.steps, sim.lock.timeouts()), ("reached max_sim_time", 6, 1));
        assert_eq!(sim.log, ["start", "resend", "resend", "timed out 0.4 1"]);
        assert!(ended.wall >= Duration::from_millis(550));
    }

    #[test]
    fn answers_to_other_ticks_and_repeats_do_not_count() {
        let mut lock = LockStep::new(Some(Duration::from_secs(60)));
        lock.open(1.0, vec![false, true, false]);
        assert!(lock.waiting() && lock.missing(0) && !lock.missing(1));
        lock.answer(0, 0.5);
        lock.answer(0, 1.0);
        lock.answer(0, 1.0);
        lock.answer(7, 1.0);
        assert!(lock.waiting() && !lock.missing(0) && lock.missing(2));
        assert_eq!(lock.poll(), Wait::Waiting { resend: false });
        lock.answer(2, 1.0 + 1e-9);
        assert!(!lock.waiting());
        assert_eq!(lock.poll(), Wait::Step);
        let mut off = LockStep::new(None);
        off.open(1.0, vec![false]);
        assert!(!off.waiting() && !off.enabled());
    }

    /// A node's own resend period replaces RESEND.
    #[test]
    fn resend_period_is_the_nodes() {
        let mut lock = LockStep::new(Some(Duration::from_secs(60))).resend_every(Duration::from_millis(400));
        lock.open(1.0, vec![false]);
        std::thread::sleep(RESEND + Duration::from_millis(50));
        assert_eq!(lock.poll(), Wait::Waiting { resend: false }, "RESEND passed, the node's 400 ms not");
        std::thread::sleep(Duration::from_millis(200));
        assert_eq!(lock.poll(), Wait::Waiting { resend: true });
        assert_eq!(lock.poll(), Wait::Waiting { resend: false }, "counted from the resend");
    }

    /// A paused run does not step until resumed; stop ends it.
    #[test]
    fn pause_holds_the_model_until_resumed() {
        let (mut sim, rx) = Counter::new(1, 1, None, |_| Vec::new());
        let tx = sim.answers.clone();
        let stop = AtomicBool::new(false);
        std::thread::scope(|s| {
            let (sim, stop) = (&mut sim, &stop);
            let runner = s.spawn(move || run(sim, &settings(0.0, true), 0.1, stop, &rx));
            std::thread::sleep(Duration::from_millis(100));
            let (done, answered) = mpsc::channel();
            tx.send(Message::Pause(true, Box::new(move || done.send(()).unwrap()))).unwrap();
            answered.recv_timeout(Duration::from_secs(10)).unwrap();
            std::thread::sleep(Duration::from_millis(100));
            stop.store(true, Ordering::Release);
            let ended = runner.join().unwrap();
            assert_eq!(ended.reason, "stopped on request");
        });
        assert_eq!((sim.steps, sim.log.as_slice()), (0, ["start".to_owned(), "pause true".to_owned()].as_slice()));
        let (mut sim, rx) = Counter::new(1, 1, None, |_| Vec::new());
        sim.answers.send(Message::Pause(false, Box::new(|| ()))).unwrap();
        let ended = run(&mut sim, &settings(0.5, true), 0.1, &AtomicBool::new(false), &rx);
        assert_eq!((ended.reason, sim.steps), ("reached max_sim_time", 5));
    }

    /// A step request runs while paused (past max_sim_time, which is the running world's
    /// limit); one made while another is under way, or while running, is refused; zero
    /// steps answer the time at once.
    #[test]
    fn steps_on_request_while_paused() {
        let (outcomes, results) = mpsc::channel();
        let (mut sim, rx) = Counter::new(1, 1, None, |_| Vec::new());
        sim.answers.send(step_request(5, "five", &outcomes)).unwrap();
        sim.answers.send(step_request(2, "meanwhile", &outcomes)).unwrap();
        sim.script = vec![
            (5, step_request(0, "zero", &outcomes)),
            (5, Message::Pause(false, Box::new(|| ()))),
            (5, step_request(1, "running", &outcomes)),
        ];
        let ended = run(&mut sim, &settings(0.3, true), 0.1, &AtomicBool::new(false), &rx);
        // Five steps on request (to 0.5 s, past 0.3), then the first running step ends it.
        assert_eq!((ended.reason, sim.steps), ("reached max_sim_time", 6));
        let got: Vec<_> = results.try_iter().map(|(label, r)| (label, r.map(|t| (t * 10.0).round()))).collect();
        assert_eq!(
            got,
            [
                ("meanwhile", Err("a step of 5 is under way (0 done); wait for it or cancel it with /tank/pause".to_owned())),
                ("five", Ok(5.0)),
                ("zero", Ok(5.0)),
                ("running", Err("the world is running; pause it first".to_owned())),
            ]
        );
        assert_eq!(sim.log, ["start", "pause false"]);
    }

    /// A pause cancels a step request under way, and stop ends one, each answered with the
    /// steps made.
    #[test]
    fn pause_cancels_and_stop_ends_a_step_request() {
        let (outcomes, results) = mpsc::channel();
        let (mut sim, rx) = Counter::new(1, 1, None, |_| Vec::new());
        let tx = sim.answers.clone();
        tx.send(step_request(100, "hundred", &outcomes)).unwrap();
        sim.script = vec![(3, Message::Pause(true, Box::new(|| ())))];
        let stop = AtomicBool::new(false);
        std::thread::scope(|s| {
            let (sim, stop) = (&mut sim, &stop);
            let runner = s.spawn(move || run(sim, &settings(0.0, true), 0.1, stop, &rx));
            let cancelled = results.recv_timeout(Duration::from_secs(10)).unwrap();
            assert_eq!(cancelled, ("hundred", Err("cancelled by /tank/pause after 3 of 100 steps".to_owned())));
            tx.send(step_request(u32::MAX, "endless", &outcomes)).unwrap();
            std::thread::sleep(Duration::from_millis(50));
            stop.store(true, Ordering::Release);
            assert_eq!(runner.join().unwrap().reason, "stopped on request");
        });
        let (label, ended) = results.recv_timeout(Duration::from_secs(10)).unwrap();
        let message = ended.unwrap_err();
        let made: u32 = message.strip_prefix("shutting down after ").and_then(|m| m.split(' ').next()?.parse().ok()).unwrap();
        assert_eq!((label, message), ("endless", format!("shutting down after {made} of {} steps", u32::MAX)));
        assert!(made > 0 && sim.steps == 3 + made, "{made} steps made, {} in all", sim.steps);
    }

    /// A message that restarts the model's time restarts the pacing: the run is paced from
    /// the restart, not allowed to catch up with the wall time already spent.
    #[test]
    fn a_restarted_timeline_is_paced_from_the_restart() {
        let (mut sim, rx) = Counter::new(1, 1, None, |_| Vec::new());
        sim.script = vec![(8, Message::Node(Ctl::Restart))];
        // 10 sim s per wall s: 0.8 s (80 ms), restart, then 1.0 s more, of which the last
        // step ends the run unpaced (90 ms): 170 ms.
        let run_settings = RunSettings { real_time_factor: 10.0, ..settings(1.0, false) };
        let ended = run(&mut sim, &run_settings, 0.1, &AtomicBool::new(false), &rx);
        assert_eq!((ended.reason, sim.steps), ("reached max_sim_time", 10));
        assert_eq!(sim.log, ["start", "restart at 8"]);
        // Paced from the start instead, the steps to 0.8 s after the restart would be
        // overdue and the run would end after ~90 ms.
        assert!(ended.wall >= Duration::from_millis(160), "{:?}", ended.wall);
    }

    #[test]
    fn refusals_count_every_one() {
        let mut r = Refusals::default();
        (0..1200).for_each(|i| r.refuse(format_args!("command {i} refused")));
        assert_eq!(r.count(), 1200);
    }
}
