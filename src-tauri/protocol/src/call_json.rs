//! Call objects read straight from JSON text, without building a map for the call itself.
//!
//! Most text formats wrap each call in a JSON object (`{"name": …, "arguments": {…}}`) or a list
//! of them. Decoding such an object into a `Value` first hashes and stores every key of the
//! call (and a map lookup per candidate key afterwards), which was a tenth of a megabyte parse.
//! Here the keys are matched against the handful the common shapes use while the text is read;
//! only the values that matter are decoded, the rest are skipped. [`CallFields`] is also built
//! from an already decoded map, so both routes share one set of rules and messages.
//!
//! The name is under `name`, `tool_name` or `function_name`; OpenAI's shape nests the call in
//! a `function` object. A `function` string names the call when no name key is there and an
//! arguments key is (LocalAI's grammar-mode shape, `pkg/functions/parse.go`
//! `ParseFunctionCall`). Keys a prompt invents (`params`, `output`) are not read: no reference
//! parser reads them by default. An object with no arguments key but other keys beside its
//! name (`{"name": "search", "query": "x"}`, the arguments written flat) is skipped with an
//! error naming those keys, as vLLM's hermes and llama3_json parsers reject it; llama.cpp and
//! SGLang would run it with no arguments, dropping what the model wrote without a word.

use std::fmt;

use serde::de::{self, Deserialize, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};

use crate::calls::{arguments, Call};
use crate::json_value::JsonValue;
use crate::request::{DiagnosticCode, Span};

/// Where a key of a call object goes: each group is in precedence order (`name` beats
/// `tool_name` wherever they appear in the object).
const NAME_KEYS: [&str; 3] = ["name", "tool_name", "function_name"];
const ID_KEYS: [&str; 3] = ["id", "call_id", "tool_call_id"];
pub(crate) const ARGUMENT_KEYS: [&str; 4] = ["arguments", "parameters", "args", "input"];

/// The values of a call object under the keys any common shape uses: per group, the value of
/// the key that comes first in the group's order (a repeated key keeps its last value, as a
/// decoded JSON map does).
#[derive(Debug, Default)]
pub struct CallFields {
    /// OpenAI's nested `{"type": "function", "function": {...}}`.
    function: Option<Value>,
    name: Ranked,
    id: Ranked,
    arguments: Ranked,
    /// Keys that are none of the above nor metadata (`{"name": "f", "city": "Paris"}`: the
    /// arguments written beside the name), the first few by name, and how many there were.
    flat_keys: Vec<String>,
    flat_count: usize,
}

/// How many of the flat keys a message names.
const FLAT_KEYS_NAMED: usize = 3;

/// A value with the position of its key in the group's order.
type Ranked = Option<(usize, Value)>;

enum Slot {
    Function,
    Name(usize),
    Id(usize),
    Argument(usize),
    /// A key a call object may carry beside its fields without meaning anything
    /// (`"type": "function"`, a list `index`).
    Metadata,
    /// Any other key: a value the model wrote that is not a known field.
    Flat(String),
}

impl Slot {
    fn of(key: &str) -> Self {
        if key == "function" {
            return Self::Function;
        }
        let position = |keys: &[&str]| keys.iter().position(|k| *k == key);
        if let Some(i) = position(&NAME_KEYS) {
            Self::Name(i)
        } else if let Some(i) = position(&ID_KEYS) {
            Self::Id(i)
        } else if let Some(i) = position(&ARGUMENT_KEYS) {
            Self::Argument(i)
        } else if matches!(key, "type" | "index") {
            Self::Metadata
        } else {
            Self::Flat(key.to_owned())
        }
    }
}

fn keep(held: &mut Ranked, rank: usize, value: Value) {
    if held.as_ref().is_none_or(|(current, _)| rank <= *current) {
        *held = Some((rank, value));
    }
}

impl CallFields {
    fn put(&mut self, slot: Slot, value: Value) {
        match slot {
            Slot::Function => self.function = Some(value),
            Slot::Name(rank) => keep(&mut self.name, rank, value),
            Slot::Id(rank) => keep(&mut self.id, rank, value),
            Slot::Argument(rank) => keep(&mut self.arguments, rank, value),
            Slot::Metadata => {}
            Slot::Flat(key) => self.note_flat(key),
        }
    }

    fn note_flat(&mut self, key: String) {
        self.flat_count += 1;
        if self.flat_keys.len() < FLAT_KEYS_NAMED {
            self.flat_keys.push(key);
        }
    }

