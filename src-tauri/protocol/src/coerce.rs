//! Argument preparation before validation: typing text values and filling defaults.
//!
//! Text formats (VCP, Qwen3-Coder, GLM-4.5, MiniMax-M2, Seed-OSS, Step-3) deliver every value as
//! a string. A model that writes `count:「始」3「末」` means the integer 3, so strings are
//! converted to the type the method's schema asks for; a string that does not convert is left
//! alone and validation then reports it with its path. Typed formats (JSON) are never coerced:
//! a model that sends `"3"` for an integer made a mistake worth showing.
//!
//! How text becomes a value differs between the reference parsers, so each text format follows
//! a [`ValueTyping`] policy: the one of the reference it mirrors (vLLM's and SGLang's
//! Qwen3-Coder, Seed-OSS, GLM-4, MiniCPM5 and MiniMax parsers type values their own way), or by
//! default [`ValueTyping::JSON_LITERALS`].

use serde_json::{Map, Number, Value};

/// How a format's text values become JSON values, with or without the tool's schema.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ValueTyping {
    /// Text when there is no schema (the tool is unknown to whoever checks the reply).
    pub without_schema: Untyped,
    /// Text of a property the schema does not declare.
    pub undeclared: Untyped,
    /// Text of a declared property.
    pub declared: Declared,
}

/// What text no schema types becomes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Untyped {
    /// Kept as written.
    Text,
    /// Kept as written, except one of these words (any case), which is null.
    TextOrNull(&'static [&'static str]),
    /// A whole JSON literal (`42`, `true`, `null`, `[1]`, `"x"`) becomes that literal; other
    /// text is kept.
    JsonLiteral,
    /// A JSON literal, else a Python literal as `ast.literal_eval` reads it (`True`, `None`,
    /// `{'a': 1}`), else the text.
    JsonOrPython,
}

/// What text of a declared property becomes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Declared {
    /// Converted to a declared type (a name or a list, else the types of `anyOf` / `oneOf`
    /// members); text that converts to none of them is kept, for validation to report.
    ByType(ByType),
    /// Kept when the property's `type` is exactly `"string"`; any other property's text is read
    /// as [`Untyped::JsonOrPython`], whatever its type says.
    UnlessString,
}

/// The choices [`Declared::ByType`] leaves to the reference.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ByType {
    /// Words (any case) that are null whatever the type, `string` included; where there are
    /// none, only a type list or union that allows `null` reads `null` so.
    pub null_words: &'static [&'static str],
    /// `object` / `array` text that is not JSON is read as a Python literal (`{'a': True}`),
    /// and so is text of a type with no rule of its own.
    pub python_fallback: bool,
    /// A `boolean` that is neither `true` nor `false` (any case) is `false`; otherwise it is
    /// kept, for validation to report.
    pub other_booleans_false: bool,
    /// A `boolean` may also be written `1` / `yes` / `on` and `0` / `no` / `off` (any case).
    pub boolean_words: bool,
    /// An `integer` as Python's `int()` reads it: `3.0` stays text. Otherwise a whole `3.0` is
    /// an integer, as JSON Schema sees it. (vLLM also turns a whole `number` into an integer,
    /// `2.0` → `2`; a number keeps its form here, and compares equal by value.)
    pub python_numbers: bool,
}

impl ValueTyping {
    /// Schema types convert (what does not convert is left for validation); without a schema a
    /// whole JSON literal is read as one, as llama.cpp's XML tool-call reader does; a property
    /// the schema does not declare keeps its text.
    pub const JSON_LITERALS: Self = Self {
        without_schema: Untyped::JsonLiteral,
        undeclared: Untyped::Text,
        declared: Declared::ByType(ByType {
            null_words: &[],
            python_fallback: false,
            other_booleans_false: false,
            boolean_words: false,
            python_numbers: false,
        }),
    };

