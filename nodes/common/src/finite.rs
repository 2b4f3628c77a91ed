//! Non-finite numbers in received messages: one check for every subscription.
//!
//! A NaN pose sent to the camera, a NaN light reading sent to a controller or an infinite
//! thrust sent to the physics would otherwise flow into renderers, firmware and the
//! integrator. [`FiniteGuard::admit`] finds the first NaN or infinite field of any
//! serialisable message (r2r messages and the contract types all are) and drops the
//! message with a rate-limited warning naming the topic and the field.

use std::time::{Duration, Instant};

use serde::{ser, Serialize};

/// The path of the first NaN or infinite number in `msg` (`modules[3].pose.position.x`),
/// `None` when every number is finite. Walks the message through `Serialize` without
/// allocating (it runs on every received message).
pub fn non_finite_field<T: Serialize + ?Sized>(msg: &T) -> Option<String> {
    let mut finder = Finder { path: Vec::new() };
    match msg.serialize(&mut finder) {
        Err(Stop::Found) => Some(finder.render()),
        _ => None,
    }
}

enum Segment {
    Field(&'static str),
    Index(usize),
}

struct Finder {
    path: Vec<Segment>,
}

impl Finder {
    fn render(&self) -> String {
        let mut out = String::new();
        for s in &self.path {
            match s {
                Segment::Field(name) => {
                    if !out.is_empty() {
                        out.push('.');
                    }
                    out.push_str(name);
                }
                Segment::Index(i) => out.push_str(&format!("[{i}]")),
            }
        }
        out
    }

    fn nested<T: Serialize + ?Sized>(&mut self, segment: Segment, value: &T) -> Result<(), Stop> {
        self.path.push(segment);
        value.serialize(&mut *self)?;
        self.path.pop();
        Ok(())
    }
}

/// Ends the walk: a non-finite number was found (the path is left in the finder).
#[derive(Debug)]
enum Stop {
    Found,
    Other,
}

impl std::fmt::Display for Stop {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("non-finite value")
    }
}

impl std::error::Error for Stop {}

impl ser::Error for Stop {
    fn custom<M: std::fmt::Display>(_: M) -> Self {
        Stop::Other
    }
}

/// Elements of a sequence, tuple or map, numbered.
struct Items<'a> {
    finder: &'a mut Finder,
    next: usize,
}

impl Items<'_> {
    fn item<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Stop> {
        self.next += 1;
        self.finder.nested(Segment::Index(self.next - 1), value)
    }
}

macro_rules! items {
    ($($trait:ident :: $method:ident),*) => {$(
        impl ser::$trait for Items<'_> {
            type Ok = ();
            type Error = Stop;
            fn $method<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Stop> {
                self.item(value)
            }
            fn end(self) -> Result<(), Stop> {
                Ok(())
            }
        }
    )*};
}
items!(
    SerializeSeq::serialize_element,
    SerializeTuple::serialize_element,
    SerializeTupleStruct::serialize_field,
    SerializeTupleVariant::serialize_field
);

impl ser::SerializeMap for Items<'_> {
    type Ok = ();
    type Error = Stop;
    fn serialize_key<T: Serialize + ?Sized>(&mut self, _key: &T) -> Result<(), Stop> {
        Ok(())
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Stop> {
        self.item(value)
    }
    fn end(self) -> Result<(), Stop> {
        Ok(())
    }
}

impl ser::SerializeStruct for Items<'_> {
    type Ok = ();
    type Error = Stop;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, key: &'static str, value: &T) -> Result<(), Stop> {
        self.finder.nested(Segment::Field(key), value)
    }
    fn end(self) -> Result<(), Stop> {
        Ok(())
    }
}

impl ser::SerializeStructVariant for Items<'_> {
    type Ok = ();
    type Error = Stop;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, key: &'static str, value: &T) -> Result<(), Stop> {
        self.finder.nested(Segment::Field(key), value)
    }
    fn end(self) -> Result<(), Stop> {
        Ok(())
    }
}

macro_rules! ignore {
    ($($method:ident($ty:ty)),*) => {$(
        fn $method(self, _: $ty) -> Result<(), Stop> {
            Ok(())
        }
    )*};
}

impl<'a> ser::Serializer for &'a mut Finder {
    type Ok = ();
    type Error = Stop;
    type SerializeSeq = Items<'a>;
    type SerializeTuple = Items<'a>;
    type SerializeTupleStruct = Items<'a>;
    type SerializeTupleVariant = Items<'a>;
    type SerializeMap = Items<'a>;
    type SerializeStruct = Items<'a>;
    type SerializeStructVariant = Items<'a>;

