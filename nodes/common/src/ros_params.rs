//! The ROS 2 parameter interface of every Flotilla node (feature `ros`): the six
//! `rcl_interfaces` parameter services and `/parameter_events`, served from the node's
//! declarations ([`crate::param_spec::declare`]) so that `ros2 param list/get/describe/dump`
//! show every parameter with its effective value (defaults included), type, description,
//! range and read-only flag, and `ros2 param set` is refused with a reason when the
//! parameter is read-only, of another type, out of range or refused by the node's own
//! validator. Accepted trees go to the node on a watch channel.
//!
//! r2r 0.9.7's own parameter handler is not used: its descriptors have no range or
//! read-only flag and it publishes no `/parameter_events`.

use std::sync::{Arc, Mutex};

use futures::StreamExt;
use r2r::rcl_interfaces::msg::{
    FloatingPointRange, IntegerRange, ListParametersResult, Parameter as ParameterMsg, ParameterDescriptor, ParameterEvent,
    ParameterValue as ValueMsg, SetParametersResult,
};
use r2r::rcl_interfaces::srv::{
    DescribeParameters, GetParameterTypes, GetParameters, ListParameters, SetParameters, SetParametersAtomically,
};
use r2r::QosProfile;
use serde_yaml::{Mapping, Number, Value};

use crate::param_spec::{self, Declaration, Declared, Kind, NodeParams, Range};
use crate::params::{self, STANDARD_ROS_PARAMETERS};

/// Checks a whole parameter tree (without the standard ROS keys); the error is the reason
/// a change is refused.
pub type Validator = Arc<dyn Fn(&Mapping) -> Result<(), String> + Send + Sync>;

/// The parameters a node serves.
struct State {
    declared: Declared,
    /// The start-up tree plus every accepted change (what the node's validator sees; the
    /// table's defaults are not written into it).
    tree: Mapping,
    validate: Validator,
    updates: tokio::sync::watch::Sender<Mapping>,
    events: r2r::Publisher<ParameterEvent>,
    node: String,
}

/// Declares `spec`'s parameters on `node` from its start-up tree `startup`, serves the
/// parameter services on tokio tasks and publishes the declarations on
/// `/parameter_events`. Returns the accepted trees (the start-up tree first), without the
/// standard ROS keys.
pub fn serve(
    node: &mut r2r::Node,
    spec: &NodeParams,
    startup: &Mapping,
    validate: Validator,
) -> anyhow::Result<tokio::sync::watch::Receiver<Mapping>> {
    let declared = param_spec::declare(spec, startup);
    let events = node.create_publisher::<ParameterEvent>("/parameter_events", QosProfile::parameter_events())?;
    let fq = node.fully_qualified_name()?;
    let name = node.name()?;
    let (updates, rx) = tokio::sync::watch::channel(params::without_standard(startup));
    let new_parameters = declared.list.iter().map(parameter_msg).collect();
    if let Err(e) =
        events.publish(&ParameterEvent { stamp: crate::ros::wall_time_msg(), node: fq.clone(), new_parameters, ..Default::default() })
    {
        tracing::warn!(error = %e, "could not publish the declarations on /parameter_events");
    }
    let state = Arc::new(Mutex::new(State { declared, tree: startup.clone(), validate, updates, events, node: fq }));

    let mut get = node.create_service::<GetParameters::Service>(&format!("{name}/get_parameters"), QosProfile::default())?;
    let s = state.clone();
    tokio::spawn(async move {
        while let Some(req) = get.next().await {
            let values = match s.lock() {
                Ok(st) => {
                    req.message.names.iter().map(|n| st.declared.get(n).map(|d| value_msg(&d.value, d.kind)).unwrap_or_default()).collect()
                }
                Err(_) => Vec::new(),
            };
            respond(req.respond(GetParameters::Response { values }), "get_parameters");
        }
    });

    let mut types = node.create_service::<GetParameterTypes::Service>(&format!("{name}/get_parameter_types"), QosProfile::default())?;
    let s = state.clone();
    tokio::spawn(async move {
        while let Some(req) = types.next().await {
            let types = match s.lock() {
                Ok(st) => req.message.names.iter().map(|n| st.declared.get(n).map_or(0, |d| d.kind.ros_type())).collect(),
                Err(_) => Vec::new(),
            };
            respond(req.respond(GetParameterTypes::Response { types }), "get_parameter_types");
        }
    });

    let mut list = node.create_service::<ListParameters::Service>(&format!("{name}/list_parameters"), QosProfile::default())?;
    let s = state.clone();
    tokio::spawn(async move {
        while let Some(req) = list.next().await {
            let result = match s.lock() {
                Ok(st) => list_result(&st.declared, &req.message.prefixes, req.message.depth),
                Err(_) => ListParametersResult::default(),
            };
            respond(req.respond(ListParameters::Response { result }), "list_parameters");
        }
    });

    let mut describe = node.create_service::<DescribeParameters::Service>(&format!("{name}/describe_parameters"), QosProfile::default())?;
    let s = state.clone();
    tokio::spawn(async move {
        while let Some(req) = describe.next().await {
            let descriptors = match s.lock() {
                Ok(st) => req
                    .message
                    .names
                    .iter()
                    .map(|n| st.declared.get(n).map_or_else(|| ParameterDescriptor { name: n.clone(), ..Default::default() }, descriptor))
                    .collect(),
                Err(_) => Vec::new(),
            };
            respond(req.respond(DescribeParameters::Response { descriptors }), "describe_parameters");
        }
    });

    let mut set = node.create_service::<SetParameters::Service>(&format!("{name}/set_parameters"), QosProfile::default())?;
    let s = state.clone();
    tokio::spawn(async move {
        while let Some(req) = set.next().await {
            let results = match s.lock() {
                Ok(mut st) => req.message.parameters.iter().map(|p| st.apply(std::slice::from_ref(p))).collect(),
                Err(_) => Vec::new(),
            };
            respond(req.respond(SetParameters::Response { results }), "set_parameters");
        }
    });

    let mut atomic =
        node.create_service::<SetParametersAtomically::Service>(&format!("{name}/set_parameters_atomically"), QosProfile::default())?;
    tokio::spawn(async move {
        while let Some(req) = atomic.next().await {
            let result = match state.lock() {
                Ok(mut st) => st.apply(&req.message.parameters),
                Err(_) => SetParametersResult { successful: false, reason: "the parameter state is unavailable".into() },
            };
            respond(req.respond(SetParametersAtomically::Response { result }), "set_parameters_atomically");
        }
    });
    Ok(rx)
}