    /// vLLM's `qwen3coder_tool_parser._convert_param_value` (SGLang's `qwen3_coder_detector`
    /// is the same): `null` is null for any type and without a schema; otherwise text no
    /// schema types stays text; `object` / `array` fall back from JSON to `ast.literal_eval`;
    /// a boolean that is not `true` is `false`.
    pub const QWEN3_CODER: Self = Self {
        without_schema: Untyped::TextOrNull(NULL),
        undeclared: Untyped::TextOrNull(NULL),
        declared: Declared::ByType(ByType {
            null_words: NULL,
            python_fallback: true,
            other_booleans_false: true,
            boolean_words: false,
            python_numbers: true,
        }),
    };

    /// vLLM's `minimax_m2_tool_parser._convert_param_value_with_types` (SGLang's
    /// `MinimaxM2Detector` types the same way): `null`, `none` and `nil` are null for any
    /// type; a parameter no schema declares is a string, so its text stays text; declared
    /// types convert by Python's `int()`, with `yes` / `on` / `1` as true and `no` / `off` /
    /// `0` as false, objects and arrays from JSON.
    pub const MINIMAX_M2: Self = Self {
        without_schema: Untyped::TextOrNull(NULL_NONE_NIL),
        undeclared: Untyped::TextOrNull(NULL_NONE_NIL),
        declared: Declared::ByType(ByType {
            null_words: NULL_NONE_NIL,
            python_fallback: false,
            other_booleans_false: false,
            boolean_words: true,
            python_numbers: true,
        }),
    };

    /// vLLM's `glm4_moe_tool_parser` (`_is_string_type`, `_deserialize`): a property declared
    /// `"type": "string"` keeps its text; every other value, with or without a schema, is read
    /// as JSON, then as a Python literal, else kept.
    pub const GLM: Self = Self {
        without_schema: Untyped::JsonOrPython,
        undeclared: Untyped::JsonOrPython,
        declared: Declared::UnlessString,
    };

    /// SGLang's `MinimaxM3Detector._convert_leaf_value` (vLLM's M3 parser agrees on typed
    /// values): text no schema types stays text, with no null words (M3 dropped M2's
    /// `none` / `nil`); declared types convert by Python's `int()`, with `yes` / `on` / `1` and
    /// `no` / `off` / `0` for booleans; objects and arrays from JSON.
    pub const MINIMAX_M3: Self = Self {
        without_schema: Untyped::Text,
        undeclared: Untyped::Text,
        declared: Declared::ByType(ByType {
            null_words: &[],
            python_fallback: false,
            other_booleans_false: false,
            boolean_words: true,
            python_numbers: true,
        }),
    };

    /// The policy of the format with id `format` (a request's `format`): the formats whose
    /// reference types text its own way are listed in [`FORMATS`]; any other reads JSON
    /// literals.
    pub fn of(format: &str) -> Self {
        FORMATS
            .iter()
            .find(|(id, _)| *id == format)
            .map_or(Self::JSON_LITERALS, |(_, typing)| *typing)
    }

    /// Types the string values of `args` from `schema` (the tool's parameters, an object
    /// schema), or without one when `schema` is `None`. Other values are left alone.
    pub fn apply(self, args: &mut Map<String, Value>, schema: Option<&Value>) {
        let properties = schema.map(|s| s.get("properties").and_then(Value::as_object));
        for (name, value) in args.iter_mut() {
            let Value::String(text) = value else {
                continue;
            };
            let converted = match properties {
                None => read_untyped(text, self.without_schema),
                Some(properties) => match properties.and_then(|p| p.get(name)) {
                    None => read_untyped(text, self.undeclared),
                    Some(prop) => match self.declared {
                        Declared::ByType(rules) => convert(text, prop, rules),
                        Declared::UnlessString => (prop.get("type")
                            != Some(&Value::String("string".to_owned())))
                        .then(|| read_untyped(text, Untyped::JsonOrPython))
                        .flatten(),
                    },
                },
            };
            if let Some(converted) = converted {
                *value = converted;
            }
        }
    }
}

