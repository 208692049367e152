//! The engine's fuzzing entry point, shared by the cargo-fuzz target `coerce_validate`
//! (`fuzz/fuzz_targets/`, which includes this file by path) and the regression test
//! (`tests/fuzz_regressions.rs`), so a crash the fuzzer found is replayed by a normal
//! `cargo test` through exactly the code that found it.
//!
//! It asserts only what the engine promises: coercion only turns text into the types a
//! property's schema asks for (`toolscope_protocol::coerce`), and the executor's pre-run check
//! never panics and agrees with the validator. The wire formats' entry points live beside their
//! crate (`src-tauri/protocol/tests/fuzz_entry/`).
#![allow(dead_code)] // the fuzz target calls the entry point only, not the target table

use std::sync::{Arc, OnceLock};

use serde_json::{Map, Number, Value};
use toolscope_builtin::{calculator, clock, devtools, echo};
use toolscope_engine::executor::{validate, Executor, ExecutorOptions};
use toolscope_engine::types::{ToolInfo, ToolSource};
use toolscope_engine::{BoxFuture, CallContext, Registry, Tool, ToolFailure};
use toolscope_protocol::coerce;
use toolscope_protocol::method::MethodMetadata;
use toolscope_protocol::request::ParsedToolRequest;
use toolscope_protocol::result::ErrorKind;

/// A fuzz target's body: any bytes in, a panic on a finding.
pub type Entry = fn(&[u8]);

/// Every entry point by the name of its fuzz target (and its fixture directory).
pub const TARGETS: &[(&str, Entry)] = &[("coerce_validate", coerce_validate)];

/// Text is read as a client decoding a model's bytes would: invalid UTF-8 becomes U+FFFD.
fn text_of(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Bytes read front to back; exhausted input reads as zeros, so any input decodes.
struct Input<'a> {
    data: &'a [u8],
}

impl<'a> Input<'a> {
    fn byte(&mut self) -> u8 {
        let (first, rest) = self.data.split_first().unwrap_or((&0, &[]));
        self.data = rest;
        *first
    }

    fn pick<'t, T>(&mut self, options: &'t [T]) -> &'t T {
        &options[usize::from(self.byte()) % options.len()]
    }

    fn bytes(&mut self, n: usize) -> &'a [u8] {
        let (taken, rest) = self.data.split_at(n.min(self.data.len()));
        self.data = rest;
        taken
    }

    /// Text of up to 63 bytes.
    fn text(&mut self) -> String {
        let len = usize::from(self.byte() % 64);
        text_of(self.bytes(len))
    }

    fn u64(&mut self) -> u64 {
        let mut raw = [0u8; 8];
        let bytes = self.bytes(8);
        raw[..bytes.len()].copy_from_slice(bytes);
        u64::from_le_bytes(raw)
    }
}

const TYPES: &[&str] = &[
    "string", "integer", "number", "boolean", "null", "object", "array", "any",
];
const NAMES: &[&str] = &["a", "count", "flag", "items", "mode", "x"];

/// A JSON value of any kind (nesting bounded by `depth`).
fn value(input: &mut Input, depth: u8) -> Value {
    match input.byte() % 8 {
        0 => Value::Null,
        1 => Value::Bool(input.byte() % 2 == 1),
        2 => Value::from(input.u64() as i64),
        3 => Value::from(input.u64()),
        4 => Number::from_f64(f64::from_bits(input.u64())).map_or(Value::Null, Value::Number),
        5 if depth > 0 => Value::Array(
            (0..input.byte() % 4)
                .map(|_| value(input, depth - 1))
                .collect(),
        ),
        6 if depth > 0 => Value::Object(
            (0..input.byte() % 4)
                .map(|_| (input.pick(NAMES).to_string(), value(input, depth - 1)))
                .collect(),
        ),
        _ => Value::String(input.text()),
    }
}

/// A property schema in the shapes tool schemas use (types, type lists, enums, defaults,
/// bounds, nested objects and arrays).
fn property(input: &mut Input, depth: u8) -> Value {
    let mut prop = Map::new();
    match input.byte() % 8 {
        0..=3 => {
            prop.insert("type".into(), Value::from(*input.pick(TYPES)));
        }
        4 => {
            let types: Vec<Value> = (0..1 + input.byte() % 3)
                .map(|_| Value::from(*input.pick(TYPES)))
                .collect();
            prop.insert("type".into(), Value::Array(types));
        }
        5 => {
            let options: Vec<Value> = (0..input.byte() % 4).map(|_| value(input, 1)).collect();
            prop.insert("enum".into(), Value::Array(options));
        }
        6 if depth > 0 => return object_schema(input, depth - 1),
        6 | 7 => {
            prop.insert("type".into(), Value::from("array"));
            prop.insert("items".into(), property(input, depth.saturating_sub(1)));
        }
        _ => {}
    }
    let extras = input.byte();
    if extras & 1 != 0 {
        prop.insert("default".into(), value(input, 1));
    }
    if extras & 2 != 0 {
        prop.insert("minimum".into(), value(input, 0));
    }
    if extras & 4 != 0 {
        prop.insert("maxLength".into(), Value::from(input.byte()));
    }
    if extras & 8 != 0 {
        prop.insert("pattern".into(), Value::from(input.text()));
    }
    if extras & 16 != 0 {
        prop.insert("const".into(), value(input, 1));
    }
    Value::Object(prop)
}

