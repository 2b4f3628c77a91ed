//! A kilolib-shaped programming interface over the contract, so a Kilobot programmer
//! recognises their program: `setup` once, `loop` every tick, `message_rx` for every
//! message heard (with its distance measurement), `message_tx` for the message to send,
//! `set_motors`, `set_color`, `kilo_ticks`, `kilo_uid`, `rand_soft` / `rand_hard`,
//! `get_ambientlight`, `estimate_distance`.
//!
//! Differences from the C library, on purpose: the program is a Rust trait
//! ([`KiloProgram`]) instead of callbacks registered in `main`; `loop` is spelled
//! [`KiloProgram::main_loop`] (a Rust keyword); [`estimate_distance`] returns millimetres as
//! `f64` (kilolib rounds to whole millimetres, too coarse for 0.325 mm steps).

use flotilla_contract::kilobot::{Kilobot, KilobotCommand, KilobotSensors, MESSAGE_BYTES};
use flotilla_contract::Firmware;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// A full-duty motor setting (kilolib's 0..255 scale).
pub const MOTOR_ON: u8 = 255;

/// One message (kilolib `message_t`: nine data bytes; type and CRC are the transport's).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Message {
    /// The data bytes.
    pub data: [u8; MESSAGE_BYTES],
}

/// The distance measurement that came with a message (kilolib `distance_measurement_t`).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct DistanceMeasurement {
    /// Estimated distance to the sender, mm.
    mm: f64,
}

/// Distance to the sender of a message, mm (kilolib `estimate_distance`).
pub fn estimate_distance(d: &DistanceMeasurement) -> f64 {
    d.mm
}

/// An LED colour, each channel 0..3 (kilolib `RGB(r, g, b)`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Rgb {
    /// Red, 0..3.
    pub r: u8,
    /// Green, 0..3.
    pub g: u8,
    /// Blue, 0..3.
    pub b: u8,
}

/// kilolib's `RGB(r, g, b)` (each 0..3; larger values are cut to 3).
#[allow(non_snake_case)]
pub const fn RGB(r: u8, g: u8, b: u8) -> Rgb {
    const fn cut(v: u8) -> u8 {
        if v > 3 {
            3
        } else {
            v
        }
    }
    Rgb { r: cut(r), g: cut(g), b: cut(b) }
}

/// The robot as a program sees it: clock, id, motors, LED, light, random numbers.
#[derive(Clone, Debug)]
pub struct Kilo {
    uid: u16,
    ticks: u32,
    motors: (u8, u8),
    color: Rgb,
    light: f64,
    /// Seed of `rng`.
    seed: u64,
    /// Boxed: its 300-odd bytes of block buffer, rarely used, would otherwise double the
    /// bytes a host stepping thousands of robots pulls into cache per robot and tick. Made
    /// at the first random number (the same stream): a program that draws none (the
    /// self-assembly program) leaves no box between its robot's tables and the next
    /// robot's, which a host then finds closer together.
    rng: Option<Box<ChaCha8Rng>>,
}

impl Kilo {
    /// Ticks since power-on (kilolib `kilo_ticks`).
    pub fn kilo_ticks(&self) -> u32 {
        self.ticks
    }

    /// The robot's unique id (kilolib `kilo_uid`).
    pub fn kilo_uid(&self) -> u16 {
        self.uid
    }

    /// Motor duties, 0..255 each (kilolib `set_motors(left, right)`; left alone turns
    /// clockwise, right alone counter-clockwise, both go straight).
    pub fn set_motors(&mut self, left: u8, right: u8) {
        self.motors = (left, right);
    }

    /// The LED colour (kilolib `set_color`).
    pub fn set_color(&mut self, color: Rgb) {
        self.color = color;
    }

    /// A pseudo-random byte (kilolib `rand_soft`).
    pub fn rand_soft(&mut self) -> u8 {
        self.rng().gen()
    }

    /// A random byte (kilolib `rand_hard`; the same seeded stream here, so runs repeat).
    pub fn rand_hard(&mut self) -> u8 {
        self.rng().gen()
    }

    fn rng(&mut self) -> &mut ChaCha8Rng {
        let seed = self.seed;
        self.rng.get_or_insert_with(|| Box::new(ChaCha8Rng::seed_from_u64(seed)))
    }