/// Formats whose reference parser types text values its own way, by format id.
const FORMATS: &[(&str, ValueTyping)] = &[
    ("qwen3_coder", ValueTyping::QWEN3_CODER),
    // vLLM's `seed_oss_tool_parser` and SGLang's `SeedOssDetector` copy Qwen3-Coder's
    // `convert_param_value` (vLLM's newer parser engine types by schema alone; we follow the
    // parser both stacks ship for the format).
    ("seed_oss", ValueTyping::QWEN3_CODER),
    ("glm45", ValueTyping::GLM),
    // vLLM's `minicpm5xml_tool_parser` and SGLang's `MiniCPM5Detector`: text for a `string`
    // property, JSON then a Python literal for any other.
    ("minicpm5_xml", ValueTyping::GLM),
    ("minimax_m2", ValueTyping::MINIMAX_M2),
    ("minimax_m3", ValueTyping::MINIMAX_M3),
];

/// The words vLLM's Qwen3-Coder parser reads as null (`value.lower() == "null"`).
const NULL: &[&str] = &["null"];
/// The words vLLM's MiniMax-M2 parser reads as null.
const NULL_NONE_NIL: &[&str] = &["null", "none", "nil"];

/// Converts string arguments to the types their property schemas ask for
/// ([`ValueTyping::JSON_LITERALS`]; a format's own policy is [`ValueTyping::of`]).
pub fn coerce_untyped(args: &mut Map<String, Value>, schema: &Value) {
    ValueTyping::JSON_LITERALS.apply(args, Some(schema));
}

/// Reads each string argument that is a whole JSON literal as that literal (`42`, `null`,
/// `"x"` → `x`, `[1]`): what untyped text means when no schema says more
/// ([`ValueTyping::JSON_LITERALS`] without a schema); other text stays as written.
pub fn read_literals(args: &mut Map<String, Value>) {
    ValueTyping::JSON_LITERALS.apply(args, None);
}

/// Adds each missing top-level property that declares a `default`.
pub fn apply_defaults(args: &mut Map<String, Value>, schema: &Value) {
    let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
        return;
    };
    for (name, prop) in properties {
        if let Some(default) = prop.get("default") {
            if !args.contains_key(name) {
                args.insert(name.clone(), default.clone());
            }
        }
    }
}

/// The value `text` stands for under `rule`, or `None` when it stays text.
fn read_untyped(text: &str, rule: Untyped) -> Option<Value> {
    let trimmed = text.trim();
    match rule {
        Untyped::Text => None,
        Untyped::TextOrNull(words) => is_null_word(trimmed, words).then_some(Value::Null),
        Untyped::JsonLiteral => serde_json::from_str(trimmed).ok(),
        Untyped::JsonOrPython => serde_json::from_str(trimmed)
            .ok()
            .or_else(|| crate::pylit::parse_python_literal(trimmed).ok()),
    }
}

/// One of `words` in any letter case, as vLLM's `value.lower() in (…)`.
fn is_null_word(text: &str, words: &[&str]) -> bool {
    words.iter().any(|word| text.eq_ignore_ascii_case(word))
}

/// The types a property allows: its `type` (a name or a list), else those of its `anyOf` /
/// `oneOf` members (Pydantic writes `Optional[int]` as `anyOf: [{integer}, {null}]`; vLLM's
/// Qwen3-Coder parser reads those too). The loose names some tool schemas use (`int`, `float`,
/// `bool`, as in vLLM's tests) mean the JSON Schema types.
fn declared_types(prop: &Value) -> Vec<&str> {
    let own: Vec<&str> = match prop.get("type") {
        Some(Value::String(t)) => vec![t.as_str()],
        Some(Value::Array(types)) => types.iter().filter_map(Value::as_str).collect(),
        _ => ["anyOf", "oneOf"]
            .iter()
            .filter_map(|k| prop.get(*k).and_then(Value::as_array))
            .flatten()
            .flat_map(|member| match member.get("type") {
                Some(Value::String(t)) => vec![t.as_str()],
                Some(Value::Array(types)) => types.iter().filter_map(Value::as_str).collect(),
                _ => Vec::new(),
            })
            .collect(),
    };
    own.into_iter()
        .map(|t| match t {
            "int" => "integer",
            "float" | "double" => "number",
            "bool" => "boolean",
            other => other,
        })
        .collect()
}

