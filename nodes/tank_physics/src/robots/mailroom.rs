//! Delivery of radio bytes: latch-channel frames go to the neighbour latched on the
//! addressed face (and are lost when the face is not latched, as on the real inductive
//! channel); radio frames go up to the base station; base-station broadcasts go down to
//! every robot. Delivered bytes wait in the receiver's inbox until its next reading.

use crate::BodyState;
use flotilla_contract::{decode, Frame, FrameError, Port};
use std::collections::BTreeMap;

/// Pending inboxes and the base-station uplink.
#[derive(Clone, Debug, Default)]
pub struct Mailroom {
    inboxes: BTreeMap<u32, Vec<u8>>,
    uplink: Vec<(u32, Vec<u8>)>,
}

impl Mailroom {
    /// An empty mailroom.
    pub fn new() -> Self {
        Self::default()
    }

    /// Routes the `radio_tx` bytes of `sender` using its latch links at this moment.
    /// Returns how many latch-channel frames were lost (face not latched or no such face).
    pub fn post(&mut self, sender: &BodyState, radio_tx: &[u8]) -> Result<usize, FrameError> {
        let mut lost = 0;
        for frame in decode(radio_tx)? {
            match frame.port {
                Port::Radio => self.uplink.push((sender.id, frame.payload)),
                Port::Face(face) => match sender.faces.get(face as usize).and_then(|f| f.latched) {
                    Some(link) => {
                        // The receiver sees the frame on its own face of the link.
                        let port = u8::try_from(link.other_face).map_err(|_| FrameError::FaceOutOfRange { face: u8::MAX })?;
                        Frame::face(port, frame.payload).encode_into(self.inboxes.entry(link.other_id).or_default())?;
                    }
                    None => lost += 1,
                },
            }
        }
        Ok(lost)
    }

    /// Queues a base-station radio message for each robot in `receivers`.
    pub fn broadcast(&mut self, receivers: impl IntoIterator<Item = u32>, payload: &[u8]) -> Result<(), FrameError> {
        let frame = Frame::radio(payload.to_vec());
        for id in receivers {
            frame.encode_into(self.inboxes.entry(id).or_default())?;
        }
        Ok(())
    }

    /// Takes the bytes waiting for robot `id` (empty if none).
    pub fn take_inbox(&mut self, id: u32) -> Vec<u8> {
        self.inboxes.remove(&id).unwrap_or_default()
    }

    /// Takes the radio messages sent to the base station: (sender id, payload), in order.
    pub fn take_uplink(&mut self) -> Vec<(u32, Vec<u8>)> {
        std::mem::take(&mut self.uplink)
    }

    /// Drops everything addressed to robot `id` (it left the world).
    pub fn forget(&mut self, id: u32) {
        self.inboxes.remove(&id);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{FaceState, LatchLink};
    use flotilla_common::catalogue::ModuleKind;
    use flotilla_contract::encode;
    use nalgebra::{Isometry3, Vector3};

    fn lily(id: u32, links: [Option<LatchLink>; 4]) -> BodyState {
        BodyState {
            id,
            name: format!("lily_{id}"),
            kind: ModuleKind::Lily,
            pose: Isometry3::identity(),
            linvel: Vector3::zeros(),
            angvel: Vector3::zeros(),
            faces: links.iter().map(|&latched| FaceState { has_latch: true, latch_on: true, latched, ..FaceState::default() }).collect(),
        }
    }

    #[test]
    fn face_frames_reach_the_partner_face_and_radio_goes_up() {
        let sender = lily(3, [None, Some(LatchLink { other_id: 9, other_face: 2 }), None, None]);
        let mut room = Mailroom::new();
        let tx = encode(&[Frame::face(1, vec![42]), Frame::face(0, vec![1]), Frame::radio(vec![7])]).unwrap();
        // Face 0 is not latched: that frame is lost.
        assert_eq!(room.post(&sender, &tx).unwrap(), 1);
        // Robot 9 receives it on its face 2.
        assert_eq!(decode(&room.take_inbox(9)).unwrap(), vec![Frame::face(2, vec![42])]);
        assert!(room.take_inbox(9).is_empty());
        assert_eq!(room.take_uplink(), vec![(3, vec![7])]);
    }

    #[test]
    fn broadcast_reaches_everyone_and_bad_bytes_are_refused() {
        let mut room = Mailroom::new();
        room.broadcast([1, 2], b"go").unwrap();
        assert_eq!(decode(&room.take_inbox(2)).unwrap(), vec![Frame::radio(b"go".to_vec())]);
        let err = room.post(&lily(1, [None; 4]), &[0, 9]).unwrap_err();
        assert!(matches!(err, FrameError::Truncated { offset: 0, .. }));
    }
}
