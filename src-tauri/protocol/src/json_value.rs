//! A JSON `Value` decoder that sizes each object's map up front.
//!
//! serde_json's own decoder starts every object with an empty map and grows it key by key; with
//! `preserve_order` that map is an index table plus an entry vector, both reallocated (and the
//! table rehashed) as a call's arguments arrive. Growing them was about a tenth of a megabyte
//! parse. Arguments objects are small, so reserving room for a few keys first avoids nearly all
//! of that. The result is exactly the `Value` serde_json would build (checked by the tests).

use std::fmt;

use serde::de::{Deserialize, Deserializer, Error, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};

/// Room reserved in each object before its first key: most call arguments have fewer keys.
const OBJECT_KEYS: usize = 8;

/// A decoded JSON value; take it out with `.0`.
#[derive(Debug, Clone, PartialEq)]
pub struct JsonValue(pub Value);

/// Decodes `text` as one JSON value, like `serde_json::from_str::<Value>`.
pub fn from_str(text: &str) -> serde_json::Result<Value> {
    serde_json::from_str::<JsonValue>(text).map(|v| v.0)
}

struct ValueVisitor;

impl<'de> Visitor<'de> for ValueVisitor {
    type Value = JsonValue;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E: Error>(self, value: bool) -> Result<JsonValue, E> {
        Ok(JsonValue(Value::Bool(value)))
    }

    fn visit_i64<E: Error>(self, value: i64) -> Result<JsonValue, E> {
        Ok(JsonValue(Value::Number(value.into())))
    }

    fn visit_u64<E: Error>(self, value: u64) -> Result<JsonValue, E> {
        Ok(JsonValue(Value::Number(value.into())))
    }

    fn visit_f64<E: Error>(self, value: f64) -> Result<JsonValue, E> {
        Ok(JsonValue(
            Number::from_f64(value).map_or(Value::Null, Value::Number),
        ))
    }

    fn visit_str<E: Error>(self, value: &str) -> Result<JsonValue, E> {
        Ok(JsonValue(Value::String(value.to_owned())))
    }

    fn visit_string<E: Error>(self, value: String) -> Result<JsonValue, E> {
        Ok(JsonValue(Value::String(value)))
    }

    fn visit_none<E: Error>(self) -> Result<JsonValue, E> {
        Ok(JsonValue(Value::Null))
    }

    fn visit_unit<E: Error>(self) -> Result<JsonValue, E> {
        Ok(JsonValue(Value::Null))
    }

    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<JsonValue, D::Error> {
        JsonValue::deserialize(deserializer)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<JsonValue, A::Error> {
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0));
        while let Some(JsonValue(item)) = seq.next_element()? {
            items.push(item);
        }
        Ok(JsonValue(Value::Array(items)))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<JsonValue, A::Error> {
        let mut object = Map::with_capacity(map.size_hint().unwrap_or(OBJECT_KEYS));
        while let Some(key) = map.next_key::<String>()? {
            let JsonValue(value) = map.next_value()?;
            object.insert(key, value);
        }
        Ok(JsonValue(Value::Object(object)))
    }
}

impl<'de> Deserialize<'de> for JsonValue {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(ValueVisitor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builds_what_serde_json_builds() {
        let samples = [
            r#"{"name": "f", "arguments": {"b": 1, "a": [1, -2, 3.5, 1e300, 18446744073709551615]}}"#,
            r#"{"dup": 1, "x": {"y": {"z": [true, false, null, "é\u00e9\n\"q\""]}}, "dup": 2}"#,
            r#"[{}, [], "", 0, -0.0, {"k1":1,"k2":2,"k3":3,"k4":4,"k5":5,"k6":6,"k7":7,"k8":8,"k9":9}]"#,
            r#""just a string""#,
            "-12345678901234",
        ];
        for sample in samples {
            let ours = from_str(sample).expect("valid JSON");
            let theirs: Value = serde_json::from_str(sample).expect("valid JSON");
            assert_eq!(ours, theirs, "{sample}");
            // Same key order as well as the same content.
            assert_eq!(ours.to_string(), theirs.to_string(), "{sample}");
        }
    }

    #[test]
    fn errors_are_serde_jsons() {
        for bad in [r#"{"a": }"#, "[1, 2", r#"{"a": 1} x"#, ""] {
            let ours = from_str(bad).expect_err("invalid JSON").to_string();
            let theirs = serde_json::from_str::<Value>(bad)
                .expect_err("invalid JSON")
                .to_string();
            assert_eq!(ours, theirs, "{bad}");
        }
    }
}