    /// Why a call without an arguments key is not read as a call without arguments: other keys
    /// beside its name hold what the model meant as arguments. vLLM's hermes and llama3_json
    /// parsers reject such an object (no `arguments` key); running it with none of the values
    /// the model wrote, as a lenient reader would, hides them.
    fn flat_arguments(&self) -> Option<String> {
        if self.arguments.is_some() || self.flat_count == 0 {
            return None;
        }
        let mut named: Vec<String> = self.flat_keys.iter().map(|k| format!("\"{k}\"")).collect();
        if self.flat_count > named.len() {
            named.push(format!("{} more", self.flat_count - named.len()));
        }
        let (keys, verb) = match named.as_slice() {
            [one] => (one.clone(), "is"),
            _ => (named.join(", "), "are"),
        };
        Some(format!(
            "the call has no \"arguments\": {keys} beside its name {verb} not read as \
             arguments (write {{\"name\": …, \"arguments\": {{…}}}}); the call is skipped"
        ))
    }

    /// Picks the fields out of a decoded object (taking the values, not copying them).
    pub fn from_map(object: Map<String, Value>) -> Self {
        let mut fields = Self::default();
        for (key, value) in object {
            fields.put(Slot::of(&key), value);
        }
        fields
    }

    /// The call these fields describe, or why they describe none.
    pub fn into_call(self) -> Result<Call, (DiagnosticCode, String)> {
        let flat = self.flat_arguments();
        let function_name = match self.function {
            Some(Value::Object(function)) => {
                let nested = Self::from_map(function);
                if let (None, Some((rank, _))) = (&nested.arguments, &self.arguments) {
                    // `{"function": {"name": …}, "parameters": {…}}`: no reference pairs them.
                    let key = ARGUMENT_KEYS.get(*rank).copied().unwrap_or("arguments");
                    return Err((
                        DiagnosticCode::UnknownKey,
                        format!(
                            "the call's \"function\" has no \"arguments\": the \"{key}\" \
                             beside it are not read as its arguments (write {{\"function\": \
                             {{\"name\": …, \"arguments\": …}}}}); the call is skipped"
                        ),
                    ));
                }
                let mut call = nested.into_call()?;
                if call.id.is_none() {
                    // Only a plain "id" names the call beside a nested function.
                    call.id = match self.id {
                        Some((0, Value::String(id))) => Some(id),
                        _ => None,
                    };
                }
                return Ok(call);
            }
            // LocalAI's grammar mode names the function under "function" beside "arguments"
            // (`{"arguments": {…}, "function": "get_weather"}`, `ParseFunctionCall` with its
            // `function_name_key`), and BFCL's Meerkat handler decodes `{"function": …,
            // "parameters": …}`. Only beside those two, as LocalAI skips an object without
            // arguments (no reference pairs it with "args" or "input"), and only without a
            // name key, which says more.
            Some(name @ Value::String(_)) if matches!(self.arguments, Some((0 | 1, _))) => {
                Some(name)
            }
            Some(Value::String(_)) => {
                if self.name.is_none() {
                    return Err((
                        DiagnosticCode::MissingToolName,
                        "the call has no \"name\" (a \"function\" string names a call only \
                         beside \"arguments\" or \"parameters\"); it is skipped"
                            .to_owned(),
                    ));
                }
                None
            }
            _ => None,
        };
        let (_, name) = self.name.or(function_name.map(|name| (0, name))).ok_or((
            DiagnosticCode::MissingToolName,
            "the call has no \"name\"; it is skipped".to_owned(),
        ))?;
        let name = match name {
            Value::String(name) if !name.trim().is_empty() => {
                if name.trim().len() == name.len() {
                    name
                } else {
                    name.trim().to_owned()
                }
            }
            _ => {
                return Err((
                    DiagnosticCode::MissingToolName,
                    "the call's \"name\" is not a non-empty string; it is skipped".to_owned(),
                ))
            }
        };
        if let Some(message) = flat {
            return Err((DiagnosticCode::UnknownKey, message));
        }
        // The first id key present decides; an id that is not a string is no id.
        let id = match self.id {
            Some((_, Value::String(id))) => Some(id),
            _ => None,
        };
        let args = match self.arguments {
            None | Some((_, Value::Null)) => Map::new(),
            Some((rank, value)) => arguments(
                ARGUMENT_KEYS.get(rank).copied().unwrap_or("arguments"),
                value,
            )?,
        };
        Ok(Call { name, args, id })
    }
}

