//! Gemini `streamGenerateContent?alt=sse` chunks: `data:` lines only (no event names), each a
//! whole `GenerateContentResponse` holding the newest piece of the reply in
//! `candidates[0].content {role: "model", parts}`: reasoning as parts with `thought: true`,
//! text as `text` parts, each call as one whole `functionCall {name, args, id?}` part (Gemini
//! never splits a call), and last a chunk with `finishReason` (`STOP` unless scripted) and the
//! final `usageMetadata`. Every chunk carries `usageMetadata` (the running prompt count on all
//! but the last), `modelVersion` and `responseId`; there is no `[DONE]`: the body just ends.
//!
//! Gemini's `args` is a JSON object, so a call whose scripted `arguments` is not one (cut or
//! invalid JSON, an array, a number) cannot be sent. Gemini itself answers such a generation
//! with `finishReason: MALFORMED_FUNCTION_CALL`, a `finishMessage` and no content, and so does
//! this renderer: the calls before the malformed one are sent, the malformed one and those
//! after it are not, and the last chunk has that finish reason (a scripted `finish` wins).
//!
//! Errors have Google's shape, `{"error": {"code", "message", "status", "details"?}}`, where
//! `status` is the canonical code's name (`RESOURCE_EXHAUSTED` for 429, ...), a scripted `code`
//! becomes an `ErrorInfo` detail's `reason` (e.g. `API_KEY_INVALID`) and a `retry_after` in
//! seconds also a `RetryInfo` detail's `retryDelay`.

use serde_json::{json, Map, Value};

use super::{usage, Context, SseEvent};
use crate::script::{split, Call, Reply};

/// The part of a route after `/v1beta/models/`: the model and the method, for the two methods
/// that generate (`streamGenerateContent`, `generateContent`).
pub(crate) fn route(path: &str) -> Option<(&str, &str)> {
    let rest = path.strip_prefix("/v1beta/models/")?;
    let (model, method) = rest.rsplit_once(':')?;
    let generates = matches!(method, "streamGenerateContent" | "generateContent");
    (generates && !model.is_empty()).then_some((model, method))
}

/// A call's `args`: the scripted arguments when they are (or their text is) a JSON object.
fn args(call: &Call) -> Option<Value> {
    let value = match &call.arguments {
        Value::String(text) => serde_json::from_str(text).ok()?,
        other => other.clone(),
    };
    value.is_object().then_some(value)
}

pub(super) fn render(reply: &Reply, context: &Context) -> Vec<SseEvent> {
    let usage = usage(reply, context);
    let chunk = |candidate: Value, metadata: Value| {
        SseEvent::json(
            None,
            &json!({
                "candidates": [candidate],
                "usageMetadata": metadata,
                "modelVersion": context.model,
                "responseId": format!("toolscope-{}", context.turn),
            }),
        )
    };
    let running = json!({
        "promptTokenCount": usage.input_tokens,
        "totalTokenCount": usage.input_tokens,
    });
    let parts = |parts: Value| {
        let candidate = json!({"content": {"parts": parts, "role": "model"}, "index": 0});
        chunk(candidate, running.clone())
    };
    let mut events = Vec::new();
    for piece in split(
        reply.reasoning.as_deref().unwrap_or_default(),
        reply.chunk_chars,
    ) {
        events.push(parts(json!([{"text": piece, "thought": true}])));
    }
    for piece in split(reply.text.as_deref().unwrap_or_default(), reply.chunk_chars) {
        events.push(parts(json!([{"text": piece}])));
    }
    let mut malformed = None;
    for call in &reply.calls {
        let Some(args) = args(call) else {
            malformed = Some(call);
            break;
        };
        let mut function_call = Map::new();
        function_call.insert("name".to_owned(), Value::from(call.name.clone()));
        function_call.insert("args".to_owned(), args);
        // Gemini names a call only sometimes; the client numbers the unnamed ones.
        if let Some(id) = &call.id {
            function_call.insert("id".to_owned(), Value::from(id.clone()));
        }
        events.push(parts(json!([{"functionCall": function_call}])));
    }
    let default_finish = if malformed.is_some() {
        "MALFORMED_FUNCTION_CALL"
    } else {
        "STOP"
    };
    let finish = reply.finish.as_deref().unwrap_or(default_finish);
    let candidate = match malformed {
        Some(call) => json!({
            "finishReason": finish,
            "finishMessage": format!(
                "Malformed function call: {}({})",
                call.name,
                call.arguments_text()
            ),
            "index": 0,
        }),
        None => json!({
            "content": {"parts": [{"text": ""}], "role": "model"},
            "finishReason": finish,
            "index": 0,
        }),
    };
    events.push(chunk(candidate, final_usage(reply, usage)));
    events
}