    /// Ambient light, 0..1023 (kilolib `get_ambientlight`).
    pub fn get_ambientlight(&self) -> i16 {
        (self.light.clamp(0.0, 1.0) * 1023.0).round() as i16
    }
}

/// A Kilobot program, the way kilolib structures one.
pub trait KiloProgram: Send {
    /// Once, before the first loop (kilolib `setup`).
    fn setup(&mut self, kilo: &mut Kilo);
    /// Every tick (kilolib `loop`), after the tick's messages were received.
    fn main_loop(&mut self, kilo: &mut Kilo);
    /// A message was heard (kilolib `kilo_message_rx`).
    fn message_rx(&mut self, kilo: &mut Kilo, message: &Message, distance: &DistanceMeasurement);
    /// The message to send from now on; `None` keeps quiet (kilolib `kilo_message_tx`).
    fn message_tx(&mut self, kilo: &mut Kilo) -> Option<Message>;
    /// The program's state in a few words.
    fn status(&self) -> String;
    /// A hint from a host that steps many robots: this robot's next tick comes soon, so
    /// the program may ask the processor to load the state it will touch. Changes nothing
    /// the program does or knows (default: nothing).
    fn prefetch(&self) {}
}

/// Runs a [`KiloProgram`] as a robot's [`Firmware`]: each reading becomes `message_rx`
/// calls and one `loop`, and the motors, LED and outgoing message become the command.
pub struct KilobotFirmware<P> {
    kilo: Kilo,
    program: P,
    started: bool,
}

impl<P: KiloProgram> KilobotFirmware<P> {
    /// Robot `uid` running `program`, its random numbers seeded with `seed`.
    pub fn new(uid: u16, seed: u64, program: P) -> Self {
        let kilo = Kilo { uid, ticks: 0, motors: (0, 0), color: Rgb::default(), light: 0.0, seed, rng: None };
        Self { kilo, program, started: false }
    }

    /// The program.
    pub fn program(&self) -> &P {
        &self.program
    }

    /// The program, to hand it inputs a host provides (e.g. a simulation-only oracle).
    pub fn program_mut(&mut self) -> &mut P {
        &mut self.program
    }

    /// Hint that this robot's next tick comes soon (see [`KiloProgram::prefetch`]).
    pub fn prefetch(&self) {
        self.program.prefetch();
    }

    /// Hint that this robot's tick comes after the next one: asks the processor to load
    /// this firmware's own bytes (not what they point to: reading a pointer from memory not
    /// yet loaded would stall), so that [`Self::prefetch`] a robot later finds them loaded.
    /// Changes nothing the program does.
    pub fn prefetch_early(&self) {
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
            let bytes = (self as *const Self).cast::<i8>();
            // SAFETY: SSE is part of every x86_64 target, and a prefetch reads no memory
            // the program can see (it only hints the cache; any address is allowed).
            unsafe {
                for offset in (0..std::mem::size_of::<Self>()).step_by(64) {
                    _mm_prefetch::<_MM_HINT_T0>(bytes.wrapping_add(offset));
                }
            }
        }
    }

    /// The robot as the program sees it.
    pub fn kilo(&self) -> &Kilo {
        &self.kilo
    }

    /// One tick into `command` (its message buffer is reused: no allocation once grown).
    pub fn step_into(&mut self, sensors: &KilobotSensors, command: &mut KilobotCommand) {
        self.begin_tick(sensors.ticks, sensors.light);
        for m in &sensors.messages {
            self.receive(&m.payload, m.distance);
        }
        self.end_tick(command);
    }

    /// The start of a tick whose messages a host hands over one by one with
    /// [`Self::receive`] (no reading buffer), then [`Self::end_tick`]: the same tick as
    /// [`Self::step_into`] with a reading of `ticks`, `light` (0..1) and those messages.
    pub fn begin_tick(&mut self, ticks: u32, light: f64) {
        self.kilo.ticks = ticks;
        self.kilo.light = light;
        if !self.started {
            self.started = true;
            self.program.setup(&mut self.kilo);
        }
    }

    /// A message heard in this tick, its sender `distance` m away (measured). A message
    /// without a finite distance (only a malformed reading has one) is not heard: one NaN
    /// distance left a robot's position estimate NaN for good.
    #[inline]
    pub fn receive(&mut self, payload: &[u8; MESSAGE_BYTES], distance: f64) {
        if !distance.is_finite() {
            return;
        }
        let distance = DistanceMeasurement { mm: distance * 1e3 };
        self.program.message_rx(&mut self.kilo, &Message { data: *payload }, &distance);
    }

    /// The end of the tick: `loop`, then the command (motors, LED, message to send).
    pub fn end_tick(&mut self, command: &mut KilobotCommand) {
        self.program.main_loop(&mut self.kilo);
        let tx = self.program.message_tx(&mut self.kilo);
        command.motor_left = f64::from(self.kilo.motors.0) / 255.0;
        command.motor_right = f64::from(self.kilo.motors.1) / 255.0;
        let c = self.kilo.color;
        command.led = [f64::from(c.r) / 3.0, f64::from(c.g) / 3.0, f64::from(c.b) / 3.0];
        command.message.clear();
        if let Some(m) = tx {
            command.message.extend_from_slice(&m.data);
        }
    }
}

