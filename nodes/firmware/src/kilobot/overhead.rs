//! The overhead controller (OHC): the infrared transmitter Kilobot users hold above the
//! table to start, pause and configure every robot at once. kilolib acts on its system
//! messages before the user program sees anything: a robot that waits for `RUN` neither
//! runs `setup`/`loop` nor moves or talks; `PAUSE` stops the program where it is (motors
//! off, silent, state kept) until the next `RUN`. A custom broadcast goes to the program
//! ([`OverheadProgram::overhead_rx`]); the self-assembly program reads it as a
//! [`ParameterMessage`].

use super::kilolib::{KiloProgram, KilobotFirmware};
use super::self_assembly::{ParamError, SelfAssembly};
use flotilla_contract::kilobot::{Kilobot, KilobotCommand, KilobotSensors, Overhead, MESSAGE_BYTES};
use flotilla_contract::Firmware;

/// A program that listens to the overhead controller's custom broadcasts.
pub trait OverheadProgram: KiloProgram {
    /// A custom broadcast arrived (kilolib delivers it with the OHC's message type).
    fn overhead_rx(&mut self, data: &[u8; MESSAGE_BYTES]);
}

/// A parameter broadcast of the self-assembly program: byte 0 names the parameter
/// (1 DESIRED_DISTANCE, 2 G, 3 NEIGHBOR_RADIUS), bytes 1..5 its value as a little-endian
/// `f32` in world units; the other bytes are 0.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ParameterMessage {
    /// DESIRED_DISTANCE, world units.
    DesiredDistance(f32),
    /// G, the gradient distance, world units.
    GradientDistance(f32),
    /// NEIGHBOR_RADIUS, world units.
    NeighborRadius(f32),
}

impl ParameterMessage {
    /// The nine data bytes.
    pub fn encode(self) -> [u8; MESSAGE_BYTES] {
        let (id, value) = match self {
            ParameterMessage::DesiredDistance(v) => (1, v),
            ParameterMessage::GradientDistance(v) => (2, v),
            ParameterMessage::NeighborRadius(v) => (3, v),
        };
        let mut data = [0; MESSAGE_BYTES];
        data[0] = id;
        data[1..5].copy_from_slice(&value.to_le_bytes());
        data
    }

    /// Reads the nine data bytes; `None` for an unknown parameter.
    pub fn decode(data: &[u8; MESSAGE_BYTES]) -> Option<Self> {
        let value = f32::from_le_bytes([data[1], data[2], data[3], data[4]]);
        match data[0] {
            1 => Some(ParameterMessage::DesiredDistance(value)),
            2 => Some(ParameterMessage::GradientDistance(value)),
            3 => Some(ParameterMessage::NeighborRadius(value)),
            _ => None,
        }
    }
}

impl SelfAssembly {
    /// Applies a parameter broadcast; an unknown parameter or a value out of range is
    /// refused and the parameters are kept.
    pub fn apply_parameter(&mut self, message: ParameterMessage) -> Result<(), ParamError> {
        let mut params = *self.params();
        match message {
            ParameterMessage::DesiredDistance(v) => params.desired_distance = f64::from(v),
            ParameterMessage::GradientDistance(v) => params.gradient_distance = f64::from(v),
            ParameterMessage::NeighborRadius(v) => params.neighbor_radius = f64::from(v),
        }
        self.set_params(params)
    }
}

impl OverheadProgram for SelfAssembly {
    fn overhead_rx(&mut self, data: &[u8; MESSAGE_BYTES]) {
        // A robot has no one to report a bad broadcast to: it keeps its parameters, as a
        // Kilobot ignores a message it does not understand.
        if let Some(message) = ParameterMessage::decode(data) {
            let _refused = self.apply_parameter(message);
        }
    }
}

/// A Kilobot program run under kilolib's overhead-controller states: idle until `RUN`
/// (when `wait_for_run`), running, paused by `PAUSE`.
pub struct OverheadControlled<P> {
    firmware: KilobotFirmware<P>,
    running: bool,
}

impl<P: OverheadProgram> OverheadControlled<P> {
    /// `firmware`, started at once or (`wait_for_run`) idle until the first `RUN`.
    pub fn new(firmware: KilobotFirmware<P>, wait_for_run: bool) -> Self {
        Self { firmware, running: !wait_for_run }
    }

    /// Whether the program runs (not idle or paused).
    pub fn running(&self) -> bool {
        self.running
    }

    /// The firmware.
    pub fn firmware(&self) -> &KilobotFirmware<P> {
        &self.firmware
    }

