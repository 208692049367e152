//! JSON Schema as the TypeScript type the GigaChat 3 template (`json_schema_to_typescript`)
//! writes for a function's parameters: one property a line, its description as `//` comments
//! above it, `?` for optional properties, enums as unions.

use serde_json::Value;

const INDENT: &str = "  ";
/// Schema keys the template repeats as comments above a property.
const COMMENTED_KEYS: [&str; 6] = [
    "format", "maxItems", "maximum", "minItems", "minimum", "pattern",
];

pub fn typescript(schema: &Value, indent: &str) -> String {
    match schema.get("type").and_then(Value::as_str) {
        Some("object") => object(schema, indent),
        Some("string") => match schema.get("enum").and_then(Value::as_array) {
            Some(options) if !options.is_empty() => options
                .iter()
                .map(|o| {
                    format!(
                        "\"{}\"",
                        o.as_str().map_or_else(|| o.to_string(), str::to_owned)
                    )
                })
                .collect::<Vec<_>>()
                .join(" | "),
            _ if matches!(
                schema.get("format").and_then(Value::as_str),
                Some("date-time" | "date")
            ) =>
            {
                "Date".to_owned()
            }
            _ => "string".to_owned(),
        },
        Some("number" | "integer") => match schema.get("enum").and_then(Value::as_array) {
            Some(options) if !options.is_empty() => options
                .iter()
                .map(Value::to_string)
                .collect::<Vec<_>>()
                .join(" | "),
            _ => "number".to_owned(),
        },
        Some("boolean") => "boolean".to_owned(),
        Some("array") => match schema.get("items") {
            Some(items) => format!("{}[]", typescript(items, indent)),
            None => "Array<any>".to_owned(),
        },
        _ => "any".to_owned(),
    }
}

fn object(schema: &Value, indent: &str) -> String {
    let mut out = String::from("{\n");
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let nested = format!("{indent}{INDENT}");
    if let Some(properties) = schema.get("properties").and_then(Value::as_object) {
        for (key, property) in properties {
            if let Some(description) = property.get("description").and_then(Value::as_str) {
                for line in description.lines().filter(|l| !l.trim().is_empty()) {
                    out.push_str(&format!("{indent}// {line}\n"));
                }
            }
            for extra in COMMENTED_KEYS {
                match property.get(extra) {
                    Some(Value::String(text)) => {
                        out.push_str(&format!("{indent}// {extra}: \"{text}\"\n"))
                    }
                    Some(other) => out.push_str(&format!("{indent}// {extra}: {other}\n")),
                    None => {}
                }
            }
            let optional = if required.contains(&key.as_str()) {
                ""
            } else {
                "?"
            };
            out.push_str(&format!(
                "{indent}{key}{optional}: {},",
                typescript(property, &nested)
            ));
            match property.get("default") {
                Some(Value::String(text)) => out.push_str(&format!(" // default: \"{text}\"")),
                Some(other) => out.push_str(&format!(" // default: {other}")),
                None => {}
            }
            out.push('\n');
        }
    }
    match schema.get("additionalProperties") {
        Some(Value::Bool(true)) => out.push_str(&format!("{indent}[key: string]: any\n")),
        Some(extra @ Value::Object(_)) => out.push_str(&format!(
            "{indent}[key: string]: {}\n",
            typescript(extra, &nested)
        )),
        _ => {}
    }
    out.push_str(indent.strip_suffix(INDENT).unwrap_or_default());
    out.push('}');
    out
}
