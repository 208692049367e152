//! An endpoint's HTTP refusal, classified into what a person can do about it.
//!
//! The errors people hit with model endpoints have the same few causes whatever the vendor: a
//! key that is wrong or lacks access, a model name the server does not serve, a rate limit
//! (with, when the server says, how long to wait), a prompt longer than the model's context,
//! and the server failing. The bodies differ (OpenAI's `{"error": {"code": …}}`, Anthropic's
//! `{"type": "error", "error": {"type": …}}`, llama.cpp's and vLLM's own wording), so the
//! classification reads the status first and the body's words second.

use std::time::Duration;

/// Why an endpoint refused a request.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EndpointError {
    #[error("the endpoint refused the API key (HTTP {status}): {message}")]
    Unauthorized { status: u16, message: String },
    #[error("the endpoint does not serve model '{model}' (HTTP {status}): {message}")]
    ModelNotFound {
        status: u16,
        model: String,
        message: String,
    },
    #[error("rate limited (HTTP 429){}: {message}", wait_text(.retry_after))]
    RateLimited {
        retry_after: Option<Duration>,
        message: String,
    },
    #[error("the conversation is longer than the model's context (HTTP {status}): {message}")]
    ContextLength { status: u16, message: String },
    #[error("the endpoint failed (HTTP {status}); retrying may help: {message}")]
    Server { status: u16, message: String },
    #[error("the endpoint rejected the request (HTTP {status}): {message}")]
    Rejected { status: u16, message: String },
}

fn wait_text(retry_after: &Option<Duration>) -> String {
    retry_after
        .map(|wait| format!(", retry after {} s", wait.as_secs()))
        .unwrap_or_default()
}

/// Classifies a non-success response: its status, its `retry-after` header (seconds; an HTTP
/// date is not read and counts as unknown) and its body.
pub fn classify(status: u16, retry_after: Option<&str>, body: &str, model: &str) -> EndpointError {
    let message = body_message(body);
    let words = body.to_ascii_lowercase();
    let context = [
        "context_length_exceeded",
        "maximum context length",
        "prompt is too long",
        "exceed_context_size",
        "exceeds the available context size",
        "context window",
    ]
    .iter()
    .any(|phrase| words.contains(phrase));
    match status {
        401 | 403 => EndpointError::Unauthorized { status, message },
        429 => EndpointError::RateLimited {
            retry_after: retry_after
                .and_then(|value| value.trim().parse::<f64>().ok())
                .filter(|seconds| seconds.is_finite() && *seconds >= 0.0)
                .map(Duration::from_secs_f64),
            message,
        },
        _ if context => EndpointError::ContextLength { status, message },
        404 => EndpointError::ModelNotFound {
            status,
            model: model.to_owned(),
            message,
        },
        400 if words.contains("model_not_found") || words.contains("does not exist") => {
            EndpointError::ModelNotFound {
                status,
                model: model.to_owned(),
                message,
            }
        }
        500..=599 => EndpointError::Server { status, message },
        _ => EndpointError::Rejected { status, message },
    }
}

/// The body's own message (`error.message`, `message`, `detail`), else its start.
fn body_message(body: &str) -> String {
    let parsed: Option<serde_json::Value> = serde_json::from_str(body).ok();
    parsed
        .as_ref()
        .and_then(|value| {
            [
                &value["error"]["message"],
                &value["message"],
                &value["detail"],
                &value["error"],
            ]
            .into_iter()
            .find_map(|candidate| candidate.as_str().map(str::to_owned))
        })
        .unwrap_or_else(|| crate::error::excerpt(body.trim()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_refusal_names_its_cause() {
        let openai_key = r#"{"error":{"message":"Incorrect API key provided: sk-abc***","type":"invalid_request_error","code":"invalid_api_key"}}"#;
        assert!(matches!(
            classify(401, None, openai_key, "m"),
            EndpointError::Unauthorized { .. }
        ));
        let limited = classify(
            429,
            Some("7"),
            r#"{"type":"error","error":{"type":"rate_limit_error","message":"Number of requests has exceeded your rate limit"}}"#,
            "m",
        );
        assert_eq!(
            limited.to_string(),
            "rate limited (HTTP 429), retry after 7 s: Number of requests has exceeded your rate limit"
        );
        assert!(matches!(
            classify(429, Some("Wed, 21 Oct 2026 07:28:00 GMT"), "{}", "m"),
            EndpointError::RateLimited {
                retry_after: None,
                ..
            }
        ));
        let context = classify(
            400,
            None,
            r#"{"error":{"message":"This model's maximum context length is 4096 tokens. However, you requested 5000 tokens.","code":"context_length_exceeded"}}"#,
            "m",
        );
        assert!(
            matches!(context, EndpointError::ContextLength { .. }),
            "{context}"
        );
        let missing = classify(
            404,
            None,
            r#"{"error":{"message":"The model `gpt-9` does not exist","code":"model_not_found"}}"#,
            "gpt-9",
        );
        assert!(missing.to_string().contains("'gpt-9'"), "{missing}");
        assert!(matches!(
            classify(503, None, "upstream connect error", "m"),
            EndpointError::Server { status: 503, .. }
        ));
        assert!(matches!(
            classify(
                422,
                None,
                r#"{"detail":"tools[0].function.name is required"}"#,
                "m"
            ),
            EndpointError::Rejected { status: 422, .. }
        ));
    }
}
