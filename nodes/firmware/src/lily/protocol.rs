//! Messages of the Lily firmware: over the latch channel during a bond handshake, and over
//! the radio between the modules and the base station. One message per frame payload.

use super::ruleset::StateId;

/// A Lily message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LilyMessage {
    /// Latch channel: "I am `robot`, in `state`, and our bond is on my relative `face`".
    Offer {
        /// Sender's state.
        state: StateId,
        /// The bond's face relative to the sender's anchor.
        face: u8,
        /// Sender's robot id.
        robot: u32,
    },
    /// Latch channel: the sender keeps the bond with robot `to`.
    Accept {
        /// The partner the acceptance is for.
        to: u32,
    },
    /// Radio up: the sender's state and which faces hold a bond (bit k = face k).
    Report {
        /// Sender's state.
        state: StateId,
        /// Bit mask of bonded faces.
        bonded: u8,
    },
    /// Radio down: a base-station command (text matched by the ruleset's radio rules).
    Command(String),
}

/// Bytes that are not a Lily message.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum MessageError {
    /// Unknown first byte.
    #[error("unknown Lily message tag {tag}")]
    UnknownTag {
        /// The tag byte.
        tag: u8,
    },
    /// Wrong length for the tag.
    #[error("Lily message with tag {tag} has {len} bytes, expected {expected}")]
    BadLength {
        /// The tag byte.
        tag: u8,
        /// Bytes received.
        len: usize,
        /// Bytes that tag needs.
        expected: usize,
    },
    /// A command that is not UTF-8.
    #[error("Lily command is not UTF-8")]
    NotUtf8,
    /// Nothing at all.
    #[error("empty Lily message")]
    Empty,
}

const OFFER: u8 = 1;
const ACCEPT: u8 = 2;
const REPORT: u8 = 3;
const COMMAND: u8 = 4;

impl LilyMessage {
    /// Wire form: a tag byte, then little-endian fields.
    pub fn encode(&self) -> Vec<u8> {
        match self {
            LilyMessage::Offer { state, face, robot } => {
                let mut out = vec![OFFER, *state, *face];
                out.extend_from_slice(&robot.to_le_bytes());
                out
            }
            LilyMessage::Accept { to } => {
                let mut out = vec![ACCEPT];
                out.extend_from_slice(&to.to_le_bytes());
                out
            }
            LilyMessage::Report { state, bonded } => vec![REPORT, *state, *bonded],
            LilyMessage::Command(text) => {
                let mut out = vec![COMMAND];
                out.extend_from_slice(text.as_bytes());
                out
            }
        }
    }

    /// Parses one message.
    pub fn decode(bytes: &[u8]) -> Result<Self, MessageError> {
        let (&tag, body) = bytes.split_first().ok_or(MessageError::Empty)?;
        let expect = |expected: usize| {
            if bytes.len() == expected {
                Ok(())
            } else {
                Err(MessageError::BadLength { tag, len: bytes.len(), expected })
            }
        };
        let u32_at = |i: usize| u32::from_le_bytes([body[i], body[i + 1], body[i + 2], body[i + 3]]);
        match tag {
            OFFER => {
                expect(7)?;
                Ok(LilyMessage::Offer { state: body[0], face: body[1], robot: u32_at(2) })
            }
            ACCEPT => {
                expect(5)?;
                Ok(LilyMessage::Accept { to: u32_at(0) })
            }
            REPORT => {
                expect(3)?;
                Ok(LilyMessage::Report { state: body[0], bonded: body[1] })
            }
            COMMAND => String::from_utf8(body.to_vec()).map(LilyMessage::Command).map_err(|_| MessageError::NotUtf8),
            tag => Err(MessageError::UnknownTag { tag }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wire_forms_by_hand() {
        let offer = LilyMessage::Offer { state: 3, face: 2, robot: 0x0102_0304 };
        assert_eq!(offer.encode(), vec![1, 3, 2, 4, 3, 2, 1]);
        assert_eq!(LilyMessage::Accept { to: 7 }.encode(), vec![2, 7, 0, 0, 0]);
        assert_eq!(LilyMessage::Report { state: 5, bonded: 0b1010 }.encode(), vec![3, 5, 10]);
        assert_eq!(LilyMessage::Command("go".into()).encode(), vec![4, b'g', b'o']);
        for m in
            [offer, LilyMessage::Accept { to: 7 }, LilyMessage::Report { state: 1, bonded: 1 }, LilyMessage::Command("dissolve".into())]
        {
            assert_eq!(LilyMessage::decode(&m.encode()), Ok(m));
        }
    }

    #[test]
    fn bad_bytes_are_named() {
        assert_eq!(LilyMessage::decode(&[]), Err(MessageError::Empty));
        assert_eq!(LilyMessage::decode(&[9]), Err(MessageError::UnknownTag { tag: 9 }));
        assert_eq!(LilyMessage::decode(&[1, 0, 0]), Err(MessageError::BadLength { tag: 1, len: 3, expected: 7 }));
        assert_eq!(LilyMessage::decode(&[4, 0xff]), Err(MessageError::NotUtf8));
    }
}
