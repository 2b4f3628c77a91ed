//! The ROS side of bag recording (feature `ros`): a message type's RIHS01 type hash, read
//! from the type support rosidl generated for it (the `get_type_hash_func` of the
//! `rosidl_typesupport_c` handle r2r registers publishers with), so the bag stores the
//! hash the ROS graph announces.

use crate::bag::{TypeHash, TypeHashError};

/// The RIHS01 hash of message type `T` (what `ros2 topic info -v` shows and rosbag2 stores
/// as `type_description_hash`).
pub fn type_hash<T: r2r::WrappedTypesupport>() -> Result<TypeHash, TypeHashError> {
    let support = T::get_ts();
    let not_provided = || TypeHashError::NotProvided(std::any::type_name::<T>().to_owned());
    let get = support.get_type_hash_func.ok_or_else(not_provided)?;
    // SAFETY: rosidl's generated `<pkg>__msg__<Type>__get_type_hash` only reads its
    // argument's identity and returns a pointer to a static hash (or null); `support` is
    // the static type support r2r holds for `T`.
    let hash = unsafe { get(support).as_ref() }.ok_or_else(not_provided)?;
    TypeHash::from_rihs(hash.version, &hash.value)
}

#[cfg(test)]
mod tests {
    use super::*;
    use r2r::flotilla_msgs::msg::{FlowField, TankState};
    use r2r::tf2_msgs::msg::TFMessage;

    /// tf2_msgs/msg/TFMessage as a Jazzy graph announces it (`ros2 topic info -v /tf`;
    /// also the `type_description_hash` of /tf in bags recorded on Jazzy).
    const JAZZY_TF_MESSAGE: &str = "RIHS01_e369d0f05a23ae52508854b66f6aa0437f3449d652e8cbf22d5abe85d020f087";

    /// The hash rosidl wrote into `share/<pkg>/msg/<Type>.json` of an ament prefix.
    fn rosidl_json_hash(type_name: &str) -> String {
        let (package, name) = type_name.split_once("/msg/").unwrap();
        let path = std::env::var_os("AMENT_PREFIX_PATH").expect("AMENT_PREFIX_PATH (source build/env.sh)");
        let file = std::env::split_paths(&path)
            .map(|p| p.join("share").join(package).join("msg").join(format!("{name}.json")))
            .find(|f| f.is_file())
            .unwrap_or_else(|| panic!("no rosidl JSON of {type_name} in AMENT_PREFIX_PATH"));
        let json: serde_yaml::Value = serde_yaml::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
        let entry = json["type_hashes"].as_sequence().unwrap().iter().find(|h| h["type_name"] == type_name).unwrap();
        entry["hash_string"].as_str().unwrap().to_owned()
    }

    /// The hash from the type support equals rosidl's generated JSON and, for
    /// TFMessage, Jazzy's published value.
    #[test]
    fn type_hashes_match_rosidl_json_and_jazzy() {
        let tf = type_hash::<TFMessage>().unwrap();
        assert_eq!(tf.as_str(), JAZZY_TF_MESSAGE);
        assert_eq!(tf.as_str(), rosidl_json_hash("tf2_msgs/msg/TFMessage"));
        let state = type_hash::<TankState>().unwrap();
        assert_eq!(state.as_str(), rosidl_json_hash("flotilla_msgs/msg/TankState"));
        let flow = type_hash::<FlowField>().unwrap();
        assert_eq!(flow.as_str(), rosidl_json_hash("flotilla_msgs/msg/FlowField"));
        assert_ne!(state, flow);
        eprintln!("TFMessage {tf}\nTankState {state}\nFlowField {flow}");
    }
}
