//! The Lily firmware: latch control from a [`Ruleset`], using only the robot's own reading
//! (latched faces, latch-channel messages from latched neighbours, radio commands).
//!
//! A new bond goes through a handshake: both modules send an `Offer` (state, relative face,
//! id) over the latch channel, each looks up the same bond rule, sends `Accept` or lets go,
//! and a module takes its new state only when it has accepted and received the partner's
//! `Accept`. A module handles one handshake at a time (other new bonds are released), and
//! its state cannot change while one is open, so both sides always decide on the same data.

use super::protocol::LilyMessage;
use super::ruleset::{BondDecision, Ruleset, Side, StateId, FACES};
use flotilla_contract::lily::{Lily, LilyCommand, LilySensors};
use flotilla_contract::{robot_seed, Firmware, Outbox, Port};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::sync::Arc;

const N: usize = FACES as usize;

/// A bond being agreed on.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Handshake {
    /// When the latch was first seen, s.
    since: f64,
    /// What this module offered.
    mine: Side,
    /// The partner's offer and id, once received.
    partner: Option<(Side, u32)>,
    /// The state this module takes if the partner accepts too (set once it accepted).
    verdict: Option<StateId>,
    /// The partner's `Accept` arrived.
    partner_accepted: bool,
}

/// What one latch face is doing.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Link {
    /// Unbonded; latch on when the state opens this face.
    Open,
    /// Released; latch off until this time (s) so the modules drift apart.
    Cooling { until: f64 },
    /// Latched, agreeing on the bond.
    Handshake(Handshake),
    /// A kept bond with robot `partner`.
    Bonded { partner: u32 },
}

/// Counters of what the firmware did (for logs and tests).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LilyCounters {
    /// Bonds kept.
    pub accepted: usize,
    /// Bonds let go by a release rule or for want of a rule (wrong attachments).
    pub rejected: usize,
    /// Bonds let go because another handshake was open or the exchange timed out.
    pub dropped: usize,
    /// Times the module lost a bond it held and dissolved.
    pub dissolved: usize,
}

/// One Lily's controller.
pub struct LilyFirmware {
    rules: Arc<Ruleset>,
    robot: u32,
    rng: ChaCha8Rng,
    state: StateId,
    anchor: Option<u8>,
    entered: f64,
    links: [Link; N],
    started: bool,
    last_report: Option<f64>,
    counters: LilyCounters,
    /// Frames of the current step, encoded into the command's `radio_tx`.
    outbox: Outbox,
}

impl LilyFirmware {
    /// The firmware of robot `robot` (its unique id, also sent in offers) for a run seeded
    /// with `seed`; all its randomness comes from (seed, robot).
    pub fn new(rules: Arc<Ruleset>, robot: u32, seed: u64) -> Self {
        Self {
            state: rules.initial,
            rules,
            robot,
            rng: ChaCha8Rng::seed_from_u64(robot_seed(seed, robot)),
            anchor: None,
            entered: 0.0,
            links: [Link::Open; N],
            started: false,
            last_report: None,
            counters: LilyCounters::default(),
            outbox: Outbox::new(),
        }
    }

    /// Name of the current state.
    pub fn state_name(&self) -> &str {
        self.rules.state_name(self.state)
    }

    /// What the firmware has done so far.
    pub fn counters(&self) -> LilyCounters {
        self.counters
    }

    /// Relative face of catalogue face `face` (0 = anchor, counter-clockwise).
    fn relative(&self, face: usize) -> u8 {
        (face as u8 + FACES - self.anchor.unwrap_or(0)) % FACES
    }

    fn set_state(&mut self, state: StateId, time: f64) {
        if state != self.state {
            tracing::debug!(robot = self.robot, from = self.rules.state_name(self.state), to = self.rules.state_name(state), time, "state");
            self.state = state;
            self.entered = time;
        }
    }

    fn release(&mut self, face: usize, time: f64) {
        let [lo, hi] = self.rules.release_time;
        let until = time + if hi > lo { self.rng.gen_range(lo..hi) } else { lo };
        self.links[face] = Link::Cooling { until };
        self.forget_anchor_if_unbonded();
    }

