//! ROS message <-> planner conversions shared by every node that takes lattices and plans
//! over ROS (the planner and the physical executor). Bad messages become a reason string,
//! never a panic.

use r2r::flotilla_msgs::action::ExecutePlan;
use r2r::flotilla_msgs::msg::{Lattice as LatticeMsg, LatticeAction};

use crate::{msgs_to_steps, steps_to_msgs, Action, ActionMsg, Lattice, LatticeMsg as WireLattice};

/// A lattice message as a planner lattice; `role` names it in the error ("start", "goal").
pub fn lattice(msg: &LatticeMsg, role: &str) -> Result<Lattice, String> {
    WireLattice { dims: [msg.size_x, msg.size_y, msg.size_z], cells: msg.cells.clone() }
        .to_lattice()
        .map_err(|e| format!("{role} lattice: {e}"))
}

/// A planner lattice as a message.
pub fn lattice_msg(lattice: &Lattice) -> LatticeMsg {
    let wire = WireLattice::from(lattice);
    LatticeMsg { size_x: wire.dims[0], size_y: wire.dims[1], size_z: wire.dims[2], cells: wire.cells }
}

/// Plan steps as action messages.
pub fn action_msgs(steps: &[Vec<Action>]) -> Vec<LatticeAction> {
    steps_to_msgs(steps)
        .iter()
        .map(|a| LatticeAction {
            step: a.step,
            robot: a.robot,
            kind: a.kind,
            from_cell: a.from.to_vec(),
            to_cell: a.to.to_vec(),
            partner: a.partner,
        })
        .collect()
}

fn wire_action(a: &LatticeAction, index: usize) -> Result<ActionMsg, String> {
    let cell = |v: &[u32], what: &str| -> Result<[u32; 3], String> {
        v.try_into().map_err(|_| format!("action {index}: `{what}` needs 3 coordinates, got {}", v.len()))
    };
    Ok(ActionMsg {
        step: a.step,
        robot: a.robot,
        kind: a.kind,
        from: cell(&a.from_cell, "from_cell")?,
        to: cell(&a.to_cell, "to_cell")?,
        partner: a.partner,
    })
}

/// An `ExecutePlan` goal's start lattice and plan steps.
pub fn goal_plan(goal: &ExecutePlan::Goal) -> Result<(Lattice, Vec<Vec<Action>>), String> {
    let start = lattice(&goal.start, "start")?;
    let wire = goal.actions.iter().enumerate().map(|(i, a)| wire_action(a, i)).collect::<Result<Vec<_>, _>>()?;
    let steps = msgs_to_steps(&wire).map_err(|e| e.to_string())?;
    Ok((start, steps))
}
