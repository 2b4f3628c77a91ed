//! Byte framing of the Lily radio: `LilyCommand::radio_tx` and `LilySensors::radio_rx`.
//!
//! A stream is a sequence of frames `[port: u8][length: u16 little-endian][payload]`.
//! Port 0..=254 is a latch face (inductive channel to the latched neighbour; on receipt,
//! the face the message arrived on), 255 the radio link to or from the base station.

use serde::{Deserialize, Serialize};

/// Port byte of the radio link.
const RADIO_PORT: u8 = 255;
/// Header bytes before each payload.
const HEADER_LEN: usize = 3;

/// Where a frame goes (outgoing) or came from (incoming).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Port {
    /// A latch face, by catalogue face index.
    Face(u8),
    /// The radio link to or from the base station.
    Radio,
}

impl Port {
    fn byte(self) -> Result<u8, FrameError> {
        match self {
            Port::Face(f) if f == RADIO_PORT => Err(FrameError::FaceOutOfRange { face: f }),
            Port::Face(f) => Ok(f),
            Port::Radio => Ok(RADIO_PORT),
        }
    }

    fn from_byte(byte: u8) -> Self {
        if byte == RADIO_PORT {
            Port::Radio
        } else {
            Port::Face(byte)
        }
    }
}

/// One message on one port.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Frame {
    /// Destination (outgoing) or source (incoming) port.
    pub port: Port,
    /// Message bytes (at most 65535).
    pub payload: Vec<u8>,
}

/// A byte stream that is not a valid frame sequence, or a frame that cannot be encoded.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum FrameError {
    /// The stream ends inside a header or payload.
    #[error("radio bytes: frame at offset {offset} is truncated (needs {needed} bytes, {available} left)")]
    Truncated {
        /// Byte offset of the frame start.
        offset: usize,
        /// Bytes the frame claims.
        needed: usize,
        /// Bytes left in the stream.
        available: usize,
    },
    /// The payload does not fit the 16-bit length field.
    #[error("radio frame payload of {len} bytes exceeds 65535")]
    TooLong {
        /// Payload length, bytes.
        len: usize,
    },
    /// Face index 255 is reserved for the radio port.
    #[error("face {face} cannot be addressed (255 is the radio port)")]
    FaceOutOfRange {
        /// The face asked for.
        face: u8,
    },
}

impl Frame {
    /// A frame to or from a latch face.
    pub fn face(face: u8, payload: Vec<u8>) -> Self {
        Self { port: Port::Face(face), payload }
    }

    /// A frame on the radio link.
    pub fn radio(payload: Vec<u8>) -> Self {
        Self { port: Port::Radio, payload }
    }

    /// Appends the encoded frame to `out`.
    pub fn encode_into(&self, out: &mut Vec<u8>) -> Result<(), FrameError> {
        let len = u16::try_from(self.payload.len()).map_err(|_| FrameError::TooLong { len: self.payload.len() })?;
        out.push(self.port.byte()?);
        out.extend_from_slice(&len.to_le_bytes());
        out.extend_from_slice(&self.payload);
        Ok(())
    }
}

/// Encodes frames into one stream.
pub fn encode(frames: &[Frame]) -> Result<Vec<u8>, FrameError> {
    let mut out = Vec::with_capacity(frames.iter().map(|f| f.payload.len() + HEADER_LEN).sum());
    for frame in frames {
        frame.encode_into(&mut out)?;
    }
    Ok(out)
}

/// Splits a stream into frames.
pub fn decode(bytes: &[u8]) -> Result<Vec<Frame>, FrameError> {
    let mut frames = Vec::new();
    let mut offset = 0;
    while offset < bytes.len() {
        let rest = &bytes[offset..];
        if rest.len() < HEADER_LEN {
            return Err(FrameError::Truncated { offset, needed: HEADER_LEN, available: rest.len() });
        }
        let len = u16::from_le_bytes([rest[1], rest[2]]) as usize;
        if rest.len() < HEADER_LEN + len {
            return Err(FrameError::Truncated { offset, needed: HEADER_LEN + len, available: rest.len() });
        }
        frames.push(Frame { port: Port::from_byte(rest[0]), payload: rest[HEADER_LEN..HEADER_LEN + len].to_vec() });
        offset += HEADER_LEN + len;
    }
    Ok(frames)
}

/// Frames a firmware sends in one control step; the host encodes them into
/// `RobotCommand::radio_tx`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Outbox {
    frames: Vec<Frame>,
}

impl Outbox {
    /// An empty outbox.
    pub fn new() -> Self {
        Self::default()
    }

    /// Queues `payload` for the neighbour latched on `face`.
    pub fn to_face(&mut self, face: u8, payload: Vec<u8>) {
        self.frames.push(Frame::face(face, payload));
    }

    /// Queues `payload` for the base station.
    pub fn to_base_station(&mut self, payload: Vec<u8>) {
        self.frames.push(Frame::radio(payload));
    }

    /// The queued frames, in order.
    pub fn frames(&self) -> &[Frame] {
        &self.frames
    }

    /// Encodes and empties the outbox.
    pub fn drain_encoded(&mut self) -> Result<Vec<u8>, FrameError> {
        let bytes = encode(&self.frames)?;
        self.frames.clear();
        Ok(bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encoding_by_hand() {
        let bytes = encode(&[Frame::face(2, vec![7, 8]), Frame::radio(vec![])]).unwrap();
        // face 2, length 2 (LE), payload; radio port 255, length 0.
        assert_eq!(bytes, vec![2, 2, 0, 7, 8, 255, 0, 0]);
        assert_eq!(decode(&bytes).unwrap(), vec![Frame::face(2, vec![7, 8]), Frame::radio(vec![])]);
    }

    #[test]
    fn long_payload_uses_both_length_bytes() {
        let frame = Frame::face(0, vec![1; 300]);
        let bytes = encode(std::slice::from_ref(&frame)).unwrap();
        // 300 = 0x012C -> [0x2C, 0x01].
        assert_eq!(&bytes[..3], &[0, 0x2C, 0x01]);
        assert_eq!(decode(&bytes).unwrap(), vec![frame]);
    }

    #[test]
    fn truncated_streams_name_the_offset() {
        assert_eq!(decode(&[1, 5, 0, 9]), Err(FrameError::Truncated { offset: 0, needed: 8, available: 4 }));
        assert_eq!(decode(&[255, 0, 0, 1]), Err(FrameError::Truncated { offset: 3, needed: 3, available: 1 }));
    }

    #[test]
    fn unencodable_frames_are_refused() {
        assert_eq!(encode(&[Frame::face(255, vec![])]), Err(FrameError::FaceOutOfRange { face: 255 }));
        assert_eq!(encode(&[Frame::radio(vec![0; 70_000])]), Err(FrameError::TooLong { len: 70_000 }));
    }

    #[test]
    fn outbox_drains() {
        let mut out = Outbox::new();
        out.to_face(1, vec![4]);
        out.to_base_station(vec![5]);
        assert_eq!(out.frames().len(), 2);
        assert_eq!(out.drain_encoded().unwrap(), vec![1, 1, 0, 4, 255, 1, 0, 5]);
        assert!(out.frames().is_empty());
    }
}
