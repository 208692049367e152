//! The part of a parameter schema an argument broke, and an example of a value it accepts.
//!
//! A failing path alone ("/days: 9 is greater than 7") tells a model what was wrong, not what is
//! right; showing the schema fragment at that path and one literal it accepts turns the next
//! attempt from a guess into a copy. Examples are derived, never invented from descriptions:
//! `const`, then the first `enum` value, `examples` or `default`, then a typical literal of the
//! type that respects its bounds and format. Where no short, plausibly valid literal follows
//! from the schema (a `pattern`, a `$ref`, a long object), there is no example rather than a
//! wrong one.

use serde_json::{Map, Value};

/// A schema fragment longer than this is cut (the model has the full schema already).
const MAX_FRAGMENT: usize = 600;
/// An example longer than this is left out: it would bury the fragment it illustrates.
const MAX_EXAMPLE: usize = 120;
/// How deep objects and arrays are followed for an example.
const MAX_DEPTH: usize = 3;

/// The part of `schema` that governs the value at JSON pointer `path` (`/a/0/b`), following
/// `properties` and `items`. `None` when the path leaves what the schema describes.
pub fn node_at<'a>(schema: &'a Value, path: &str) -> Option<&'a Value> {
    let mut node = schema;
    for segment in path.split('/').skip(1).filter(|s| !s.is_empty()) {
        let segment = segment.replace("~1", "/").replace("~0", "~");
        node = match node.get("properties").and_then(|p| p.get(&segment)) {
            Some(child) => child,
            None => match node.get("items") {
                Some(items) if segment.parse::<usize>().is_ok() => items,
                _ => return None,
            },
        };
    }
    Some(node)
}

/// The fragment at `path` as one line: the node itself, or for the arguments object its
/// `required` list and property names (its full schema is what the model was already shown).
pub fn fragment_at(schema: &Value, path: &str) -> Option<String> {
    let node = node_at(schema, path)?;
    if std::ptr::eq(node, schema) {
        let required = schema.get("required").map(compact);
        let properties: Vec<&str> = schema
            .get("properties")
            .and_then(Value::as_object)
            .map(|p| p.keys().map(String::as_str).collect())
            .unwrap_or_default();
        return Some(format!(
            "required {}, properties [{}]",
            required.as_deref().unwrap_or("[]"),
            properties.join(", ")
        ));
    }
    Some(compact(node))
}

/// A short literal that `schema` accepts, as compact JSON.
pub fn example_text(schema: &Value) -> Option<String> {
    let text = example(schema, 0)?.to_string();
    (text.chars().count() <= MAX_EXAMPLE).then_some(text)
}

/// A value `schema` accepts, if one follows from it.
pub fn example(schema: &Value, depth: usize) -> Option<Value> {
    let schema = schema.as_object()?;
    if let Some(value) = schema.get("const") {
        return Some(value.clone());
    }
    if let Some(first) = schema
        .get("enum")
        .and_then(Value::as_array)
        .and_then(|e| e.first())
    {
        return Some(first.clone());
    }
    let listed = schema
        .get("examples")
        .and_then(Value::as_array)
        .and_then(|e| e.first())
        .or_else(|| schema.get("default"));
    if let Some(value) = listed {
        return Some(value.clone());
    }
    if schema.contains_key("$ref") || depth > MAX_DEPTH {
        return None;
    }
    for combinator in ["anyOf", "oneOf", "allOf"] {
        if let Some(first) = schema
            .get(combinator)
            .and_then(Value::as_array)
            .and_then(|b| b.first())
        {
            return example(first, depth + 1);
        }
    }
    match type_of(schema)? {
        "string" => string_example(schema),
        "integer" => number_example(schema, true),
        "number" => number_example(schema, false),
        "boolean" => Some(Value::Bool(true)),
        "null" => Some(Value::Null),
        "array" => array_example(schema, depth),
        "object" => object_example(schema, depth),
        _ => None,
    }
}

/// The schema's type: the first non-null one of a list, else implied by its keywords.
fn type_of(schema: &Map<String, Value>) -> Option<&str> {
    match schema.get("type") {
        Some(Value::String(t)) => Some(t),
        Some(Value::Array(types)) => types
            .iter()
            .filter_map(Value::as_str)
            .find(|t| *t != "null")
            .or_else(|| types.first().and_then(Value::as_str)),
        _ if schema.contains_key("properties") => Some("object"),
        _ if schema.contains_key("items") => Some("array"),
        _ => None,
    }
}