    /// The program.
    pub fn program(&self) -> &P {
        self.firmware.program()
    }

    /// One tick into `command` (its buffer reused). An idle or paused robot stands still,
    /// is silent and shows its LED off.
    pub fn step_into(&mut self, sensors: &KilobotSensors, command: &mut KilobotCommand) {
        match sensors.overhead {
            Some(Overhead::Run) => self.running = true,
            Some(Overhead::Pause) => self.running = false,
            Some(Overhead::Custom(data)) => self.firmware.program_mut().overhead_rx(&data),
            None => {}
        }
        if self.running {
            self.firmware.step_into(sensors, command);
        } else {
            command.motor_left = 0.0;
            command.motor_right = 0.0;
            command.led = [0.0; 3];
            command.message.clear();
        }
    }
}

impl<P: OverheadProgram> Firmware<Kilobot> for OverheadControlled<P> {
    fn step(&mut self, _time: f64, sensors: &KilobotSensors) -> KilobotCommand {
        let mut command = KilobotCommand::default();
        self.step_into(sensors, &mut command);
        command
    }

    fn status(&self) -> String {
        let mode = if self.running { "running" } else { "idle" };
        format!("{} ({mode})", self.firmware.status())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kilobot::{Role, SelfAssemblyParams, Shape, State};
    use std::sync::Arc;

    fn robot(wait: bool) -> OverheadControlled<SelfAssembly> {
        let shape = Arc::new(Shape::rectangle(4.0, 4.0, 0.1).unwrap());
        let params = SelfAssemblyParams { startup_time: 0, ..SelfAssemblyParams::default() };
        let program = SelfAssembly::new(params, shape, Role::Robot).unwrap();
        OverheadControlled::new(KilobotFirmware::new(7, 1, program), wait)
    }

    fn tick(fw: &mut OverheadControlled<SelfAssembly>, ticks: u32, overhead: Option<Overhead>) -> KilobotCommand {
        let mut c = KilobotCommand::default();
        fw.step_into(&KilobotSensors { ticks, overhead, ..KilobotSensors::default() }, &mut c);
        c
    }

    #[test]
    fn a_waiting_robot_does_nothing_until_run_and_pause_silences_it() {
        let mut fw = robot(true);
        let idle = tick(&mut fw, 1, None);
        assert!(!fw.running() && idle.message.is_empty() && idle.led == [0.0; 3]);
        // Not set up: still in its first state with no tick seen.
        assert_eq!(fw.program().state(), State::Start);
        let run = tick(&mut fw, 2, Some(Overhead::Run));
        assert!(fw.running() && !run.message.is_empty(), "{run:?}");
        let paused = tick(&mut fw, 3, Some(Overhead::Pause));
        assert!(!fw.running() && paused.message.is_empty() && paused.motor_left == 0.0 && paused.motor_right == 0.0);
        assert!(tick(&mut fw, 4, None).message.is_empty());
        assert!(!tick(&mut fw, 5, Some(Overhead::Run)).message.is_empty());
        assert!(robot(false).running());
        assert!(fw.status().ends_with("(running)"), "{}", fw.status());
    }

    #[test]
    fn parameter_broadcasts_set_parameters_and_bad_ones_are_ignored() {
        let mut fw = robot(false);
        for m in [ParameterMessage::DesiredDistance(1.25), ParameterMessage::GradientDistance(2.0), ParameterMessage::NeighborRadius(5.0)] {
            assert_eq!(ParameterMessage::decode(&m.encode()), Some(m));
        }
        tick(&mut fw, 1, Some(Overhead::Custom(ParameterMessage::DesiredDistance(1.25).encode())));
        assert_eq!(fw.program().params().desired_distance, 1.25);
        // Out of range (a distance of -1) and unknown (id 9): kept.
        tick(&mut fw, 2, Some(Overhead::Custom(ParameterMessage::DesiredDistance(-1.0).encode())));
        tick(&mut fw, 3, Some(Overhead::Custom([9, 0, 0, 128, 63, 0, 0, 0, 0])));
        assert_eq!(fw.program().params().desired_distance, 1.25);
        let mut program =
            SelfAssembly::new(SelfAssemblyParams::default(), Arc::new(Shape::rectangle(2.0, 2.0, 0.1).unwrap()), Role::Robot).unwrap();
        assert!(program.apply_parameter(ParameterMessage::GradientDistance(0.0)).unwrap_err().to_string().contains("gradient_distance"));
    }
}