fn respond(result: r2r::Result<()>, service: &str) {
    if let Err(e) = result {
        tracing::warn!(service, error = %e, "could not answer a parameter request");
    }
}

impl State {
    /// Checks and applies `changes` all together (declared, writable, typed, in range,
    /// accepted by the node's validator); on success publishes one parameter event and
    /// sends the new tree.
    fn apply(&mut self, changes: &[ParameterMsg]) -> SetParametersResult {
        let refuse = |reason: String| SetParametersResult { successful: false, reason };
        let mut tree = self.tree.clone();
        let mut accepted = Vec::new();
        for p in changes {
            let Some(value) = yaml_of(&p.value) else {
                return refuse(format!("parameter `{}`: deleting or undeclaring parameters is not supported", p.name));
            };
            match self.declared.check_set(&p.name, &value) {
                Ok(v) => {
                    params::set_dotted(&mut tree, &p.name, v.clone());
                    accepted.push((p.name.clone(), v));
                }
                Err(e) => return refuse(e.to_string()),
            }
        }
        if accepted.iter().any(|(n, _)| !STANDARD_ROS_PARAMETERS.contains(&n.as_str())) {
            if let Err(e) = (self.validate)(&params::without_standard(&tree)) {
                return refuse(e);
            }
        }
        let mut changed = Vec::new();
        for (name, value) in accepted {
            if self.declared.get(&name).is_some_and(|d| d.value != value) {
                self.declared.set(&name, value);
                if let Some(d) = self.declared.get(&name) {
                    changed.push(parameter_msg(d));
                }
            }
        }
        self.tree = tree;
        if !changed.is_empty() {
            tracing::info!(parameters = %changed.iter().map(|p| p.name.as_str()).collect::<Vec<_>>().join(","), "parameters changed");
            let event = ParameterEvent {
                stamp: crate::ros::wall_time_msg(),
                node: self.node.clone(),
                changed_parameters: changed,
                ..Default::default()
            };
            if let Err(e) = self.events.publish(&event) {
                tracing::warn!(error = %e, "could not publish on /parameter_events");
            }
            let _ = self.updates.send(params::without_standard(&self.tree));
        }
        SetParametersResult { successful: true, reason: String::new() }
    }
}

/// `ros2 param list` semantics (rclcpp's `list_parameters`): names under `prefixes` (all
/// when empty) at most `depth` levels deep (0 = any), and the prefixes of the listed names.
fn list_result(declared: &Declared, prefixes: &[String], depth: u64) -> ListParametersResult {
    let deep_enough = |rest: &str| depth == 0 || (rest.matches('.').count() as u64) < depth;
    let mut result = ListParametersResult::default();
    for d in &declared.list {
        let name = &d.name;
        let listed = if prefixes.is_empty() {
            deep_enough(name)
        } else {
            prefixes.iter().any(|p| name == p || name.strip_prefix(&format!("{p}.")).is_some_and(deep_enough))
        };
        if !listed {
            continue;
        }
        result.names.push(name.clone());
        if let Some((prefix, _)) = name.rsplit_once('.') {
            if !result.prefixes.iter().any(|p| p == prefix) {
                result.prefixes.push(prefix.to_owned());
            }
        }
    }
    result
}

/// A declaration as `rcl_interfaces/msg/Parameter`.
fn parameter_msg(d: &Declaration) -> ParameterMsg {
    ParameterMsg { name: d.name.clone(), value: value_msg(&d.value, d.kind) }
}