fn string_example(schema: &Map<String, Value>) -> Option<Value> {
    let by_format = match schema.get("format").and_then(Value::as_str) {
        Some("date-time") => Some("2025-01-31T12:00:00Z"),
        Some("date") => Some("2025-01-31"),
        Some("time") => Some("12:00:00Z"),
        Some("duration") => Some("PT30S"),
        Some("email") => Some("user@example.com"),
        Some("uri" | "url" | "iri") => Some("https://example.com"),
        Some("hostname") => Some("example.com"),
        Some("ipv4") => Some("192.0.2.1"),
        Some("ipv6") => Some("2001:db8::1"),
        Some("uuid") => Some("123e4567-e89b-12d3-a456-426614174000"),
        _ => None,
    };
    if let Some(text) = by_format {
        return Some(Value::from(text));
    }
    // A pattern can demand anything: better no example than one it rejects.
    if schema.contains_key("pattern") {
        return None;
    }
    let min = bound(schema, "minLength").unwrap_or(0.0) as usize;
    let max = bound(schema, "maxLength").map_or(usize::MAX, |m| m as usize);
    let mut text = String::from("text");
    if text.len() < min {
        text.push_str(&"x".repeat(min - text.len()));
    }
    text.truncate(max.min(text.len()));
    (text.len() <= MAX_EXAMPLE).then(|| Value::from(text))
}

fn number_example(schema: &Map<String, Value>, integer: bool) -> Option<Value> {
    // The nearest allowed value to a typical one (1, or 1.5 where fractions are allowed).
    let step = if integer { 1.0 } else { 0.5 };
    let low = [
        bound(schema, "minimum").map(|m| if integer { m.ceil() } else { m }),
        bound(schema, "exclusiveMinimum").map(|m| if integer { m.floor() + 1.0 } else { m + step }),
    ]
    .into_iter()
    .flatten()
    .reduce(f64::max);
    let high = [
        bound(schema, "maximum").map(|m| if integer { m.floor() } else { m }),
        bound(schema, "exclusiveMaximum").map(|m| if integer { m.ceil() - 1.0 } else { m - step }),
    ]
    .into_iter()
    .flatten()
    .reduce(f64::min);
    let mut value: f64 = if integer { 1.0 } else { 1.5 };
    match (low, high) {
        (Some(low), Some(high)) if low > high => {
            // A range narrower than the step: its middle, where fractions are allowed.
            let lowest = bound(schema, "minimum").or_else(|| bound(schema, "exclusiveMinimum"))?;
            let highest = bound(schema, "maximum").or_else(|| bound(schema, "exclusiveMaximum"))?;
            if integer || lowest >= highest {
                return None;
            }
            value = (lowest + highest) / 2.0;
        }
        (low, high) => {
            if let Some(low) = low.filter(|l| value < *l) {
                value = low;
            }
            if let Some(high) = high.filter(|h| value > *h) {
                value = high;
            }
        }
    }
    if let Some(multiple) = bound(schema, "multipleOf").filter(|m| *m > 0.0) {
        value = (value / multiple).ceil() * multiple;
        if high.is_some_and(|h| value > h) {
            return None;
        }
    }
    if integer {
        // A fractional multipleOf can leave no whole number: then no example.
        return (value.fract() == 0.0 && value.abs() < 1e15).then(|| Value::from(value as i64));
    }
    serde_json::Number::from_f64(value).map(Value::Number)
}

fn array_example(schema: &Map<String, Value>, depth: usize) -> Option<Value> {
    let count = bound(schema, "minItems").unwrap_or(0.0) as usize;
    let item = schema
        .get("items")
        .and_then(|items| example(items, depth + 1));
    match item {
        Some(item) if count <= MAX_DEPTH => Some(Value::Array(vec![item; count.max(1)])),
        None if count == 0 => Some(Value::Array(Vec::new())),
        _ => None,
    }
}

/// The required properties with their examples; optional ones are left for the model to add.
fn object_example(schema: &Map<String, Value>, depth: usize) -> Option<Value> {
    let properties = schema.get("properties").and_then(Value::as_object);
    let mut out = Map::new();
    for name in schema
        .get("required")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
    {
        let property = properties.and_then(|p| p.get(name))?;
        out.insert(name.to_owned(), example(property, depth + 1)?);
    }
    Some(Value::Object(out))
}

fn bound(schema: &Map<String, Value>, key: &str) -> Option<f64> {
    schema.get(key).and_then(Value::as_f64)
}

