//! The self-assembly message in a kilolib packet's nine bytes (72 bits, little endian):
//! id 16 | gradient 10 | state 3 | localised 1 | x 21 | y 21, positions in 1/2048 world
//! units (about 0.016 mm) within +-512 world units (16.6 m).

use super::self_assembly::State;
use flotilla_contract::kilobot::MESSAGE_BYTES;

/// Largest gradient a message carries; also "no gradient yet".
pub const GRADIENT_NONE: u16 = (1 << 10) - 1;
/// Position resolution, steps per world unit.
pub const POSITION_STEPS: f64 = 2048.0;
const COORD_BITS: u32 = 21;
const COORD_MAX: i64 = (1 << (COORD_BITS - 1)) - 1;
/// Largest |x| or |y| a message carries, world units (511.9995): farther positions are
/// clamped to it.
pub const POSITION_LIMIT: f64 = COORD_MAX as f64 / POSITION_STEPS;

/// What a robot tells its neighbours.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Broadcast {
    /// Sender id.
    pub uid: u16,
    /// Hop count from the source seed (GRADIENT_NONE: none yet).
    pub gradient: u16,
    /// Its state.
    pub state: State,
    /// Whether `position` is meaningful.
    pub localised: bool,
    /// Its believed position (x, y), world units.
    pub position: [f64; 2],
}

impl Broadcast {
    /// The nine bytes.
    pub fn encode(&self) -> [u8; MESSAGE_BYTES] {
        let coord = |v: f64| ((v * POSITION_STEPS).round() as i64).clamp(-COORD_MAX, COORD_MAX) as u128 & ((1 << COORD_BITS) - 1);
        let bits = u128::from(self.uid)
            | u128::from(self.gradient.min(GRADIENT_NONE)) << 16
            | (self.state as u128) << 26
            | u128::from(self.localised) << 29
            | coord(self.position[0]) << 30
            | coord(self.position[1]) << (30 + COORD_BITS);
        let mut out = [0; MESSAGE_BYTES];
        out.copy_from_slice(&bits.to_le_bytes()[..MESSAGE_BYTES]);
        out
    }

    /// The sender id of a message's nine bytes (without decoding the rest).
    pub fn uid_of(data: &[u8; MESSAGE_BYTES]) -> u16 {
        u16::from_le_bytes([data[0], data[1]])
    }

    /// The gradient field of nine bytes.
    pub fn gradient_of(data: &[u8; MESSAGE_BYTES]) -> u16 {
        u16::from_le_bytes([data[2], data[3]]) & 0x3FF
    }

    /// The state field of nine bytes (`None`: not a state).
    pub fn state_of(data: &[u8; MESSAGE_BYTES]) -> Option<State> {
        State::from_bits((data[3] >> 2) & 0x7)
    }

    /// The localised flag of nine bytes.
    pub fn localised_of(data: &[u8; MESSAGE_BYTES]) -> bool {
        (data[3] >> 5) & 1 == 1
    }

    /// The position field of nine bytes, world units.
    pub fn position_of(data: &[u8; MESSAGE_BYTES]) -> [f64; 2] {
        let mut wide = [0; 16];
        wide[..MESSAGE_BYTES].copy_from_slice(data);
        let bits = u128::from_le_bytes(wide);
        let coord = |shift: u32| {
            let raw = ((bits >> shift) & ((1 << COORD_BITS) - 1)) as i64;
            let signed = if raw >= 1 << (COORD_BITS - 1) { raw - (1 << COORD_BITS) } else { raw };
            signed as f64 / POSITION_STEPS
        };
        [coord(30), coord(30 + COORD_BITS)]
    }

    /// Reads nine bytes; `None` when the state field is not a state.
    pub fn decode(data: &[u8; MESSAGE_BYTES]) -> Option<Self> {
        Some(Self {
            uid: Self::uid_of(data),
            gradient: Self::gradient_of(data),
            state: Self::state_of(data)?,
            localised: Self::localised_of(data),
            position: Self::position_of(data),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_within_the_resolution() {
        for (x, y) in [(0.0, 0.0), (-3.25, 17.5), (511.9, -511.9), (1e-4, -2.0004)] {
            let b = Broadcast { uid: 65_000, gradient: 37, state: State::MoveWhileInside, localised: true, position: [x, y] };
            let back = Broadcast::decode(&b.encode()).unwrap();
            assert_eq!((back.uid, back.gradient, back.state, back.localised), (65_000, 37, State::MoveWhileInside, true));
            assert!((back.position[0] - x).abs() <= 0.5 / POSITION_STEPS && (back.position[1] - y).abs() <= 0.5 / POSITION_STEPS);
        }
        let far = Broadcast { uid: 1, gradient: 5000, state: State::Start, localised: false, position: [1e4, -1e4] };
        let back = Broadcast::decode(&far.encode()).unwrap();
        assert_eq!(back.gradient, GRADIENT_NONE);
        assert!(back.position[0] > 511.0 && back.position[1] < -511.0, "clamped: {back:?}");
        assert!(Broadcast::decode(&[0, 0, 0, 0b0001_1100, 0, 0, 0, 0, 0]).is_none(), "state 7 is not a state");
    }
}
