//! ROS name rules used by launch_ros: joining namespaces (`prefix_namespace`) and validating
//! node names and namespaces (rmw's rules).

/// `ns` under `base` unless `ns` is absolute; `None` when both are `None`. The result is
/// absolute and has no trailing `/` (except the root `/`).
pub fn prefix_namespace(base: Option<&str>, ns: Option<&str>) -> Option<String> {
    let combined = match (base, ns) {
        (None, None) => return None,
        (Some(base), None) => base.to_owned(),
        (base, Some(ns)) => match base {
            Some(base) if !base.is_empty() && !ns.starts_with('/') => {
                let base = if base == "/" { "" } else { base };
                format!("{base}/{ns}")
            }
            _ => ns.to_owned(),
        },
    };
    let trimmed = if combined == "/" { combined } else { combined.trim_end_matches('/').to_owned() };
    Some(if trimmed.starts_with('/') { trimmed } else { format!("/{trimmed}") })
}

/// Checks an absolute namespace: `/`, or `/`-separated tokens of letters, digits and `_`
/// that do not start with a digit.
pub fn validate_namespace(ns: &str) -> Result<(), String> {
    if ns == "/" {
        return Ok(());
    }
    let Some(rest) = ns.strip_prefix('/') else {
        return Err(format!("namespace '{ns}' must be absolute"));
    };
    for token in rest.split('/') {
        validate_token(token).map_err(|why| format!("invalid namespace '{ns}': {why}"))?;
    }
    Ok(())
}

/// Checks a node name: letters, digits and `_`, not starting with a digit.
pub fn validate_node_name(name: &str) -> Result<(), String> {
    validate_token(name).map_err(|why| format!("invalid node name '{name}': {why}"))
}

fn validate_token(token: &str) -> Result<(), &'static str> {
    match token.chars().next() {
        None => Err("empty name or `//`"),
        Some(c) if c.is_ascii_digit() => Err("must not start with a digit"),
        _ if !token.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') => Err("only letters, digits and `_` are allowed"),
        _ if token.len() > 255 => Err("longer than 255 characters"),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn joins_like_launch_ros() {
        assert_eq!(prefix_namespace(None, None), None);
        assert_eq!(prefix_namespace(Some("/a"), None).as_deref(), Some("/a"));
        assert_eq!(prefix_namespace(None, Some("b")).as_deref(), Some("/b"));
        assert_eq!(prefix_namespace(Some("/a"), Some("b")).as_deref(), Some("/a/b"));
        assert_eq!(prefix_namespace(Some("a"), Some("b/")).as_deref(), Some("/a/b"));
        assert_eq!(prefix_namespace(Some("/a"), Some("/c")).as_deref(), Some("/c"));
        assert_eq!(prefix_namespace(Some("/"), Some("b")).as_deref(), Some("/b"));
        assert_eq!(prefix_namespace(Some("/a"), Some("")).as_deref(), Some("/a"));
        assert_eq!(prefix_namespace(None, Some("")).as_deref(), Some("/"));
    }

    #[test]
    fn validates_names() {
        assert!(validate_namespace("/").is_ok());
        assert!(validate_namespace("/lily_7/sensors").is_ok());
        assert!(validate_namespace("lily").is_err());
        assert!(validate_namespace("/a//b").is_err());
        assert!(validate_namespace("/7lily").is_err());
        assert!(validate_namespace("/a/").is_err());
        assert!(validate_node_name("tank_physics").is_ok());
        assert!(validate_node_name("tank-physics").is_err());
        assert!(validate_node_name("").is_err());
    }
}