fn object_schema(input: &mut Input, depth: u8) -> Value {
    let mut properties = Map::new();
    let mut required = Vec::new();
    for _ in 0..input.byte() % 6 {
        let name = if input.byte() % 4 == 0 {
            input.text()
        } else {
            input.pick(NAMES).to_string()
        };
        if input.byte() % 2 == 0 {
            required.push(Value::from(name.clone()));
        }
        properties.insert(name, property(input, depth));
    }
    let mut schema = Map::new();
    schema.insert("type".into(), Value::from("object"));
    schema.insert("properties".into(), Value::Object(properties));
    schema.insert("required".into(), Value::Array(required));
    if input.byte() % 3 == 0 {
        schema.insert("additionalProperties".into(), Value::Bool(false));
    }
    Value::Object(schema)
}

/// The parameter schemas of the built-in tools: real schemas with nesting, enums and defaults.
fn builtin_schemas() -> &'static [Value] {
    static SCHEMAS: OnceLock<Vec<Value>> = OnceLock::new();
    SCHEMAS.get_or_init(|| {
        let tools: [&dyn Tool; 4] = [
            &calculator::CalculatorTool,
            &clock::ClockTool,
            &devtools::DevTools::default(),
            &echo::EchoTool,
        ];
        tools
            .iter()
            .flat_map(|tool| tool.info().methods)
            .map(|method| method.parameters)
            .collect()
    })
}

/// Arguments as a text format delivers them: mostly text, for the schema's properties.
fn untyped_args(input: &mut Input, schema: &Value) -> Map<String, Value> {
    let names: Vec<String> = schema
        .get("properties")
        .and_then(Value::as_object)
        .map(|p| p.keys().cloned().collect())
        .unwrap_or_default();
    let mut args = Map::new();
    for _ in 0..input.byte() % 6 {
        let name = match input.byte() % 4 {
            0 => input.text(),
            _ if names.is_empty() => input.pick(NAMES).to_string(),
            _ => input.pick(&names).clone(),
        };
        let arg = match input.byte() % 5 {
            0 => value(input, 2),
            _ => Value::String(input.text()),
        };
        args.insert(name, arg);
    }
    args
}

/// Argument coercion and validation. The first byte picks the schema: raw JSON (`schema`,
/// a NUL byte, then `args` as a JSON object), one of the built-in tools' schemas, or a schema
/// built from the bytes; the arguments are then built from the bytes for that schema.
pub fn coerce_validate(data: &[u8]) {
    let mut input = Input { data };
    let (schema, args) = match input.byte() % 3 {
        0 => {
            let rest = input.bytes(usize::MAX);
            let (schema_text, args_text) = match rest.iter().position(|&b| b == 0) {
                Some(nul) => (&rest[..nul], &rest[nul + 1..]),
                None => (rest, &[][..]),
            };
            let Ok(schema) = serde_json::from_slice::<Value>(schema_text) else {
                return;
            };
            let args = match serde_json::from_slice::<Value>(args_text) {
                Ok(Value::Object(args)) => args,
                _ => Map::new(),
            };
            (schema, args)
        }
        1 => {
            let schema = input.pick(builtin_schemas()).clone();
            let args = untyped_args(&mut input, &schema);
            (schema, args)
        }
        _ => {
            let schema = object_schema(&mut input, 2);
            let args = untyped_args(&mut input, &schema);
            (schema, args)
        }
    };
    check_coercion(&schema, &args);
    check_validation(&schema, args);
}