/// One element where a call is expected: a call object, or the kind of value found instead.
#[derive(Debug)]
pub enum CallItem {
    Object(Box<CallFields>),
    NotObject(&'static str),
}

impl CallItem {
    pub fn into_call(self) -> Result<Call, (DiagnosticCode, String)> {
        match self {
            Self::Object(fields) => fields.into_call(),
            Self::NotObject(kind) => Err((
                DiagnosticCode::InvalidJson,
                format!("a call must be a JSON object, found {kind}"),
            )),
        }
    }
}

/// A JSON document holding calls: one call (or a value that is not one), or a list of them.
#[derive(Debug)]
pub enum CallDocument {
    One(CallItem),
    List(Vec<CallItem>),
}

/// The elements of the JSON list at `text[span]`, each decoded with its own span, in one pass.
/// `None` when the text is not exactly one well-formed list: the caller then reads it piece by
/// piece, with diagnostics.
pub fn list_items(text: &str, span: Span) -> Option<Vec<(Span, CallItem)>> {
    let bytes = text.get(..span.end)?.as_bytes();
    // JSON's whitespace, nothing more.
    let skip_space = |mut i: usize| {
        while bytes
            .get(i)
            .is_some_and(|b| matches!(b, b' ' | b'\t' | b'\n' | b'\r'))
        {
            i += 1;
        }
        i
    };
    let mut at = skip_space(span.start);
    if bytes.get(at) != Some(&b'[') {
        return None;
    }
    at = skip_space(at + 1);
    let mut items = Vec::new();
    if bytes.get(at) == Some(&b']') {
        at += 1;
    } else {
        loop {
            // A stream deserializer stops right after one value and says where.
            let mut values =
                serde_json::Deserializer::from_str(text.get(at..span.end)?).into_iter::<CallItem>();
            let item = values.next()?.ok()?;
            let end = at + values.byte_offset();
            items.push((Span::new(at, end), item));
            at = skip_space(end);
            match bytes.get(at) {
                Some(b',') => at = skip_space(at + 1),
                Some(b']') => {
                    at += 1;
                    break;
                }
                _ => return None,
            }
        }
    }
    (skip_space(at) == span.end).then_some(items)
}

/// Reads any JSON value; a map becomes [`CallFields`], anything else only says what it was.
/// `LIST` makes a top-level array a list of items instead of one non-call.
struct ItemVisitor<const LIST: bool>;

enum Visited {
    Item(CallItem),
    List(Vec<CallItem>),
}

impl<'de, const LIST: bool> Visitor<'de> for ItemVisitor<LIST> {
    type Value = Visited;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Visited, A::Error> {
        let mut fields = CallFields::default();
        while let Some(slot) = map.next_key::<Slot>()? {
            match slot {
                Slot::Metadata => {
                    map.next_value::<IgnoredAny>()?;
                }
                Slot::Flat(key) => {
                    map.next_value::<IgnoredAny>()?;
                    fields.note_flat(key);
                }
                slot => {
                    let JsonValue(value) = map.next_value()?;
                    fields.put(slot, value);
                }
            }
        }
        Ok(Visited::Item(CallItem::Object(Box::new(fields))))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Visited, A::Error> {
        if !LIST {
            while seq.next_element::<IgnoredAny>()?.is_some() {}
            return Ok(Visited::Item(CallItem::NotObject("an array")));
        }
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0));
        while let Some(item) = seq.next_element::<CallItem>()? {
            items.push(item);
        }
        Ok(Visited::List(items))
    }

    fn visit_unit<E: de::Error>(self) -> Result<Visited, E> {
        Ok(Visited::Item(CallItem::NotObject("null")))
    }

    fn visit_none<E: de::Error>(self) -> Result<Visited, E> {
        self.visit_unit()
    }

    fn visit_bool<E: de::Error>(self, _: bool) -> Result<Visited, E> {
        Ok(Visited::Item(CallItem::NotObject("a boolean")))
    }

    fn visit_i64<E: de::Error>(self, _: i64) -> Result<Visited, E> {
        Ok(Visited::Item(CallItem::NotObject("a number")))
    }

    fn visit_u64<E: de::Error>(self, _: u64) -> Result<Visited, E> {
        Ok(Visited::Item(CallItem::NotObject("a number")))
    }

    fn visit_f64<E: de::Error>(self, _: f64) -> Result<Visited, E> {
        Ok(Visited::Item(CallItem::NotObject("a number")))
    }

    fn visit_str<E: de::Error>(self, _: &str) -> Result<Visited, E> {
        Ok(Visited::Item(CallItem::NotObject("a string")))
    }
}

