//! What goes wrong while a reply streams, in words a person can act on.

/// A stream that cannot be read further.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StreamError {
    /// A chunk's data is not the JSON the protocol defines.
    #[error("the endpoint sent a chunk that is not valid JSON ({reason}): {excerpt}")]
    InvalidChunk { reason: String, excerpt: String },
    /// The endpoint reported an error inside the stream (`{"error": …}`, Anthropic's `error`
    /// event): overloaded, rate limited, context too long, ...
    #[error("the endpoint reported an error mid-stream ({kind}): {message}")]
    Endpoint { kind: String, message: String },
    /// The endpoint refused the prompt itself (Gemini's `promptFeedback.blockReason`): no reply
    /// was generated, and sending the same prompt again gets the same answer.
    #[error("the endpoint blocked the prompt ({reason}) and generated no reply")]
    Blocked { reason: String },
}

/// A chunk's data as JSON, or the error that names it.
pub(crate) fn parse_chunk(data: &str) -> Result<serde_json::Value, StreamError> {
    serde_json::from_str(data).map_err(|e| StreamError::InvalidChunk {
        reason: e.to_string(),
        excerpt: excerpt(data),
    })
}

/// The first characters of a chunk, for messages (chunks can be long).
pub(crate) fn excerpt(data: &str) -> String {
    const MAX: usize = 160;
    match data.char_indices().nth(MAX) {
        Some((cut, _)) => format!("{}…", &data[..cut]),
        None => data.to_owned(),
    }
}

/// `{"error": {"type" | "status" | "code": …, "message": …}}` (OpenAI-compatible servers,
/// Anthropic, and Gemini, whose `status` names the error where `code` is only its HTTP number).
pub(crate) fn endpoint_error(value: &serde_json::Value) -> Option<StreamError> {
    // A whole Responses object says `"error": null` when all went well.
    let error = value.get("error").filter(|e| !e.is_null())?;
    let kind = error
        .get("type")
        .or_else(|| error.get("status"))
        .or_else(|| error.get("code"))
        .map(|k| k.as_str().map_or_else(|| k.to_string(), str::to_owned))
        .unwrap_or_else(|| "error".to_owned());
    let message = error
        .get("message")
        .and_then(|m| m.as_str())
        .map_or_else(|| error.to_string(), str::to_owned);
    Some(StreamError::Endpoint { kind, message })
}
