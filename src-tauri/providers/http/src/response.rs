//! Reading a response body under a byte cap and shaping it for the model (JSON pointer, kept
//! fields, or plain text).
//!
//! The body is read chunk by chunk and the read stops as soon as it passes the cap, so a server
//! that streams gigabytes costs at most the cap in memory.

use serde_json::{Map, Value};
use toolscope_protocol::request::json_kind;

use crate::definition::compile::ResponseSpec;

/// Bytes of an error response's body quoted in the failure message.
pub(crate) const ERROR_EXCERPT_BYTES: usize = 1024;

/// Why a body could not be read whole.
#[derive(Debug)]
pub(crate) enum BodyError {
    TooLarge { cap: u64, declared: Option<u64> },
    Read(reqwest::Error),
}

/// Reads the whole body, failing as soon as it would exceed `cap` bytes, and hands each piece
/// to `on_piece` as it arrives (a streamable tool's progress).
pub(crate) async fn read_capped(
    response: &mut reqwest::Response,
    cap: u64,
    mut on_piece: impl FnMut(&[u8]),
) -> Result<Vec<u8>, BodyError> {
    if let Some(declared) = response.content_length() {
        if declared > cap {
            return Err(BodyError::TooLarge {
                cap,
                declared: Some(declared),
            });
        }
    }
    let initial = response.content_length().unwrap_or(0).min(cap).min(1 << 20);
    let mut body = Vec::with_capacity(usize::try_from(initial).unwrap_or(0));
    while let Some(chunk) = response.chunk().await.map_err(BodyError::Read)? {
        if (body.len() + chunk.len()) as u64 > cap {
            return Err(BodyError::TooLarge {
                cap,
                declared: None,
            });
        }
        body.extend_from_slice(&chunk);
        on_piece(&chunk);
    }
    Ok(body)
}

/// The first bytes of an error body, as text; read errors end the excerpt quietly.
pub(crate) async fn read_excerpt(response: &mut reqwest::Response) -> String {
    let mut body = Vec::new();
    let mut cut = false;
    while let Ok(Some(chunk)) = response.chunk().await {
        body.extend_from_slice(&chunk);
        if body.len() > ERROR_EXCERPT_BYTES {
            body.truncate(ERROR_EXCERPT_BYTES);
            cut = true;
            break;
        }
    }
    let mut text = String::from_utf8_lossy(&body).trim().to_owned();
    if cut {
        // A multi-byte character cut in half shows as U+FFFD at the end: drop it.
        text = text.trim_end_matches('\u{FFFD}').to_owned();
        text.push_str(" …[truncated]");
    }
    text
}

/// Whether a `Content-Type` says JSON (`application/json`, `application/problem+json`, ...).
pub(crate) fn is_json_content_type(content_type: &str) -> bool {
    let essence = content_type
        .split(';')
        .next()
        .unwrap_or_default()
        .trim()
        .to_ascii_lowercase();
    essence.ends_with("/json") || essence.ends_with("+json")
}

/// Turns a successful body into the call's result: JSON parsed and shaped, other text as is.
pub(crate) fn shape_body(
    body: &[u8],
    content_type: Option<&str>,
    spec: &ResponseSpec,
) -> Result<Value, String> {
    let transforms = spec.pointer.is_some() || spec.fields.is_some();
    let declared_json = content_type.is_some_and(is_json_content_type);
    let parsed = if declared_json || content_type.is_none() || transforms {
        serde_json::from_slice::<Value>(body).map_err(|e| e.to_string())
    } else {
        Err(String::new())
    };
    let value = match parsed {
        Ok(value) => value,
        Err(error) if declared_json => {
            return Err(format!(
                "the server said the body is JSON but it is not: {error}"
            ))
        }
        Err(_) if transforms => {
            return Err(format!(
                "the response is not JSON (content type {}), so the response pointer/fields \
                 cannot be applied",
                content_type.unwrap_or("not given")
            ))
        }
        Err(_) => return Ok(Value::String(String::from_utf8_lossy(body).into_owned())),
    };
    let value = match &spec.pointer {
        Some(pointer) => select_pointer(value, pointer)?,
        None => value,
    };
    match &spec.fields {
        Some(fields) => keep_fields(value, fields),
        None => Ok(value),
    }
}