/// A single element where a call is expected: a list there is not a call.
impl<'de> Deserialize<'de> for CallItem {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        match deserializer.deserialize_any(ItemVisitor::<false>)? {
            Visited::Item(item) => Ok(item),
            Visited::List(_) => Ok(Self::NotObject("an array")),
        }
    }
}

impl<'de> Deserialize<'de> for CallDocument {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Ok(match deserializer.deserialize_any(ItemVisitor::<true>)? {
            Visited::Item(item) => Self::One(item),
            Visited::List(items) => Self::List(items),
        })
    }
}

impl<'de> Deserialize<'de> for Slot {
    /// Keys are matched as they are read, so none is allocated or hashed.
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct KeyVisitor;
        impl Visitor<'_> for KeyVisitor {
            type Value = Slot;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an object key")
            }
            fn visit_str<E: de::Error>(self, key: &str) -> Result<Slot, E> {
                Ok(Slot::of(key))
            }
        }
        deserializer.deserialize_str(KeyVisitor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(json: &str) -> Result<Call, (DiagnosticCode, String)> {
        match serde_json::from_str::<CallItem>(json) {
            Ok(item) => item.into_call(),
            Err(e) => Err((DiagnosticCode::InvalidJson, e.to_string())),
        }
    }

    #[test]
    fn a_function_string_beside_arguments_names_the_call() {
        let read = call(r#"{"arguments": {"city": "Lyon"}, "function": "get_forecast"}"#);
        let read = read.map(|c| (c.name, Value::Object(c.args)));
        assert_eq!(
            read,
            Ok((
                "get_forecast".to_owned(),
                serde_json::json!({"city": "Lyon"})
            ))
        );
        // A name key says more than the function string.
        let read = call(r#"{"function": "other", "name": "get_forecast", "arguments": {}}"#);
        assert_eq!(read.map(|c| c.name), Ok("get_forecast".to_owned()));
        // Beside another arguments key it is no call either: no reference pairs them (an
        // agent's `{"function": "Read", "args": {…}}` in a hermes block, vLLM reads none).
        let read = call(r#"{"function": "Read", "args": {"file_path": "a"}}"#);
        assert_eq!(
            read.map_err(|(code, _)| code),
            Err(DiagnosticCode::MissingToolName)
        );
        // Without arguments a function string is no call (LocalAI skips the object too).
        let read = call(r#"{"function": "get_forecast", "reason": "x"}"#);
        assert_eq!(
            read.map_err(|(code, _)| code).map(|c| c.name),
            Err(DiagnosticCode::MissingToolName)
        );
        // OpenAI's nested object is unchanged.
        let read = call(
            r#"{"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}"#,
        );
        assert_eq!(
            read.map(|c| (c.name, c.id)),
            Ok(("f".to_owned(), Some("c1".to_owned())))
        );
    }

    #[test]
    fn values_written_beside_the_name_are_not_dropped_silently() {
        let args = |json: &str| call(json).map(|c| c.args);
        // The arguments written flat: skipped, naming the keys (both routes agree).
        let (flat, message) = args(r#"{"name": "search_files", "pattern": "*.py"}"#)
            .expect_err("flat keys are no call");
        assert_eq!(flat, DiagnosticCode::UnknownKey);
        assert!(
            message.contains("\"pattern\" beside its name is not read"),
            "{message}"
        );
        let decoded = serde_json::json!({"name": "f", "a": 1, "b": 2, "c": 3, "d": 4});
        let Value::Object(map) = decoded else {
            unreachable!()
        };
        let message = CallFields::from_map(map)
            .into_call()
            .expect_err("flat keys are no call")
            .1;
        assert!(
            message.contains("\"a\", \"b\", \"c\", 1 more beside its name are not"),
            "{message}"
        );
        // A call with no arguments at all, or only metadata beside its name, is still one.
        assert_eq!(args(r#"{"name": "now"}"#), Ok(Map::new()));
        assert_eq!(
            args(r#"{"type": "function", "name": "now", "index": 0}"#),
            Ok(Map::new())
        );
        // Arguments beside a nested function that has none: skipped too.
        let (code, message) = args(
            r#"{"type": "function", "function": {"name": "get_info"}, "parameters": {"q": 1}}"#,
        )
        .expect_err("arguments beside the function are no call");
        assert_eq!(code, DiagnosticCode::UnknownKey);
        assert!(
            message.contains("the \"parameters\" beside it"),
            "{message}"
        );
        // Extra keys beside real arguments change nothing.
        assert!(args(r#"{"name": "f", "arguments": {}, "note": "x"}"#).is_ok());
    }
}
