//! The world's latch graph from `/tank/state`, as the library's metrics read it.

use std::collections::HashMap;

use flotilla_common::catalogue::ModuleKind;
use flotilla_common::ros as fros;
use nalgebra::Vector3;
use r2r::flotilla_msgs::msg::TankState;
use tank_physics::{BodyState, FaceState, LatchLink};

/// Every module of a known kind, with its faces in catalogue order (latch links by partner
/// id). Modules of kinds this build does not know are left out.
pub fn bodies(state: &TankState) -> Vec<BodyState> {
    let ids: HashMap<&str, u32> = state.modules.iter().map(|m| (m.name.as_str(), m.id)).collect();
    state
        .modules
        .iter()
        .filter_map(|m| {
            let kind: ModuleKind = m.kind.parse().ok()?;
            let faces = kind
                .spec()
                .faces
                .iter()
                .enumerate()
                .map(|(i, f)| {
                    let latch = m.latches.iter().find(|l| usize::from(l.face) == i);
                    FaceState {
                        has_latch: f.latch.is_some(),
                        latch_on: latch.is_some_and(|l| l.commanded_on),
                        latched: latch.filter(|l| l.latched).and_then(|l| {
                            ids.get(l.partner.as_str()).map(|&other_id| LatchLink { other_id, other_face: usize::from(l.partner_face) })
                        }),
                        has_thruster: f.thruster.is_some(),
                        ..FaceState::default()
                    }
                })
                .collect();
            let v = |x: &r2r::geometry_msgs::msg::Vector3| Vector3::new(x.x, x.y, x.z);
            Some(BodyState {
                id: m.id,
                name: m.name.clone(),
                kind,
                pose: fros::pose_from_msg(&m.pose),
                linvel: v(&m.twist.linear),
                angvel: v(&m.twist.angular),
                faces,
            })
        })
        .collect()
}
