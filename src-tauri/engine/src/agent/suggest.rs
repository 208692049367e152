//! What a model is told when its reply or its call fails, so it can correct itself (seed 001).
//!
//! A call's failure carries its suggestion in the classified error, written by the executor
//! ([`crate::executor::suggest`]) so every face shows the same words; [`for_result`] tells it
//! against the names this conversation offered. What is the loop's own is here: the feedback
//! when a reply tried to call a tool and nothing could be read.

use toolscope_protocol::request::{Diagnostic, Severity};

pub use crate::executor::suggest::for_result;

/// Said when a reply held a call that could not be read and nothing ran.
pub fn for_parse_errors(diagnostics: &[Diagnostic], format_label: &str) -> Option<String> {
    let errors: Vec<&str> = diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .map(|d| d.message.as_str())
        .collect();
    if errors.is_empty() {
        return None;
    }
    Some(format!(
        "Your last reply tried to call a tool, but the call could not be read: {}. Write the call again, exactly in the {format_label} format the system prompt describes.",
        errors.join("; ")
    ))
}

/// Said when a native reply ended because the model's call was malformed (Gemini's
/// `MALFORMED_FUNCTION_CALL`): nothing arrived to run, but the model did try to call.
pub fn for_malformed_call(finish_reason: Option<&str>) -> Option<String> {
    (finish_reason == Some("MALFORMED_FUNCTION_CALL")).then(|| {
        "Your last function call was malformed and could not be read. Call the function again, with its arguments as one JSON object matching its parameters.".to_owned()
    })
}

#[cfg(test)]
mod tests {
    use toolscope_protocol::request::{DiagnosticCode, Span};

    use super::*;

    #[test]
    fn unreadable_calls_are_explained_and_warnings_are_not() {
        let diagnostic = |severity| Diagnostic {
            severity,
            code: DiagnosticCode::InvalidJson,
            message: "expected ',' at line 1".to_owned(),
            span: Span::new(0, 1),
        };
        assert!(for_parse_errors(&[diagnostic(Severity::Warning)], "Hermes").is_none());
        let text = for_parse_errors(&[diagnostic(Severity::Error)], "Hermes").expect("said");
        assert!(
            text.contains("expected ',' at line 1") && text.contains("Hermes"),
            "{text}"
        );
    }
}
