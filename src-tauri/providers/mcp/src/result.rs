//! From an MCP `CallToolResult` to what the executor records and a model would be shown.
//!
//! A result that is one piece of text stays that text, so it reads the same as a built-in
//! tool's. Anything richer (several blocks, images, audio, resources, structured content) is
//! kept whole in MCP's own JSON shape (`{"content": [...], "structuredContent": ...}`), so the
//! app can render images and resources and nothing the server sent is lost. A result flagged
//! `isError` becomes a tool failure carrying the server's text.

use rmcp::model::{CallToolResult, ContentBlock};
use serde_json::{Map, Value};
use toolscope_engine::ToolFailure;

pub fn into_value(result: CallToolResult) -> Result<Value, ToolFailure> {
    if result.is_error == Some(true) {
        return Err(ToolFailure::Failed(error_text(&result)));
    }
    if result.structured_content.is_none() && result.content.len() == 1 {
        if let Some(text) = result.content[0].as_text() {
            return Ok(Value::String(text.text.clone()));
        }
    }
    let mut out = Map::new();
    out.insert(
        "content".into(),
        serde_json::to_value(&result.content).unwrap_or(Value::Array(Vec::new())),
    );
    if let Some(structured) = result.structured_content {
        out.insert("structuredContent".into(), structured);
    }
    Ok(Value::Object(out))
}

fn error_text(result: &CallToolResult) -> String {
    let texts: Vec<&str> = result
        .content
        .iter()
        .filter_map(ContentBlock::as_text)
        .map(|t| t.text.as_str())
        .collect();
    if !texts.is_empty() {
        return texts.join("\n");
    }
    match &result.structured_content {
        Some(value) => value.to_string(),
        None if result.content.is_empty() => "the server reported an error with no details".into(),
        None => serde_json::to_string(&result.content).unwrap_or_default(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn one_text_block_is_plain_text() {
        let result = CallToolResult::success(vec![ContentBlock::text("hi")]);
        assert_eq!(into_value(result), Ok(json!("hi")));
    }

    #[test]
    fn rich_results_keep_every_block_and_structured_content() {
        let mut result = CallToolResult::success(vec![
            ContentBlock::text("a"),
            ContentBlock::image("AAAA", "image/png"),
        ]);
        result.structured_content = Some(json!({"n": 1}));
        let value = into_value(result).expect("success");
        assert_eq!(value["content"][1]["type"], "image");
        assert_eq!(value["content"][1]["mimeType"], "image/png");
        assert_eq!(value["structuredContent"], json!({"n": 1}));
    }

    #[test]
    fn errors_carry_the_server_text() {
        let result = CallToolResult::error(vec![
            ContentBlock::text("boom"),
            ContentBlock::text("twice"),
        ]);
        assert_eq!(
            into_value(result),
            Err(ToolFailure::Failed("boom\ntwice".into()))
        );
        let empty = CallToolResult::error(vec![]);
        assert!(
            matches!(into_value(empty), Err(ToolFailure::Failed(m)) if m.contains("no details"))
        );
    }
}
