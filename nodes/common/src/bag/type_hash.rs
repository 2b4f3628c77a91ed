//! ROS 2 interface type hashes (REP-2011, `RIHS01_<64 hex digits>`): what rosidl generates
//! for every message type from its type description, what `ros2 topic info -v` shows and
//! what rosbag2 stores as a topic's `type_description_hash` (metadata.yaml) and
//! `topic_type_hash` (MCAP channel metadata).

use std::fmt;

/// The only RIHS version ROS 2 has defined (Jazzy and later): SHA-256 of the type
/// description.
pub const RIHS_VERSION: u8 = 1;

/// Why a type hash was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TypeHashError {
    /// The text is not `RIHS01_` followed by 64 lowercase hex digits.
    #[error("`{0}` is not a ROS 2 type hash (expected RIHS01_ and 64 lowercase hex digits)")]
    Malformed(String),
    /// rosidl reported a hash version this code does not know.
    #[error("type hash version {0} is not RIHS01 (the only version ROS 2 defines)")]
    UnsupportedVersion(u8),
    /// The type support has no hash (a ROS 2 distribution before Jazzy).
    #[error("the type support of {0} has no type hash (ROS 2 before Jazzy?)")]
    NotProvided(String),
}

/// A RIHS01 type hash, kept in its text form (`RIHS01_e369d0f0...`).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct TypeHash(String);

impl TypeHash {
    /// Checks and keeps the text form.
    pub fn parse(text: &str) -> Result<Self, TypeHashError> {
        let digits = text.strip_prefix("RIHS01_").ok_or_else(|| TypeHashError::Malformed(text.to_owned()))?;
        if digits.len() != 64 || !digits.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')) {
            return Err(TypeHashError::Malformed(text.to_owned()));
        }
        Ok(Self(text.to_owned()))
    }

    /// From rosidl's `rosidl_type_hash_t` fields (version and SHA-256 value), formatted as
    /// `rosidl_stringify_type_hash` does.
    pub fn from_rihs(version: u8, value: &[u8; 32]) -> Result<Self, TypeHashError> {
        if version != RIHS_VERSION {
            return Err(TypeHashError::UnsupportedVersion(version));
        }
        let hex: String = value.iter().map(|b| format!("{b:02x}")).collect();
        Ok(Self(format!("RIHS{version:02}_{hex}")))
    }

    /// The text form.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for TypeHash {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// tf2_msgs/msg/TFMessage in Jazzy (`ros2 topic info -v /tf`).
    const TF_MESSAGE: &str = "RIHS01_e369d0f05a23ae52508854b66f6aa0437f3449d652e8cbf22d5abe85d020f087";

    #[test]
    fn bytes_format_as_rosidl_does_and_parse_back() {
        let mut value = [0u8; 32];
        for (i, pair) in TF_MESSAGE.as_bytes()[7..].chunks(2).enumerate() {
            value[i] = u8::from_str_radix(std::str::from_utf8(pair).unwrap(), 16).unwrap();
        }
        let hash = TypeHash::from_rihs(1, &value).unwrap();
        assert_eq!(hash.as_str(), TF_MESSAGE);
        assert_eq!(TypeHash::parse(TF_MESSAGE).unwrap(), hash);
        assert_eq!(TypeHash::from_rihs(2, &value), Err(TypeHashError::UnsupportedVersion(2)));
    }

    #[test]
    fn malformed_hashes_are_refused() {
        for bad in ["", "RIHS01_", "RIHS02_e369", &TF_MESSAGE.to_uppercase(), &TF_MESSAGE[..70], &format!("{TF_MESSAGE}0")] {
            assert!(matches!(TypeHash::parse(bad), Err(TypeHashError::Malformed(_))), "{bad}");
        }
    }
}
