//! The echo tool: the smallest real tool, for checking that arguments arrive as sent.

use serde_json::{json, Map, Value};

use super::{arg_str, arg_u64, method, read_only};
use toolscope_engine::tool::{BoxFuture, CallContext, Tool, ToolFailure};
use toolscope_engine::types::{ToolInfo, ToolSource};

#[derive(Debug, Default)]
pub struct EchoTool;

impl Tool for EchoTool {
    fn info(&self) -> ToolInfo {
        ToolInfo {
            id: "echo".into(),
            name: "Echo".into(),
            description: "Returns what it is given, optionally transformed.".into(),
            source: ToolSource::Builtin,
            methods: vec![method(
                "echo",
                "Echo a message back, with optional repetition and case transform; tags and \
                 metadata are returned unchanged.",
                json!({
                    "type": "object",
                    "properties": {
                        "message": {"type": "string", "description": "Text to echo.", "examples": ["hello"]},
                        "repeat": {"type": "integer", "minimum": 1, "maximum": 100, "default": 1,
                                   "description": "How many times to repeat the message."},
                        "transform": {"type": "string", "enum": ["none", "upper", "lower", "reverse"],
                                      "default": "none", "description": "Transform applied to the message."},
                        "separator": {"type": "string", "default": " ", "maxLength": 16},
                        "tags": {"type": "array", "items": {"type": "string"}, "uniqueItems": true,
                                 "description": "Labels returned as given."},
                        "metadata": {"type": "object", "description": "Any JSON object, returned as given.",
                                     "additionalProperties": true}
                    },
                    "required": ["message"],
                    "additionalProperties": false
                }),
                read_only(),
            )],
        }
    }

    fn call<'a>(
        &'a self,
        method: &'a str,
        args: Map<String, Value>,
        _ctx: CallContext,
    ) -> BoxFuture<'a, Result<Value, ToolFailure>> {
        Box::pin(async move {
            if method != "echo" {
                return Err(ToolFailure::UnknownMethod(method.to_owned()));
            }
            let message = arg_str(&args, "message")?;
            let repeat = usize::try_from(arg_u64(&args, "repeat", 1)?.clamp(1, 100)).unwrap_or(1);
            let separator = args.get("separator").and_then(Value::as_str).unwrap_or(" ");
            let transformed = match args
                .get("transform")
                .and_then(Value::as_str)
                .unwrap_or("none")
            {
                "upper" => message.to_uppercase(),
                "lower" => message.to_lowercase(),
                "reverse" => message.chars().rev().collect(),
                _ => message.to_owned(),
            };
            let text = vec![transformed; repeat].join(separator);
            Ok(json!({
                "message": text,
                "tags": args.get("tags").cloned().unwrap_or(json!([])),
                "metadata": args.get("metadata").cloned().unwrap_or(json!({})),
            }))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn echoes_with_transform() {
        let Value::Object(args) = json!({"message": "abc", "repeat": 2, "transform": "reverse",
                                        "separator": "-", "tags": ["x"]})
        else {
            unreachable!("literal object")
        };
        let out = EchoTool
            .call("echo", args, CallContext::default())
            .await
            .expect("echo works");
        assert_eq!(
            out,
            json!({"message": "cba-cba", "tags": ["x"], "metadata": {}})
        );
        let missing = EchoTool
            .call("echo", Map::new(), CallContext::default())
            .await;
        assert!(matches!(missing, Err(ToolFailure::Failed(m)) if m.contains("message")));
    }
}