impl<P: KiloProgram> Firmware<Kilobot> for KilobotFirmware<P> {
    fn step(&mut self, _time: f64, sensors: &KilobotSensors) -> KilobotCommand {
        let mut command = KilobotCommand::default();
        self.step_into(sensors, &mut command);
        command
    }

    fn status(&self) -> String {
        format!("kilobot {}: {}", self.kilo.uid, self.program.status())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use flotilla_contract::kilobot::IrMessage;

    /// Blinks and counts: the kilolib "hello" pattern.
    struct Counter {
        heard: Vec<(u8, f64)>,
        loops: u32,
    }

    impl KiloProgram for Counter {
        fn setup(&mut self, kilo: &mut Kilo) {
            kilo.set_color(RGB(0, 9, 0));
        }
        fn main_loop(&mut self, kilo: &mut Kilo) {
            self.loops += 1;
            if kilo.kilo_ticks() > 10 {
                kilo.set_motors(MOTOR_ON, 0);
            }
        }
        fn message_rx(&mut self, _kilo: &mut Kilo, message: &Message, distance: &DistanceMeasurement) {
            self.heard.push((message.data[0], estimate_distance(distance)));
        }
        fn message_tx(&mut self, kilo: &mut Kilo) -> Option<Message> {
            let mut m = Message::default();
            m.data[0] = kilo.kilo_uid() as u8;
            Some(m)
        }
        fn status(&self) -> String {
            format!("{} loops", self.loops)
        }
    }

    #[test]
    fn readings_become_callbacks_and_the_kilo_becomes_a_command() {
        let mut fw = KilobotFirmware::new(42, 1, Counter { heard: Vec::new(), loops: 0 });
        let mut payload = [0; MESSAGE_BYTES];
        payload[0] = 5;
        let sensors = KilobotSensors { ticks: 3, messages: vec![IrMessage { payload, distance: 0.05 }], ..KilobotSensors::default() };
        let c = fw.step(0.0, &sensors);
        assert_eq!(c.led, [0.0, 1.0, 0.0]);
        assert_eq!((c.motor_left, c.motor_right), (0.0, 0.0));
        assert_eq!(c.message[0], 42);
        assert_eq!(fw.program().heard, vec![(5, 50.0)]);
        let c = fw.step(0.1, &KilobotSensors { ticks: 11, ..KilobotSensors::default() });
        assert_eq!((c.motor_left, c.motor_right), (1.0, 0.0));
        assert_eq!(fw.status(), "kilobot 42: 2 loops");
        let mut a = KilobotFirmware::new(1, 7, Counter { heard: Vec::new(), loops: 0 });
        let mut b = KilobotFirmware::new(1, 7, Counter { heard: Vec::new(), loops: 0 });
        assert_eq!((0..5).map(|_| a.kilo.rand_soft()).collect::<Vec<_>>(), (0..5).map(|_| b.kilo.rand_hard()).collect::<Vec<_>>());
        assert_eq!(a.kilo().get_ambientlight(), 0);
    }

    #[test]
    fn random_bytes_are_the_seeded_stream_though_made_at_the_first_draw() {
        let mut fw = KilobotFirmware::new(3, 11, Counter { heard: Vec::new(), loops: 0 });
        let mut reference = ChaCha8Rng::seed_from_u64(11);
        let expected: Vec<u8> = (0..40).map(|_| reference.gen()).collect();
        let drawn: Vec<u8> = (0..40).map(|k| if k % 2 == 0 { fw.kilo.rand_soft() } else { fw.kilo.rand_hard() }).collect();
        assert_eq!(drawn, expected);
    }
}