/// `coerce_untyped` only turns text of a known, non-string property into a value of a type the
/// property declares (or one of its enum values), and `null` of a nullable one into null;
/// `apply_defaults` only adds missing defaults.
fn check_coercion(schema: &Value, args: &Map<String, Value>) {
    let mut coerced = args.clone();
    coerce::coerce_untyped(&mut coerced, schema);
    assert_eq!(
        coerced.keys().collect::<Vec<_>>(),
        args.keys().collect::<Vec<_>>(),
        "coercion changed the argument names"
    );
    let properties = schema.get("properties").and_then(Value::as_object);
    for (name, before) in args {
        let after = &coerced[name];
        if after == before {
            continue;
        }
        assert!(
            before.is_string(),
            "coercion changed a typed value {before}"
        );
        let prop = properties
            .and_then(|p| p.get(name))
            .unwrap_or_else(|| panic!("coercion changed '{name}', which has no schema"));
        let types: Vec<&str> = match prop.get("type") {
            Some(Value::String(t)) => vec![t.as_str()],
            Some(Value::Array(types)) => types.iter().filter_map(Value::as_str).collect(),
            _ => Vec::new(),
        };
        if types.contains(&"null") && after.is_null() {
            assert_eq!(
                before.as_str().map(str::trim),
                Some("null"),
                "only `null` reads as null"
            );
            continue;
        }
        assert!(
            !types.contains(&"string"),
            "coercion changed text the schema wants as text"
        );
        let fits = if types.is_empty() {
            prop.get("enum")
                .and_then(Value::as_array)
                .is_some_and(|options| options.contains(after))
        } else {
            types.iter().any(|t| match *t {
                "integer" => after.is_i64() || after.is_u64(),
                "number" => after.is_number(),
                "boolean" => after.is_boolean(),
                "null" => after.is_null(),
                "object" => after.is_object(),
                "array" => after.is_array(),
                _ => false,
            })
        };
        assert!(
            fits,
            "coercion turned {before} into {after}, which {prop} does not allow"
        );
    }

    let mut defaulted = coerced.clone();
    coerce::apply_defaults(&mut defaulted, schema);
    for (name, value) in &coerced {
        assert_eq!(
            defaulted.get(name),
            Some(value),
            "a default replaced '{name}'"
        );
    }
    for (name, value) in &defaulted {
        if coerced.contains_key(name) {
            continue;
        }
        let default = properties
            .and_then(|p| p.get(name))
            .and_then(|prop| prop.get("default"));
        assert_eq!(default, Some(value), "'{name}' was added without a default");
    }
}

/// A tool with one method whose parameters are the fuzzed schema.
struct SchemaTool(Value);

impl Tool for SchemaTool {
    fn info(&self) -> ToolInfo {
        ToolInfo {
            id: "fuzz".into(),
            name: "fuzz".into(),
            description: String::new(),
            source: ToolSource::Builtin,
            methods: vec![MethodMetadata {
                name: "call".into(),
                description: String::new(),
                parameters: self.0.clone(),
                agent_callable: true,
                protocol_config: None,
                annotations: Default::default(),
                output_schema: None,
            }],
        }
    }

    fn call<'a>(
        &'a self,
        _method: &'a str,
        _args: Map<String, Value>,
        _ctx: CallContext,
    ) -> BoxFuture<'a, Result<Value, ToolFailure>> {
        Box::pin(async { Ok(Value::Null) })
    }
}

/// The executor's pre-run check (coerce, defaults, JSON-Schema validation) on text arguments:
/// it never panics, an invalid-arguments answer names at least one issue by JSON pointer, and
/// "would run" means the validator accepts the prepared arguments.
fn check_validation(schema: &Value, args: Map<String, Value>) {
    let registry = Arc::new(Registry::new());
    if registry
        .register(Arc::new(SchemaTool(schema.clone())))
        .is_err()
    {
        assert!(!schema.is_object(), "a valid method was refused");
        return;
    }
    let executor = Executor::new(registry.clone(), ExecutorOptions::default());
    let mut request = ParsedToolRequest::manual("fuzz_call", args);
    request.untyped_args = true;
    let verdict = executor.check(&request);
    let (_, method) = registry.resolve("fuzz_call").expect("just registered");
    let validator = match method.validator() {
        Ok(validator) => validator,
        Err(_) => {
            let kind = verdict.map(|e| e.kind);
            assert_eq!(kind, Some(ErrorKind::ToolError), "an invalid schema passed");
            return;
        }
    };
    let mut prepared = request.args.clone();
    coerce::coerce_untyped(&mut prepared, schema);
    coerce::apply_defaults(&mut prepared, schema);
    let issues = validate::validate_args(&validator, &Value::Object(prepared));
    match verdict {
        None => assert!(issues.is_empty(), "would run with invalid args: {issues:?}"),
        Some(error) => {
            assert_eq!(error.kind, ErrorKind::InvalidArgs, "{}", error.message);
            assert!(!error.issues.is_empty(), "invalid args without an issue");
            assert_eq!(error.issues, issues, "the check is not deterministic");
            for issue in &error.issues {
                assert!(issue.path.starts_with('/'), "issue path {:?}", issue.path);
            }
        }
    }
}
