//! The robots' communication: the inductive latch channel between latched neighbours and
//! the radio link to the base station, both carried as framed bytes in
//! `RobotCommand::radio_tx` / `Sensors::radio_rx`: `[port u8 (face; 255 = radio)][length u16 LE][payload]`.

mod frame;
mod mailroom;

pub use frame::{decode, encode, Frame, FrameError, Outbox, Port};
pub use mailroom::Mailroom;