    /// The anchor is the face of the first bond of the current structure: with no bond
    /// left, the next one sets it afresh.
    fn forget_anchor_if_unbonded(&mut self) {
        if !self.links.iter().any(|l| matches!(l, Link::Bonded { .. })) {
            self.anchor = None;
        }
    }

    fn release_all(&mut self, time: f64) {
        for face in 0..N {
            if matches!(self.links[face], Link::Bonded { .. } | Link::Handshake(_)) {
                self.release(face, time);
            }
        }
    }

    fn handshake_face(&self) -> Option<usize> {
        self.links.iter().position(|l| matches!(l, Link::Handshake(_)))
    }

    /// Lost bonds, aborted handshakes, expired cool-downs and new bonds.
    fn track_latches(&mut self, time: f64, latched: &[bool; N], outbox: &mut Outbox) {
        let mut lost = false;
        let mut new = Vec::new();
        for (face, (link, &on)) in self.links.iter_mut().zip(latched).enumerate() {
            match *link {
                Link::Bonded { .. } if !on => {
                    lost = true;
                    *link = Link::Open;
                }
                Link::Handshake(_) if !on => *link = Link::Open,
                Link::Cooling { until } if time >= until && !on => *link = Link::Open,
                Link::Open if on => new.push(face),
                _ => {}
            }
        }
        if lost {
            // The structure broke: fall apart rather than keep a stale state.
            self.counters.dissolved += 1;
            tracing::debug!(robot = self.robot, state = self.state_name(), time, "lost a bond: dissolving");
            self.release_all(time);
            self.forget_anchor_if_unbonded();
            self.set_state(self.rules.initial, time);
            for face in new {
                self.release(face, time);
            }
            return;
        }
        let busy = self.handshake_face().is_some();
        for (i, face) in new.into_iter().enumerate() {
            if busy || i > 0 {
                self.counters.dropped += 1;
                self.release(face, time);
            } else {
                let mine = Side { state: self.state, face: self.relative(face) };
                self.links[face] = Link::Handshake(Handshake { since: time, mine, partner: None, verdict: None, partner_accepted: false });
                outbox.to_face(face as u8, LilyMessage::Offer { state: mine.state, face: mine.face, robot: self.robot }.encode());
            }
        }
    }

    /// Latch-channel messages into the open handshake; radio commands returned.
    fn receive(&mut self, sensors: &LilySensors) -> Vec<String> {
        let frames = match sensors.frames() {
            Ok(frames) => frames,
            Err(error) => {
                tracing::warn!(robot = self.robot, %error, "unreadable radio bytes dropped");
                return Vec::new();
            }
        };
        let mut commands = Vec::new();
        for frame in frames {
            let message = match LilyMessage::decode(&frame.payload) {
                Ok(m) => m,
                Err(error) => {
                    tracing::warn!(robot = self.robot, %error, "unreadable message dropped");
                    continue;
                }
            };
            match (frame.port, message) {
                (Port::Radio, LilyMessage::Command(text)) => commands.push(text),
                (Port::Face(face), message) => {
                    let Some(Link::Handshake(hs)) = self.links.get_mut(face as usize) else { continue };
                    match message {
                        LilyMessage::Offer { state, face, robot } if hs.partner.is_none() => {
                            hs.partner = Some((Side { state, face }, robot))
                        }
                        LilyMessage::Accept { to } if to == self.robot => hs.partner_accepted = true,
                        _ => {}
                    }
                }
                _ => {}
            }
        }
        commands
    }