/// A value as one line of JSON, cut at [`MAX_FRAGMENT`] bytes.
pub fn compact(value: &Value) -> String {
    let text = value.to_string();
    if text.len() <= MAX_FRAGMENT {
        return text;
    }
    let mut end = MAX_FRAGMENT;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &text[..end])
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn ex(schema: Value) -> Option<String> {
        example_text(&schema)
    }

    #[test]
    fn listed_values_come_first() {
        assert_eq!(
            ex(json!({"const": "v1", "type": "string"})).as_deref(),
            Some(r#""v1""#)
        );
        assert_eq!(ex(json!({"enum": ["c", "f"]})).as_deref(), Some(r#""c""#));
        assert_eq!(
            ex(json!({"type": "integer", "examples": [7]})).as_deref(),
            Some("7")
        );
        assert_eq!(
            ex(json!({"type": "integer", "default": 3})).as_deref(),
            Some("3")
        );
    }

    #[test]
    fn types_give_typical_literals_within_their_bounds() {
        assert_eq!(ex(json!({"type": "string"})).as_deref(), Some(r#""text""#));
        assert_eq!(
            ex(json!({"type": "string", "format": "date-time"})).as_deref(),
            Some(r#""2025-01-31T12:00:00Z""#)
        );
        assert_eq!(
            ex(json!({"type": "string", "minLength": 6})).as_deref(),
            Some(r#""textxx""#)
        );
        assert_eq!(
            ex(json!({"type": "string", "maxLength": 2})).as_deref(),
            Some(r#""te""#)
        );
        assert_eq!(ex(json!({"type": "string", "pattern": "^[A-Z]{3}$"})), None);
        assert_eq!(ex(json!({"type": "integer"})).as_deref(), Some("1"));
        assert_eq!(
            ex(json!({"type": "integer", "minimum": 5, "maximum": 7})).as_deref(),
            Some("5")
        );
        assert_eq!(
            ex(json!({"type": "integer", "maximum": -2})).as_deref(),
            Some("-2")
        );
        assert_eq!(
            ex(json!({"type": "integer", "exclusiveMinimum": 1})).as_deref(),
            Some("2")
        );
        assert_eq!(
            ex(json!({"type": "integer", "minimum": 3, "multipleOf": 5})).as_deref(),
            Some("5")
        );
        assert_eq!(
            ex(json!({"type": "number", "exclusiveMaximum": 1})).as_deref(),
            Some("0.5")
        );
        assert_eq!(
            ex(json!({"type": ["null", "boolean"]})).as_deref(),
            Some("true")
        );
    }

    #[test]
    fn containers_hold_examples_of_what_they_require() {
        let schema = json!({
            "type": "object",
            "required": ["city", "when"],
            "properties": {
                "city": {"type": "string"},
                "when": {"type": "string", "format": "date"},
                "days": {"type": "integer"}
            }
        });
        assert_eq!(
            ex(schema).as_deref(),
            Some(r#"{"city":"text","when":"2025-01-31"}"#)
        );
        assert_eq!(
            ex(json!({"type": "array", "items": {"enum": ["a", "b"]}, "minItems": 2})).as_deref(),
            Some(r#"["a","a"]"#)
        );
        assert_eq!(ex(json!({"type": "array"})).as_deref(), Some("[]"));
        // A required property with no schema, a `$ref`: no example rather than a wrong one.
        assert_eq!(ex(json!({"type": "object", "required": ["x"]})), None);
        assert_eq!(ex(json!({"$ref": "#/$defs/a"})), None);
        assert_eq!(
            ex(json!({"anyOf": [{"type": "boolean"}, {"type": "string"}]})).as_deref(),
            Some("true")
        );
    }

    #[test]
    fn fragments_follow_properties_and_items() {
        let schema = json!({
            "type": "object",
            "required": ["tags"],
            "properties": {"tags": {"type": "array", "items": {"type": "string", "enum": ["a"]}}}
        });
        assert_eq!(
            fragment_at(&schema, "/tags/0").as_deref(),
            Some(r#"{"type":"string","enum":["a"]}"#)
        );
        assert_eq!(
            fragment_at(&schema, "/").as_deref(),
            Some(r#"required ["tags"], properties [tags]"#)
        );
        assert_eq!(fragment_at(&schema, "/other"), None);
        assert_eq!(fragment_at(&schema, "/tags/x"), None);
    }
}