fn convert(text: &str, prop: &Value, rules: ByType) -> Option<Value> {
    let types = declared_types(prop);
    let trimmed = text.trim();
    // A nullable value written `null` means null, even when it may also be a string (the
    // reference parsers read `null` first, whatever the type).
    if is_null_word(trimmed, rules.null_words) || (types.contains(&"null") && trimmed == "null") {
        return Some(Value::Null);
    }
    if types.contains(&"string") {
        return None;
    }
    if types.is_empty() {
        // No type: an enum of non-strings can still say what the text means.
        let options = prop.get("enum").and_then(Value::as_array)?;
        let parsed: Value = serde_json::from_str(trimmed).ok()?;
        return options.contains(&parsed).then_some(parsed);
    }
    let container = |wanted: fn(&Value) -> bool| {
        let json = serde_json::from_str::<Value>(trimmed).ok();
        // vLLM takes whatever `json.loads` gives (`5` for an object); the stricter default
        // leaves a mismatch for validation.
        if rules.python_fallback {
            return json.or_else(|| crate::pylit::parse_python_literal(trimmed).ok());
        }
        json.filter(wanted)
    };
    types.iter().find_map(|t| match *t {
        "integer" if rules.python_numbers => python_int(trimmed),
        "integer" => parse_integer(trimmed),
        "number" => parse_number(trimmed),
        "boolean" => match trimmed.to_ascii_lowercase().as_str() {
            "true" => Some(Value::Bool(true)),
            "false" => Some(Value::Bool(false)),
            "1" | "yes" | "on" if rules.boolean_words => Some(Value::Bool(true)),
            "0" | "no" | "off" if rules.boolean_words => Some(Value::Bool(false)),
            _ => rules.other_booleans_false.then_some(Value::Bool(false)),
        },
        "null" => (trimmed.is_empty() || trimmed == "null").then_some(Value::Null),
        "object" => container(Value::is_object),
        "array" => container(Value::is_array),
        _ if rules.python_fallback => crate::pylit::parse_python_literal(trimmed).ok(),
        _ => None,
    })
}

fn parse_integer(text: &str) -> Option<Value> {
    if let Ok(i) = text.parse::<i64>() {
        return Some(Value::Number(i.into()));
    }
    if let Ok(u) = text.parse::<u64>() {
        return Some(Value::Number(u.into()));
    }
    // "3.0" is an integer in JSON Schema's eyes.
    let f = text.parse::<f64>().ok()?;
    if f.fract() == 0.0 && f.abs() < 9.0e15 {
        #[allow(clippy::cast_possible_truncation)] // checked integral and in range above
        return Some(Value::Number((f as i64).into()));
    }
    None
}

/// An integer as Python's `int()` reads text: digits with an optional sign and `_` between
/// digits; no fraction or exponent, even when whole.
fn python_int(text: &str) -> Option<Value> {
    let digits = text.strip_prefix(['+', '-']).unwrap_or(text);
    let well_formed = !digits.is_empty()
        && !digits.starts_with('_')
        && !digits.ends_with('_')
        && !digits.contains("__")
        && digits.bytes().all(|b| b.is_ascii_digit() || b == b'_');
    if !well_formed {
        return None;
    }
    let cleaned = text.replace('_', "");
    if let Ok(i) = cleaned.parse::<i64>() {
        return Some(Value::Number(i.into()));
    }
    cleaned.parse::<u64>().ok().map(|u| Value::Number(u.into()))
}

fn parse_number(text: &str) -> Option<Value> {
    if let Ok(i) = text.parse::<i64>() {
        return Some(Value::Number(i.into()));
    }
    let f = text.parse::<f64>().ok()?;
    Number::from_f64(f).map(Value::Number)
}

#[cfg(test)]
mod tests;
