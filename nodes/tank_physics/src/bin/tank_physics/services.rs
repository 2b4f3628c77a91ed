//! World services under `/tank/`: spawn, remove, reset, set_pumps, step (`/tank/pause`
//! is `flotilla_common::ros::serve_pause`, as on the other simulator nodes). Each request
//! becomes a message for the stepping thread (a [`Control`], or [`Message::Step`] for the
//! shared loop); the answer comes back on a oneshot channel, so a refused request is a
//! clear message and never stops the node.

use std::future::Future;
use std::sync::mpsc;

use futures::{Stream, StreamExt};
use r2r::flotilla_msgs::srv::{RemoveModule, ResetWorld, SetPumps, SpawnModule, StepWorld};
use r2r::QosProfile;
use tank_physics::stepping::Message;
use tank_physics::PlanarPose;
use tokio::sync::oneshot;
use tracing::warn;

use crate::node::Control;

/// The answer of every service once the stepping thread has ended.
pub const GONE: &str = "the physics has stopped";

/// Creates the services on `node` and serves them on tokio tasks.
pub fn serve(node: &mut r2r::Node, control: mpsc::Sender<Message<Control>>) -> anyhow::Result<()> {
    let qos = QosProfile::default;
    handle(node.create_service::<SpawnModule::Service>("/tank/spawn", qos())?, control.clone(), |req, c| {
        let (reply, rx) = oneshot::channel();
        let yaw = yaw_of(&req.pose.orientation);
        let sent = c.send(Message::Node(Control::Spawn {
            kind: req.kind,
            name: req.name,
            pose: PlanarPose::new(req.pose.position.x, req.pose.position.y, yaw),
            reply,
        }));
        async move {
            match (sent, rx.await) {
                (Ok(()), Ok(Ok((id, name)))) => SpawnModule::Response { success: true, message: format!("spawned {name}"), id, name },
                (Ok(()), Ok(Err(message))) => SpawnModule::Response { success: false, message, ..Default::default() },
                _ => SpawnModule::Response { success: false, message: GONE.into(), ..Default::default() },
            }
        }
    });
    handle(node.create_service::<RemoveModule::Service>("/tank/remove", qos())?, control.clone(), |req, c| {
        let (reply, rx) = oneshot::channel();
        let sent = c.send(Message::Node(Control::Remove { name: req.name, reply }));
        async move {
            let (success, message) = outcome(sent.is_ok(), rx.await);
            RemoveModule::Response { success, message }
        }
    });
    handle(node.create_service::<ResetWorld::Service>("/tank/reset", qos())?, control.clone(), |req, c| {
        let (reply, rx) = oneshot::channel();
        let sent = c.send(Message::Node(Control::Reset { seed: req.use_seed.then_some(req.seed), reply }));
        async move {
            let (success, message) = outcome(sent.is_ok(), rx.await);
            ResetWorld::Response { success, message }
        }
    });
    handle(node.create_service::<SetPumps::Service>("/tank/set_pumps", qos())?, control.clone(), |req, c| {
        let (reply, rx) = oneshot::channel();
        let sent = c.send(Message::Node(Control::SetPumps { power: req.power, reply }));
        async move {
            let (success, message) = outcome(sent.is_ok(), rx.await);
            SetPumps::Response { success, message }
        }
    });
    handle(node.create_service::<StepWorld::Service>("/tank/step", qos())?, control, |req, c| {
        let (reply, rx) = oneshot::channel();
        let reply = Box::new(move |outcome| {
            let _ = reply.send(outcome);
        });
        let sent = c.send(Message::Step(req.steps, reply));
        async move {
            match (sent, rx.await) {
                (Ok(()), Ok(Ok(t))) => StepWorld::Response { success: true, message: format!("t = {t:.3} s"), sim_time: t },
                (Ok(()), Ok(Err(message))) => StepWorld::Response { success: false, message, sim_time: 0.0 },
                _ => StepWorld::Response { success: false, message: GONE.into(), sim_time: 0.0 },
            }
        }
    });
    Ok(())
}

/// Serves every request of `requests` with `answer` on a task of its own.
fn handle<S, F, Fut>(
    mut requests: impl Stream<Item = r2r::ServiceRequest<S>> + Unpin + Send + 'static,
    control: mpsc::Sender<Message<Control>>,
    answer: F,
) where
    S: r2r::WrappedServiceTypeSupport + 'static,
    S::Request: Clone + Send,
    F: Fn(S::Request, &mpsc::Sender<Message<Control>>) -> Fut + Send + 'static,
    Fut: Future<Output = S::Response> + Send + 'static,
{
    tokio::spawn(async move {
        while let Some(req) = requests.next().await {
            let response = answer(req.message.clone(), &control);
            tokio::spawn(async move {
                let response = response.await;
                if let Err(e) = req.respond(response) {
                    warn!("answering a service request: {e}");
                }
            });
        }
    });
}

fn outcome(sent: bool, reply: Result<Result<String, String>, oneshot::error::RecvError>) -> (bool, String) {
    match (sent, reply) {
        (true, Ok(Ok(m))) => (true, m),
        (true, Ok(Err(m))) => (false, m),
        _ => (false, GONE.into()),
    }
}

/// Rotation about z of a quaternion, rad.
fn yaw_of(q: &r2r::geometry_msgs::msg::Quaternion) -> f64 {
    let (w, x, y, z) = if q.x == 0.0 && q.y == 0.0 && q.z == 0.0 && q.w == 0.0 { (1.0, 0.0, 0.0, 0.0) } else { (q.w, q.x, q.y, q.z) };
    (2.0 * (w * z + x * y)).atan2(1.0 - 2.0 * (y * y + z * z))
}