/// The last chunk's `usageMetadata`. Gemini counts thinking apart from the visible output
/// (`thoughtsTokenCount` beside `candidatesTokenCount`); a reply with reasoning splits its
/// output count that way (about four characters a token), so the two add up to the scripted
/// or estimated output.
fn final_usage(reply: &Reply, usage: crate::script::Usage) -> Value {
    let thoughts = reply.reasoning.as_deref().map(|reasoning| {
        u64::try_from(reasoning.len() / 4)
            .unwrap_or(u64::MAX)
            .clamp(1, usage.output_tokens.max(1))
            .min(usage.output_tokens)
    });
    let candidates = usage.output_tokens - thoughts.unwrap_or(0);
    let mut metadata = json!({
        "promptTokenCount": usage.input_tokens,
        "candidatesTokenCount": candidates,
        "totalTokenCount": usage.input_tokens + usage.output_tokens,
    });
    if let Some(thoughts) = thoughts {
        metadata["thoughtsTokenCount"] = Value::from(thoughts);
    }
    metadata
}

/// `GET /v1beta/models`: each scripted model as `models/ID`.
pub(crate) fn model_list(models: &[String]) -> Value {
    json!({
        "models": models.iter().map(|id| json!({
            "name": format!("models/{id}"),
            "version": "001",
            "displayName": id,
            "description": "A scripted model of the Toolscope test server.",
            "inputTokenLimit": 1_048_576,
            "outputTokenLimit": 65_536,
            "supportedGenerationMethods": ["generateContent", "countTokens"],
            "temperature": 1.0,
            "topP": 0.95,
            "topK": 64,
            "thinking": true,
        })).collect::<Vec<_>>(),
    })
}

/// The canonical status name Google's APIs pair with an HTTP status.
fn status_name(status: u16) -> &'static str {
    match status {
        401 => "UNAUTHENTICATED",
        403 => "PERMISSION_DENIED",
        404 => "NOT_FOUND",
        409 => "ABORTED",
        429 => "RESOURCE_EXHAUSTED",
        499 => "CANCELLED",
        501 => "UNIMPLEMENTED",
        503 | 529 => "UNAVAILABLE",
        504 => "DEADLINE_EXCEEDED",
        500..=599 => "INTERNAL",
        _ => "INVALID_ARGUMENT",
    }
}

/// `{"error": {"code", "message", "status", "details"?}}`: `kind` is the `status` (default by
/// HTTP status), `code` an `ErrorInfo` reason, `retry_after` (whole or decimal seconds) a
/// `RetryInfo` delay.
pub(crate) fn error_body(
    status: u16,
    message: &str,
    kind: Option<&str>,
    code: Option<&str>,
    retry_after: Option<&str>,
) -> String {
    let mut details = Vec::new();
    if let Some(reason) = code {
        details.push(json!({
            "@type": "type.googleapis.com/google.rpc.ErrorInfo",
            "reason": reason,
            "domain": "googleapis.com",
        }));
    }
    if let Some(seconds) = retry_after.filter(|wait| wait.trim().parse::<f64>().is_ok()) {
        details.push(json!({
            "@type": "type.googleapis.com/google.rpc.RetryInfo",
            "retryDelay": format!("{}s", seconds.trim()),
        }));
    }
    let mut error = json!({
        "code": status,
        "message": message,
        "status": kind.unwrap_or(status_name(status)),
    });
    if !details.is_empty() {
        error["details"] = Value::from(details);
    }
    json!({ "error": error }).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn routes_name_the_model_and_the_method() {
        assert_eq!(
            route("/v1beta/models/gemini-x:streamGenerateContent"),
            Some(("gemini-x", "streamGenerateContent"))
        );
        assert_eq!(
            route("/v1beta/models/m:generateContent"),
            Some(("m", "generateContent"))
        );
        assert_eq!(route("/v1beta/models/m:countTokens"), None);
        assert_eq!(route("/v1beta/models"), None);
    }

    #[test]
    fn a_call_that_is_not_an_object_ends_the_reply_as_malformed() {
        let call = |arguments: &str| Call {
            id: None,
            name: "f".to_owned(),
            arguments: Value::from(arguments),
        };
        let reply = Reply {
            calls: vec![call(r#"{"a": 1}"#), call(r#"{"a": "#), call("{}")],
            ..Reply::default()
        };
        let context = Context {
            model: "m".to_owned(),
            turn: 0,
            input_estimate: 10,
            include_usage: false,
            created: 0,
        };
        let events = render(&reply, &context);
        assert_eq!(events.len(), 2, "{events:?}");
        let last: Value = serde_json::from_str(&events[1].data).expect("json");
        assert_eq!(
            last["candidates"][0]["finishReason"],
            "MALFORMED_FUNCTION_CALL"
        );
        assert!(last["candidates"][0].get("content").is_none());
        assert!(events.iter().all(|e| e.event.is_none()));
    }

    #[test]
    fn error_bodies_carry_the_reason_and_the_wait() {
        let body: Value =
            serde_json::from_str(&error_body(429, "slow down", None, Some("RATE"), Some("2")))
                .expect("json");
        assert_eq!(body["error"]["status"], "RESOURCE_EXHAUSTED");
        assert_eq!(body["error"]["code"], 429);
        assert_eq!(body["error"]["details"][0]["reason"], "RATE");
        assert_eq!(body["error"]["details"][1]["retryDelay"], "2s");
    }
}