    /// Decide, commit or give up the open handshake.
    fn progress_handshake(&mut self, time: f64, outbox: &mut Outbox) {
        let Some(face) = self.handshake_face() else { return };
        let Link::Handshake(mut hs) = self.links[face] else { return };
        if let (None, Some((other, partner))) = (hs.verdict, hs.partner) {
            match self.rules.bond_decision(hs.mine, other, self.robot < partner) {
                BondDecision::Accept { next, rule } => {
                    tracing::trace!(robot = self.robot, partner, rule = %self.rules.bonds[rule].name, time, "accept");
                    hs.verdict = Some(next);
                    outbox.to_face(face as u8, LilyMessage::Accept { to: partner }.encode());
                }
                BondDecision::Release { rule } => {
                    let rule = rule.map_or("(no rule)", |i| self.rules.bonds[i].name.as_str());
                    tracing::debug!(robot = self.robot, partner, rule, time, "wrong attachment released");
                    self.counters.rejected += 1;
                    self.release(face, time);
                    return;
                }
            }
        }
        match (hs.verdict, hs.partner) {
            (Some(next), Some((_, partner))) if hs.partner_accepted => {
                self.counters.accepted += 1;
                self.anchor.get_or_insert(face as u8);
                self.links[face] = Link::Bonded { partner };
                self.set_state(next, time);
            }
            _ if time - hs.since > self.rules.handshake_timeout => {
                self.counters.dropped += 1;
                self.release(face, time);
            }
            _ => self.links[face] = Link::Handshake(hs),
        }
    }

    fn apply_timeout(&mut self, time: f64) {
        if self.handshake_face().is_some() {
            return;
        }
        let Some(rule) = self.rules.timeout_for(self.state) else { return };
        if time - self.entered >= rule.after {
            let (next, release) = (rule.next, rule.release);
            tracing::debug!(robot = self.robot, rule = %rule.name, time, "timeout");
            if release {
                self.release_all(time);
            }
            self.set_state(next, time);
        }
    }

    fn apply_command(&mut self, time: f64, command: &str) {
        let Some(rule) = self.rules.radio_rule(command, self.state) else { return };
        let (next, release) = (rule.next, rule.release);
        tracing::debug!(robot = self.robot, rule = %rule.name, time, "radio command");
        if release {
            self.release_all(time);
        } else if next != self.state {
            // The open handshake offered the old state: it cannot stand.
            if let Some(face) = self.handshake_face() {
                self.release(face, time);
            }
        }
        self.set_state(next, time);
    }

    fn latch_command(&self) -> Vec<bool> {
        let open = &self.rules.states[self.state as usize].open;
        (0..N)
            .map(|face| match self.links[face] {
                Link::Bonded { .. } | Link::Handshake(_) => true,
                Link::Cooling { .. } => false,
                Link::Open => open[self.relative(face) as usize],
            })
            .collect()
    }

    fn bonded_mask(&self) -> u8 {
        (0..N).filter(|&f| matches!(self.links[f], Link::Bonded { .. })).fold(0, |m, f| m | 1 << f)
    }
}

impl Firmware<Lily> for LilyFirmware {
    fn step(&mut self, time: f64, sensors: &LilySensors) -> LilyCommand {
        let Ok(latched) = <[bool; N]>::try_from(sensors.latched.as_slice()) else {
            tracing::warn!(robot = self.robot, faces = sensors.latched.len(), "a Lily reading needs 4 latch faces; holding");
            return LilyCommand::default();
        };
        let before = self.state;
        if !self.started {
            // A (re)started controller knows none of its bonds: let go of them all.
            self.started = true;
            self.entered = time;
            for face in (0..N).filter(|&f| latched[f]) {
                self.release(face, time);
            }
        }
        let mut outbox = std::mem::take(&mut self.outbox);
        self.track_latches(time, &latched, &mut outbox);
        let commands = self.receive(sensors);
        self.progress_handshake(time, &mut outbox);
        self.apply_timeout(time);
        for command in commands {
            self.apply_command(time, &command);
        }
        if self.state != before || self.last_report.is_none_or(|t| time - t >= self.rules.report_period) {
            outbox.to_base_station(LilyMessage::Report { state: self.state, bonded: self.bonded_mask() }.encode());
            self.last_report = Some(time);
        }
        // Lily payloads are a few bytes and faces are 0..4: encoding cannot fail.
        let radio_tx = outbox.drain_encoded().unwrap_or_else(|e| {
            tracing::error!(robot = self.robot, "outgoing frames dropped: {e}");
            Vec::new()
        });
        self.outbox = outbox;
        LilyCommand { latch: self.latch_command(), radio_tx }
    }

    fn status(&self) -> String {
        format!("{}:{}", self.rules.name, self.state_name())
    }
}

#[cfg(test)]
mod tests;
