//! YAML 1.1 implicit scalar typing, as PyYAML's `safe_load` does it.
//!
//! `ros2 launch` reads launch files with PyYAML and types substituted parameter values with
//! `yaml.safe_load`, so `yes`/`on` are booleans, `010` is octal, `1e3` is a string and `1.0e+3`
//! a float. Matching those rules keeps a parameter's type the same under both launchers.

/// A typed YAML scalar.
#[derive(Clone, Debug, PartialEq)]
pub enum Scalar {
    /// `~`, `null`, `Null`, `NULL` or nothing.
    Null,
    /// `true`/`false`, `yes`/`no`, `on`/`off` in any of their three spellings.
    Bool(bool),
    /// A decimal, `0b` binary, `0` octal, `0x` hex or base-60 (`1:30`) integer.
    Int(i64),
    /// A float with a decimal point, `.inf`, `.nan` or base-60 with a fraction.
    Float(f64),
    /// Anything else, and every quoted or block scalar.
    Str(String),
}

/// Types `text` like PyYAML: `plain` is false for quoted, block or `!!str` scalars, which are
/// always strings. Fails only for an integer that does not fit in 64 bits.
pub fn resolve_scalar(text: &str, plain: bool) -> Result<Scalar, String> {
    if !plain {
        return Ok(Scalar::Str(text.to_owned()));
    }
    if matches!(text, "" | "~" | "null" | "Null" | "NULL") {
        return Ok(Scalar::Null);
    }
    if let Some(b) = resolve_bool(text) {
        return Ok(Scalar::Bool(b));
    }
    if is_yaml11_int(text) {
        return construct_int(text).map(Scalar::Int).ok_or_else(|| format!("integer `{text}` does not fit in 64 bits"));
    }
    if is_yaml11_float(text) {
        if let Some(x) = construct_float(text) {
            return Ok(Scalar::Float(x));
        }
    }
    Ok(Scalar::Str(text.to_owned()))
}

fn resolve_bool(text: &str) -> Option<bool> {
    match text {
        "yes" | "Yes" | "YES" | "true" | "True" | "TRUE" | "on" | "On" | "ON" => Some(true),
        "no" | "No" | "NO" | "false" | "False" | "FALSE" | "off" | "Off" | "OFF" => Some(false),
        _ => None,
    }
}

fn strip_sign(s: &str) -> (bool, &str) {
    match s.as_bytes().first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    }
}

fn all_nonempty(s: &str, ok: impl Fn(u8) -> bool) -> bool {
    !s.is_empty() && s.bytes().all(ok)
}

/// `(:[0-5]?[0-9])+`
fn is_base60_tail(s: &str) -> bool {
    let Some(rest) = s.strip_prefix(':') else {
        return false;
    };
    rest.split(':').all(|part| {
        let b = part.as_bytes();
        match b.len() {
            1 => b[0].is_ascii_digit(),
            2 => (b'0'..=b'5').contains(&b[0]) && b[1].is_ascii_digit(),
            _ => false,
        }
    })
}

/// `[1-9][0-9_]*` followed by a base-60 tail; returns the tail start.
fn base60_head_len(s: &str) -> Option<usize> {
    let b = s.as_bytes();
    if b.is_empty() || !(b'1'..=b'9').contains(&b[0]) {
        return None;
    }
    let head = b.iter().take_while(|c| c.is_ascii_digit() || **c == b'_').count();
    Some(head)
}

fn is_yaml11_int(text: &str) -> bool {
    let (_, s) = strip_sign(text);
    if let Some(bin) = s.strip_prefix("0b") {
        return all_nonempty(bin, |c| c == b'0' || c == b'1' || c == b'_');
    }
    if let Some(hex) = s.strip_prefix("0x") {
        return all_nonempty(hex, |c| c.is_ascii_hexdigit() || c == b'_');
    }
    if s == "0" {
        return true;
    }
    if let Some(oct) = s.strip_prefix('0') {
        return all_nonempty(oct, |c| (b'0'..=b'7').contains(&c) || c == b'_');
    }
    let Some(head) = base60_head_len(s) else {
        return false;
    };
    head == s.len() || is_base60_tail(&s[head..])
}

fn construct_int(text: &str) -> Option<i64> {
    let cleaned: String = text.chars().filter(|c| *c != '_').collect();
    let (negative, s) = strip_sign(&cleaned);
    let magnitude: i128 = if s == "0" {
        0
    } else if let Some(bin) = s.strip_prefix("0b") {
        i128::from_str_radix(bin, 2).ok()?
    } else if let Some(hex) = s.strip_prefix("0x") {
        i128::from_str_radix(hex, 16).ok()?
    } else if s.starts_with('0') {
        i128::from_str_radix(s, 8).ok()?
    } else if s.contains(':') {
        s.split(':').try_fold(0i128, |acc, d| Some(acc.checked_mul(60)? + d.parse::<i128>().ok()?))?
    } else {
        s.parse::<i128>().ok()?
    };
    i64::try_from(if negative { -magnitude } else { magnitude }).ok()
}

