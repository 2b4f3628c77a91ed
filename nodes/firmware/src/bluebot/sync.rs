//! Mirollo-Strogatz synchrony (SPEC 3): a robot counts `n` up to the period `t_f` (15 s)
//! and then lights its LEDs for 2 s; when it sees a neighbour's flash begin it jumps
//! ahead, `n <- min(t_f, n + f(n))`, with `f(n) = coupling t_f (n / t_f)^exponent`
//! increasing and concave down for 0 < exponent <= 1. A robot that reaches `t_f` by a jump
//! flashes at once. While flashing it ignores flashes (it has just fired). The robot holds
//! its depth and does not swim.

use super::motion::Gait;
use flotilla_contract::bluebot::{Bluebot, BluebotCommand, BluebotSensors, RED_RATIO};
use flotilla_contract::Firmware;
use serde::{Deserialize, Serialize};

/// Synchrony parameters.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct SyncParams {
    /// Flash period t_f, s.
    pub period: f64,
    /// How long a flash lasts, s.
    pub flash: f64,
    /// Jump at n = t_f over t_f, 1 (the paper's `n + n`: 1).
    pub coupling: f64,
    /// Exponent of the jump function, 1 (in (0, 1]: concave down).
    pub exponent: f64,
    /// Depth held, m.
    pub depth: f64,
}

impl Default for SyncParams {
    fn default() -> Self {
        Self { period: 15.0, flash: 2.0, coupling: 1.0, exponent: 1.0, depth: 0.4 }
    }
}

impl SyncParams {
    /// Checks every parameter is in its range; the message names the first that is not.
    pub fn validate(&self) -> Result<(), String> {
        if !(self.period > 0.0 && self.period.is_finite()) {
            return Err(format!("sync period must be > 0 s, got {}", self.period));
        }
        if !(self.flash > 0.0 && self.flash < self.period) {
            return Err(format!("sync flash must be in (0, period = {} s) s, got {}", self.period, self.flash));
        }
        if !(self.coupling > 0.0 && self.coupling.is_finite()) {
            return Err(format!("sync coupling must be > 0, got {}", self.coupling));
        }
        if !(self.exponent > 0.0 && self.exponent <= 1.0) {
            return Err(format!("sync exponent must be in (0, 1] (f concave down), got {}", self.exponent));
        }
        if !(0.0..=5.0).contains(&self.depth) {
            return Err(format!("sync depth must be in [0, 5] m, got {}", self.depth));
        }
        Ok(())
    }

    /// The jump f(n), s.
    pub fn jump(&self, n: f64) -> f64 {
        self.coupling * self.period * (n.max(0.0) / self.period).powf(self.exponent)
    }
}

/// The synchrony firmware of one robot.
#[derive(Clone, Debug)]
pub struct SyncFirmware {
    params: SyncParams,
    gait: Gait,
    /// Counter, s.
    n: f64,
    /// When the current flash ends, s (None when dark).
    flash_until: Option<f64>,
    last_time: Option<f64>,
    /// Blue blobs in the previous reading.
    last_lights: usize,
    flashes: u32,
}

impl SyncFirmware {
    /// A robot whose counter starts at `start` s (its initial phase).
    pub fn new(params: SyncParams, start: f64) -> Self {
        Self {
            params,
            gait: Gait::default(),
            n: start.clamp(0.0, params.period),
            flash_until: None,
            last_time: None,
            last_lights: 0,
            flashes: 0,
        }
    }

    /// The counter, s.
    pub fn counter(&self) -> f64 {
        self.n
    }

    /// Whether the LEDs are lit.
    pub fn flashing(&self) -> bool {
        self.flash_until.is_some()
    }
}

impl Firmware<Bluebot> for SyncFirmware {
    fn step(&mut self, time: f64, sensors: &BluebotSensors) -> BluebotCommand {
        let dt = self.last_time.map_or(0.0, |t| (time - t).max(0.0));
        self.last_time = Some(time);
        let lights = sensors.blobs.iter().filter(|b| b.red_ratio <= RED_RATIO).count();
        let flash_began = lights > self.last_lights;
        self.last_lights = lights;
        match self.flash_until {
            Some(end) if time >= end => self.flash_until = None,
            Some(_) => {}
            None => {
                self.n += dt;
                if flash_began {
                    self.n = (self.n + self.params.jump(self.n)).min(self.params.period);
                }
                if self.n >= self.params.period {
                    self.n = 0.0;
                    self.flash_until = Some(time + self.params.flash);
                    self.flashes += 1;
                }
            }
        }
        BluebotCommand {
            dorsal: self.gait.dorsal(sensors.depth, self.params.depth),
            leds: self.flash_until.is_some(),
            ..BluebotCommand::default()
        }
    }

    fn status(&self) -> String {
        format!(
            "sync: n = {:.1} s of {:.0} s, {} flashes{}",
            self.n,
            self.params.period,
            self.flashes,
            if self.flashing() { ", flashing" } else { "" }
        )
    }

    fn set_parameter(&mut self, name: &str, value: f64) -> Result<(), String> {
        self.params = self.params.with(name, value)?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use flotilla_contract::bluebot::Blob;

    fn seeing(lights: usize, depth: f64) -> BluebotSensors {
        BluebotSensors { depth, blobs: vec![Blob::default(); lights], ..Default::default() }
    }

    #[test]
    fn counts_to_the_period_then_flashes_for_two_seconds() {
        let mut fw = SyncFirmware::new(SyncParams::default(), 14.0);
        assert!(!fw.step(0.0, &seeing(0, 0.4)).leds);
        assert!(!fw.step(0.5, &seeing(0, 0.4)).leds);
        assert!(fw.step(1.0, &seeing(0, 0.4)).leds, "n reached 15 s");
        assert!(fw.step(2.5, &seeing(0, 0.4)).leds);
        assert!(!fw.step(3.0, &seeing(0, 0.4)).leds, "2 s later it is dark");
        assert!(fw.counter() < 1e-12);
    }

    #[test]
    fn a_seen_flash_pulls_the_counter_ahead_by_f_of_n() {
        let p = SyncParams::default();
        assert_eq!(p.jump(4.0), 4.0);
        let concave = SyncParams { exponent: 0.5, ..p };
        assert!(concave.jump(4.0) > 4.0 && concave.jump(15.0) == 15.0);
        assert!(SyncParams { exponent: 1.5, ..p }.validate().unwrap_err().contains("concave"));
        let mut fw = SyncFirmware::new(p, 4.0);
        fw.step(0.0, &seeing(0, 0.4));
        // 0.5 s later two LEDs appear: n = 4.5 + 4.5 = 9 s.
        fw.step(0.5, &seeing(2, 0.4));
        assert!((fw.counter() - 9.0).abs() < 1e-12, "{}", fw.counter());
        // The same flash seen on: no second jump.
        fw.step(1.0, &seeing(2, 0.4));
        assert!((fw.counter() - 9.5).abs() < 1e-12);
        // Past half the period a flash fires it at once.
        let mut late = SyncFirmware::new(p, 9.0);
        late.step(0.0, &seeing(0, 0.4));
        assert!(late.step(0.5, &seeing(2, 0.4)).leds);
    }
}