    ignore!(
        serialize_bool(bool),
        serialize_i8(i8),
        serialize_i16(i16),
        serialize_i32(i32),
        serialize_i64(i64),
        serialize_u8(u8),
        serialize_u16(u16),
        serialize_u32(u32),
        serialize_u64(u64),
        serialize_char(char),
        serialize_str(&str),
        serialize_bytes(&[u8]),
        serialize_unit_struct(&'static str)
    );

    fn serialize_f32(self, v: f32) -> Result<(), Stop> {
        if v.is_finite() {
            Ok(())
        } else {
            Err(Stop::Found)
        }
    }
    fn serialize_f64(self, v: f64) -> Result<(), Stop> {
        if v.is_finite() {
            Ok(())
        } else {
            Err(Stop::Found)
        }
    }
    fn serialize_none(self) -> Result<(), Stop> {
        Ok(())
    }
    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<(), Stop> {
        value.serialize(self)
    }
    fn serialize_unit(self) -> Result<(), Stop> {
        Ok(())
    }
    fn serialize_unit_variant(self, _: &'static str, _: u32, _: &'static str) -> Result<(), Stop> {
        Ok(())
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(self, _: &'static str, value: &T) -> Result<(), Stop> {
        value.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(self, _: &'static str, _: u32, _: &'static str, value: &T) -> Result<(), Stop> {
        value.serialize(self)
    }
    fn serialize_seq(self, _: Option<usize>) -> Result<Items<'a>, Stop> {
        Ok(Items { finder: self, next: 0 })
    }
    fn serialize_tuple(self, _: usize) -> Result<Items<'a>, Stop> {
        Ok(Items { finder: self, next: 0 })
    }
    fn serialize_tuple_struct(self, _: &'static str, _: usize) -> Result<Items<'a>, Stop> {
        Ok(Items { finder: self, next: 0 })
    }
    fn serialize_tuple_variant(self, _: &'static str, _: u32, _: &'static str, _: usize) -> Result<Items<'a>, Stop> {
        Ok(Items { finder: self, next: 0 })
    }
    fn serialize_map(self, _: Option<usize>) -> Result<Items<'a>, Stop> {
        Ok(Items { finder: self, next: 0 })
    }
    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Items<'a>, Stop> {
        Ok(Items { finder: self, next: 0 })
    }
    fn serialize_struct_variant(self, _: &'static str, _: u32, _: &'static str, _: usize) -> Result<Items<'a>, Stop> {
        Ok(Items { finder: self, next: 0 })
    }
}

/// Drops messages of one topic that hold a non-finite number, warning at most once per
/// interval (with the number dropped since the last warning).
#[derive(Debug)]
pub struct FiniteGuard {
    topic: String,
    interval: Duration,
    last_warning: Option<Instant>,
    dropped: u64,
}

impl FiniteGuard {
    /// A guard for `topic`, warning at most every 5 s.
    pub fn new(topic: impl Into<String>) -> Self {
        Self { topic: topic.into(), interval: Duration::from_secs(5), last_warning: None, dropped: 0 }
    }

    /// Whether `msg` may be used: false (and perhaps a warning) when a field is not finite.
    pub fn admit<T: Serialize + ?Sized>(&mut self, msg: &T) -> bool {
        let Some(field) = non_finite_field(msg) else { return true };
        self.dropped += 1;
        let now = Instant::now();
        if self.last_warning.is_none_or(|t| now.duration_since(t) >= self.interval) {
            tracing::warn!(topic = %self.topic, field = %field, dropped = self.dropped, "message with a non-finite value dropped");
            self.last_warning = Some(now);
            self.dropped = 0;
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Serialize)]
    struct Pose {
        x: f64,
        y: f64,
    }
    #[derive(Serialize)]
    struct State {
        water_level: f64,
        modules: Vec<Pose>,
    }

    /// Issue 21 item 9: NaN poses and water levels (camera) and NaN light readings
    /// (controllers) were used; the field is now found and the message dropped.
    #[test]
    fn item9_non_finite_fields_are_named_and_dropped() {
        let ok = State { water_level: -0.08, modules: vec![Pose { x: 0.0, y: 1.0 }] };
        assert_eq!(non_finite_field(&ok), None);
        let bad = State { water_level: -0.08, modules: vec![Pose { x: 0.0, y: 1.0 }, Pose { x: 0.0, y: f64::NAN }] };
        assert_eq!(non_finite_field(&bad).as_deref(), Some("modules[1].y"));
        let bad = State { water_level: f64::INFINITY, modules: vec![] };
        assert_eq!(non_finite_field(&bad).as_deref(), Some("water_level"));
        let mut guard = FiniteGuard::new("/tank/state");
        assert!(guard.admit(&ok));
        assert!(!guard.admit(&bad) && !guard.admit(&bad));
        assert!(non_finite_field(&[1.0f32, f32::NAN]).is_some());
    }
}