/// `([eE][-+][0-9]+)?` at the end of `s`; returns the length of what precedes the exponent.
fn split_exponent(s: &str) -> Option<usize> {
    match s.find(['e', 'E']) {
        None => Some(s.len()),
        Some(i) => {
            let exp = &s[i + 1..];
            let digits = exp.strip_prefix(['-', '+'])?;
            all_nonempty(digits, |c| c.is_ascii_digit()).then_some(i)
        }
    }
}

fn is_yaml11_float(text: &str) -> bool {
    if matches!(text, ".nan" | ".NaN" | ".NAN") {
        return true;
    }
    let (_, unsigned) = strip_sign(text);
    if matches!(unsigned, ".inf" | ".Inf" | ".INF") {
        return true;
    }
    // `\.[0-9][0-9_]*(exp)?` takes no sign.
    if let Some(frac) = text.strip_prefix('.') {
        let Some(mantissa_len) = split_exponent(frac) else {
            return false;
        };
        let m = &frac.as_bytes()[..mantissa_len];
        return !m.is_empty() && m[0].is_ascii_digit() && m.iter().all(|c| c.is_ascii_digit() || *c == b'_');
    }
    let Some(dot) = unsigned.find('.') else {
        return false;
    };
    let (int_part, frac_part) = (&unsigned[..dot], &unsigned[dot + 1..]);
    let ib = int_part.as_bytes();
    if ib.is_empty() || !ib[0].is_ascii_digit() {
        return false;
    }
    let head = ib.iter().take_while(|c| c.is_ascii_digit() || **c == b'_').count();
    if head == ib.len() {
        // `[0-9][0-9_]*\.[0-9_]*(exp)?`
        let Some(mantissa_len) = split_exponent(frac_part) else {
            return false;
        };
        frac_part.as_bytes()[..mantissa_len].iter().all(|c| c.is_ascii_digit() || *c == b'_')
    } else {
        // `[0-9][0-9_]*(:[0-5]?[0-9])+\.[0-9_]*`
        is_base60_tail(&int_part[head..]) && frac_part.bytes().all(|c| c.is_ascii_digit() || c == b'_')
    }
}

fn construct_float(text: &str) -> Option<f64> {
    let cleaned: String = text.chars().filter(|c| *c != '_').collect::<String>().to_lowercase();
    let (negative, s) = strip_sign(&cleaned);
    let sign = if negative { -1.0 } else { 1.0 };
    let magnitude = if s == ".inf" {
        f64::INFINITY
    } else if s == ".nan" {
        f64::NAN
    } else if s.contains(':') {
        let mut parts: Vec<&str> = s.split(':').collect();
        let last: f64 = parts.pop()?.parse().ok()?;
        parts.iter().try_fold(0.0f64, |acc, d| Some(acc * 60.0 + d.parse::<f64>().ok()?))? * 60.0 + last
    } else {
        s.parse::<f64>().ok()?
    };
    Some(sign * magnitude)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(s: &str) -> Scalar {
        resolve_scalar(s, true).unwrap()
    }

    #[test]
    fn booleans_include_yaml11_words() {
        assert_eq!(r("yes"), Scalar::Bool(true));
        assert_eq!(r("Off"), Scalar::Bool(false));
        assert_eq!(r("TRUE"), Scalar::Bool(true));
        assert_eq!(r("tRue"), Scalar::Str("tRue".into()));
        assert_eq!(r("y"), Scalar::Str("y".into()));
    }

    #[test]
    fn integers_in_every_base() {
        assert_eq!(r("60"), Scalar::Int(60));
        assert_eq!(r("-7"), Scalar::Int(-7));
        assert_eq!(r("1_000"), Scalar::Int(1000));
        assert_eq!(r("0"), Scalar::Int(0));
        assert_eq!(r("010"), Scalar::Int(8));
        assert_eq!(r("0x1F"), Scalar::Int(31));
        assert_eq!(r("0b101"), Scalar::Int(5));
        // 1*3600 + 20*60 + 5
        assert_eq!(r("1:20:05"), Scalar::Int(4805));
        assert_eq!(r("09"), Scalar::Str("09".into()));
        assert!(resolve_scalar("99999999999999999999", true).is_err());
    }

    #[test]
    fn floats_need_a_dot_and_a_signed_exponent() {
        assert_eq!(r("1.5"), Scalar::Float(1.5));
        assert_eq!(r("1."), Scalar::Float(1.0));
        assert_eq!(r(".5"), Scalar::Float(0.5));
        assert_eq!(r("-2.5e+3"), Scalar::Float(-2500.0));
        assert_eq!(r("1.0e3"), Scalar::Str("1.0e3".into()));
        assert_eq!(r("1e3"), Scalar::Str("1e3".into()));
        assert_eq!(r("-.inf"), Scalar::Float(f64::NEG_INFINITY));
        assert!(matches!(r(".nan"), Scalar::Float(x) if x.is_nan()));
        // 1*60 + 30.5
        assert_eq!(r("1:30.5"), Scalar::Float(90.5));
    }

    #[test]
    fn nulls_and_strings() {
        assert_eq!(r(""), Scalar::Null);
        assert_eq!(r("~"), Scalar::Null);
        assert_eq!(r("hello"), Scalar::Str("hello".into()));
        assert_eq!(r("/a/b.yaml"), Scalar::Str("/a/b.yaml".into()));
        assert_eq!(resolve_scalar("60", false).unwrap(), Scalar::Str("60".into()));
    }
}