/// The value at `pointer`, or an error naming the deepest part of the pointer that matched.
pub(crate) fn select_pointer(mut value: Value, pointer: &str) -> Result<Value, String> {
    if let Some(found) = value.pointer_mut(pointer) {
        return Ok(found.take());
    }
    let tokens: Vec<&str> = pointer.split('/').skip(1).collect();
    let mut matched = String::new();
    let mut at = &value;
    for token in tokens {
        let step = format!("{matched}/{token}");
        match at.pointer(&format!("/{token}")) {
            Some(next) => {
                at = next;
                matched = step;
            }
            None => break,
        }
    }
    let here = if matched.is_empty() {
        "the top level".to_owned()
    } else {
        format!("'{matched}'")
    };
    let detail = match at {
        Value::Object(map) => format!(
            "{here} is an object with keys: {}",
            map.keys().take(20).cloned().collect::<Vec<_>>().join(", ")
        ),
        Value::Array(items) => format!("{here} is an array of {} items", items.len()),
        other => format!("{here} is {}", json_kind(other)),
    };
    Err(format!(
        "the response has nothing at JSON pointer '{pointer}': {detail}"
    ))
}

/// Keeps only `fields` (dotted paths, already split) of an object or of each object of an
/// array; fields the data lacks are left out.
pub(crate) fn keep_fields(value: Value, fields: &[Vec<String>]) -> Result<Value, String> {
    match value {
        Value::Object(map) => Ok(Value::Object(pick(&map, fields))),
        Value::Array(items) => items
            .into_iter()
            .enumerate()
            .map(|(i, item)| match item {
                Value::Object(map) => Ok(Value::Object(pick(&map, fields))),
                other => Err(format!(
                    "response fields need objects, but item {i} of the array is {}",
                    json_kind(&other)
                )),
            })
            .collect::<Result<Vec<_>, _>>()
            .map(Value::Array),
        other => Err(format!(
            "response fields need an object or an array of objects, got {}",
            json_kind(&other)
        )),
    }
}

fn pick(source: &Map<String, Value>, fields: &[Vec<String>]) -> Map<String, Value> {
    let mut out = Map::new();
    for path in fields {
        let Some((first, rest)) = path.split_first() else {
            continue;
        };
        let mut found = source.get(first);
        for segment in rest {
            found = found.and_then(|v| v.get(segment.as_str()));
        }
        if let Some(found) = found {
            insert_at(&mut out, path, found.clone());
        }
    }
    out
}

fn insert_at(out: &mut Map<String, Value>, path: &[String], value: Value) {
    let Some((last, parents)) = path.split_last() else {
        return;
    };
    let mut at = out;
    for segment in parents {
        let slot = at
            .entry(segment.clone())
            .or_insert_with(|| Value::Object(Map::new()));
        if !slot.is_object() {
            *slot = Value::Object(Map::new());
        }
        let Value::Object(next) = slot else { return };
        at = next;
    }
    at.insert(last.clone(), value);
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn spec(pointer: Option<&str>, fields: Option<&[&str]>) -> ResponseSpec {
        ResponseSpec {
            pointer: pointer.map(str::to_owned),
            fields: fields.map(|f| {
                f.iter()
                    .map(|p| p.split('.').map(str::to_owned).collect())
                    .collect()
            }),
            max_bytes: 1024,
        }
    }

    #[test]
    fn pointer_then_fields() {
        let body = br#"{"data":{"items":[{"a":1,"b":{"c":2,"d":3},"e":4},{"a":5}]}}"#;
        let out = shape_body(
            body,
            Some("application/json"),
            &spec(Some("/data/items"), Some(&["a", "b.c"])),
        )
        .expect("shapes");
        assert_eq!(out, json!([{"a": 1, "b": {"c": 2}}, {"a": 5}]));
    }

    #[test]
    fn missing_pointer_says_what_is_there() {
        let err =
            select_pointer(json!({"data": {"list": []}}), "/data/items/0").expect_err("no match");
        assert!(
            err.contains("'/data' is an object with keys: list"),
            "{err}"
        );
    }

    #[test]
    fn text_bodies_stay_text_and_bad_json_is_reported() {
        let s = spec(None, None);
        assert_eq!(
            shape_body(b"<b>hi</b>", Some("text/html"), &s),
            Ok(json!("<b>hi</b>"))
        );
        assert_eq!(shape_body(b"plain", None, &s), Ok(json!("plain")));
        assert!(
            shape_body(b"{oops", Some("application/json; charset=utf-8"), &s)
                .expect_err("bad json")
                .contains("not")
        );
        assert!(
            shape_body(b"x", Some("text/plain"), &spec(Some("/a"), None))
                .expect_err("no json")
                .contains("not JSON")
        );
        assert!(is_json_content_type("application/problem+json"));
    }

    #[test]
    fn fields_need_objects() {
        let f = [vec!["a".to_owned()]];
        assert!(keep_fields(json!("x"), &f).is_err());
        assert!(keep_fields(json!([{"a": 1}, 2]), &f)
            .expect_err("item")
            .contains("item 1"));
    }
}
