//! An endpoint's HTTP refusal, classified into what a person can do about it.
//!
//! The errors people hit with model endpoints have the same few causes whatever the vendor: a
//! key that is wrong or lacks access, a model name the server does not serve, a rate limit
//! (with, when the server says, how long to wait), a prompt longer than the model's context,
//! and the server failing. The bodies differ (OpenAI's `{"error": {"code": …}}`, Anthropic's
//! `{"type": "error", "error": {"type": …}}`, llama.cpp's and vLLM's own wording), so the
//! classification reads the status first and the body's words second.
//!
//! Gemini's bodies are `{"error": {"code": 429, "message": …, "status": "RESOURCE_EXHAUSTED"}}`
//! (sometimes inside a one-element array); it rarely sends `retry-after`, and puts the wait in
//! the body instead, as a `google.rpc.RetryInfo` detail whose `retryDelay` is a duration text
//! like `"37s"`. A prompt over its context is a 400 `INVALID_ARGUMENT` saying the input token
//! count exceeds the maximum number of tokens allowed; a bad key is a 400 `API_KEY_INVALID`.

use std::time::{Duration, SystemTime};

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

/// Classifies a non-success response: its status, its `retry-after` header (seconds or an HTTP
/// date, see [`parse_retry_after`]; else the wait a Gemini body names) and its body.
pub fn classify(status: u16, retry_after: Option<&str>, body: &str, model: &str) -> EndpointError {
    let message = body_message(body);
    let words = body.to_ascii_lowercase();
    let bad_key = words.contains("api_key_invalid") || words.contains("api key not valid");
    let context = [
        "context_length_exceeded",
        "maximum context length",
        "prompt is too long",
        "exceed_context_size",
        "exceeds the available context size",
        "context window",
        "exceeds the maximum number of tokens",
    ]
    .iter()
    .any(|phrase| words.contains(phrase));
    match status {
        401 | 403 => EndpointError::Unauthorized { status, message },
        400 if bad_key => EndpointError::Unauthorized { status, message },
        429 => EndpointError::RateLimited {
            retry_after: retry_after
                .and_then(|value| parse_retry_after(value, SystemTime::now()))
                .or_else(|| body_retry_delay(body)),
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

/// A `retry-after` value: delay seconds, or an HTTP date (IMF-fixdate, the form servers must
/// send), counted from `now` (a date already past means no wait). Anything else is unknown.
pub fn parse_retry_after(value: &str, now: SystemTime) -> Option<Duration> {
    let value = value.trim();
    if let Ok(seconds) = value.parse::<f64>() {
        return (seconds.is_finite() && seconds >= 0.0).then(|| Duration::from_secs_f64(seconds));
    }
    let at = SystemTime::UNIX_EPOCH + Duration::from_secs(http_date_seconds(value)?);
    Some(at.duration_since(now).unwrap_or(Duration::ZERO))
}

/// `Wed, 21 Oct 2026 07:28:00 GMT` as seconds since the Unix epoch.
fn http_date_seconds(value: &str) -> Option<u64> {
    let mut fields = value.split_ascii_whitespace();
    let (_weekday, day, month, year, time, zone) = (
        fields.next()?,
        fields.next()?,
        fields.next()?,
        fields.next()?,
        fields.next()?,
        fields.next()?,
    );
    if zone != "GMT" || fields.next().is_some() {
        return None;
    }
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    let month = MONTHS.iter().position(|m| *m == month)? as i64 + 1;
    let day: i64 = day.parse().ok().filter(|d| (1..=31).contains(d))?;
    let year: i64 = year.parse().ok().filter(|y| *y >= 1970)?;
    let mut clock = time.split(':').map(|n| n.parse::<i64>().ok());
    let (hour, minute, second) = (clock.next()??, clock.next()??, clock.next()??);
    if clock.next().is_some() || hour > 23 || minute > 59 || second > 60 {
        return None;
    }
    // Days since the epoch of a proleptic Gregorian date (Howard Hinnant's days_from_civil).
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let year_of_era = y - era * 400;
    let day_of_year = (153 * ((month + 9) % 12) + 2) / 5 + day - 1;
    let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    let days = era * 146_097 + day_of_era - 719_468;
    u64::try_from(days * 86_400 + hour * 3_600 + minute * 60 + second).ok()
}

/// Gemini's wait in the body: `error.details[]` with a `retryDelay` such as `"37s"` or `"0.5s"`.
fn body_retry_delay(body: &str) -> Option<Duration> {
    let value = error_value(body)?;
    value["error"]["details"]
        .as_array()?
        .iter()
        .find_map(|detail| detail["retryDelay"].as_str())
        .and_then(|delay| delay.trim().strip_suffix('s')?.parse::<f64>().ok())
        .filter(|seconds| seconds.is_finite() && *seconds >= 0.0)
        .map(Duration::from_secs_f64)
}

/// The body as JSON; Gemini sometimes wraps its error object in a one-element array.
fn error_value(body: &str) -> Option<serde_json::Value> {
    match serde_json::from_str(body).ok()? {
        serde_json::Value::Array(mut items) if !items.is_empty() => Some(items.swap_remove(0)),
        value => Some(value),
    }
}

/// The body's own message (`error.message`, `message`, `detail`), else its start (an empty
/// message is no message).
fn body_message(body: &str) -> String {
    let parsed = error_value(body);
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
            .find_map(|candidate| candidate.as_str().filter(|m| !m.trim().is_empty()))
            .map(str::to_owned)
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
            classify(429, Some("soon"), "{}", "m"),
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
        // llama-cpp-python's answer to an exception without a message (an `assert`): the
        // empty message says nothing, the body at least names the error's type.
        let empty =
            r#"{"error":{"message":"","type":"internal_server_error","param":null,"code":null}}"#;
        assert!(
            classify(500, None, empty, "m")
                .to_string()
                .contains("internal_server_error"),
            "{}",
            classify(500, None, empty, "m")
        );
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

    #[test]
    fn gemini_refusals_are_recognised() {
        // The shapes of Gemini's error bodies as reported in public issue threads.
        let limited = classify(
            429,
            None,
            r#"{"error":{"code":429,"message":"You exceeded your current quota.","status":"RESOURCE_EXHAUSTED","details":[{"@type":"type.googleapis.com/google.rpc.QuotaFailure"},{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"37s"}]}}"#,
            "m",
        );
        assert_eq!(
            limited,
            EndpointError::RateLimited {
                retry_after: Some(Duration::from_secs(37)),
                message: "You exceeded your current quota.".to_owned()
            }
        );
        let missing = classify(
            404,
            None,
            r#"{"error":{"code":404,"message":"models/gemini-9 is not found for API version v1beta, or is not supported for generateContent.","status":"NOT_FOUND"}}"#,
            "gemini-9",
        );
        assert!(
            matches!(missing, EndpointError::ModelNotFound { .. }),
            "{missing}"
        );
        let context = classify(
            400,
            None,
            r#"[{"error":{"code":400,"message":"The input token count (1200293) exceeds the maximum number of tokens allowed (1048576).","status":"INVALID_ARGUMENT"}}]"#,
            "m",
        );
        assert_eq!(
            context.to_string(),
            "the conversation is longer than the model's context (HTTP 400): The input token count (1200293) exceeds the maximum number of tokens allowed (1048576)."
        );
        let key = classify(
            400,
            None,
            r#"{"error":{"code":400,"message":"API key not valid. Please pass a valid API key.","status":"INVALID_ARGUMENT","details":[{"reason":"API_KEY_INVALID"}]}}"#,
            "m",
        );
        assert!(matches!(key, EndpointError::Unauthorized { .. }), "{key}");
    }

    #[test]
    fn retry_after_is_seconds_or_an_http_date() {
        let now = SystemTime::UNIX_EPOCH + Duration::from_secs(1_445_412_470);
        assert_eq!(parse_retry_after("2", now), Some(Duration::from_secs(2)));
        // 1445412480 is Wed, 21 Oct 2015 07:28:00 GMT.
        assert_eq!(
            parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT", now),
            Some(Duration::from_secs(10))
        );
        assert_eq!(
            parse_retry_after("Tue, 20 Oct 2015 07:28:00 GMT", now),
            Some(Duration::ZERO),
            "a date past is no wait"
        );
        assert_eq!(
            http_date_seconds("Thu, 29 Feb 2024 23:59:59 GMT"),
            Some(1_709_251_199)
        );
        for bad in [
            "-1",
            "soon",
            "Wed, 21 Oct 2015 07:28:00 PST",
            "Wed, 21 Foo 2015 07:28:00 GMT",
        ] {
            assert_eq!(parse_retry_after(bad, now), None, "{bad}");
        }
    }
}