/// A declaration's `rcl_interfaces/msg/ParameterDescriptor`.
pub fn descriptor(d: &Declaration) -> ParameterDescriptor {
    let mut out = ParameterDescriptor {
        name: d.name.clone(),
        type_: d.kind.ros_type(),
        description: d.description.clone(),
        read_only: d.read_only,
        ..Default::default()
    };
    match d.range {
        Range::Any => {}
        Range::Float { min, max } => out.floating_point_range = vec![FloatingPointRange { from_value: min, to_value: max, step: 0.0 }],
        Range::Integer { min, max } => out.integer_range = vec![IntegerRange { from_value: min, to_value: max, step: 0 }],
    }
    out
}

/// A YAML scalar or scalar array as `rcl_interfaces/msg/ParameterValue` of type `kind`
/// (an empty array has no type of its own).
pub fn value_msg(v: &Value, kind: Kind) -> ValueMsg {
    let mut m = ValueMsg { type_: kind.ros_type(), ..Default::default() };
    let items = || v.as_sequence().map(Vec::as_slice).unwrap_or(&[]);
    match kind {
        Kind::Bool => m.bool_value = v.as_bool().unwrap_or_default(),
        Kind::Integer => m.integer_value = v.as_i64().unwrap_or_default(),
        Kind::Double => m.double_value = v.as_f64().unwrap_or_default(),
        Kind::String => m.string_value = v.as_str().unwrap_or_default().to_owned(),
        Kind::Bools => m.bool_array_value = items().iter().filter_map(Value::as_bool).collect(),
        Kind::Integers => m.integer_array_value = items().iter().filter_map(Value::as_i64).collect(),
        Kind::Doubles => m.double_array_value = items().iter().filter_map(Value::as_f64).collect(),
        Kind::Strings => m.string_array_value = items().iter().filter_map(|s| s.as_str().map(str::to_owned)).collect(),
    }
    m
}

/// `rcl_interfaces/msg/ParameterValue` as YAML (`None` for NOT_SET and byte arrays).
pub fn yaml_of(m: &ValueMsg) -> Option<Value> {
    let f = |x: f64| Value::Number(Number::from(x));
    Some(match m.type_ {
        1 => Value::Bool(m.bool_value),
        2 => Value::Number(Number::from(m.integer_value)),
        3 => f(m.double_value),
        4 => Value::String(m.string_value.clone()),
        6 => Value::Sequence(m.bool_array_value.iter().map(|b| Value::Bool(*b)).collect()),
        7 => Value::Sequence(m.integer_array_value.iter().map(|i| Value::Number(Number::from(*i))).collect()),
        8 => Value::Sequence(m.double_array_value.iter().map(|d| f(*d)).collect()),
        9 => Value::Sequence(m.string_array_value.iter().map(|s| Value::String(s.clone())).collect()),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::param_spec::ParamSpec;

    const TABLE: NodeParams = NodeParams {
        groups: &[&[
            ParamSpec::double("publish.state_rate", 30.0, "Rate, Hz").range(1e-6, 3600.0).live(),
            ParamSpec::integer("seed", 0, "Seed").int_range(0, i64::MAX),
        ]],
        extras_live: false,
    };

    #[test]
    fn values_round_trip_through_messages() {
        for yaml in ["true", "3", "2.5", "abc", "[1, 2]", "[1.5, 2.0]", "[a, b]", "[true, false]"] {
            let v: Value = serde_yaml::from_str(yaml).unwrap();
            assert_eq!(yaml_of(&value_msg(&v, Kind::of(&v).unwrap())), Some(v), "{yaml}");
        }
        let empty = value_msg(&Value::Sequence(Vec::new()), Kind::Strings);
        assert_eq!((empty.type_, empty.string_array_value.len()), (9, 0));
    }

    #[test]
    fn descriptors_carry_range_and_read_only() {
        let d = param_spec::declare(&TABLE, &Mapping::new());
        let rate = descriptor(d.get("publish.state_rate").unwrap());
        assert_eq!((rate.type_, rate.read_only, rate.description.as_str()), (3, false, "Rate, Hz"));
        assert_eq!(rate.floating_point_range[0].to_value, 3600.0);
        let seed = descriptor(d.get("seed").unwrap());
        assert!(seed.read_only);
        assert_eq!(seed.integer_range[0].to_value, i64::MAX);
    }

    #[test]
    fn list_follows_prefixes_and_depth() {
        let d = param_spec::declare(&TABLE, &Mapping::new());
        let all = list_result(&d, &[], 0);
        assert_eq!(all.names, ["use_sim_time", "start_type_description_service", "publish.state_rate", "seed"]);
        assert_eq!(all.prefixes, ["publish"]);
        assert_eq!(list_result(&d, &[], 1).names, ["use_sim_time", "start_type_description_service", "seed"]);
        assert_eq!(list_result(&d, &["publish".into()], 0).names, ["publish.state_rate"]);
    }
}
