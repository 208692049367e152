//! Strict parsing: the calls a serving stack would hand its client, and nothing else.
//!
//! By default Toolscope keeps every call a reply holds visible, with a diagnostic, because the
//! person debugging wants to see what the model wrote: a call to a tool nobody offered, a call
//! cut off by the token limit. Serving stacks are less forgiving (SGLang drops calls to tools the
//! request did not define unless told to forward them; a client gets no usable call from a block
//! that never closed), so a strict switch shows the reply as such a stack would return it. Each
//! dropped call leaves an error diagnostic where it was, so nothing disappears without a word.

use toolscope_protocol::parser::{self, ParseReport};
use toolscope_protocol::request::{Diagnostic, DiagnosticCode, Severity};

use crate::registry::Registry;

/// Drops cut-off calls and calls whose tool `known` does not accept (it answers why not).
pub fn apply(report: &mut ParseReport, known: impl Fn(&str) -> Result<(), String>) {
    parser::drop_incomplete(report);
    drop_unknown(report, known);
}

/// Strict parsing against the registry: calls must name a method that resolves.
pub fn against_registry(report: &mut ParseReport, registry: &Registry) {
    apply(report, |name| resolves(registry, name));
}

/// Why `name` does not resolve in the registry, if it does not.
pub fn resolves(registry: &Registry, name: &str) -> Result<(), String> {
    registry.resolve(name).map(|_| ()).map_err(|e| e.message)
}

/// Drops calls whose tool `known` does not accept, each with an error where it was
/// (`strict_unknown_tool` of the cycle does only this).
pub fn drop_unknown(report: &mut ParseReport, known: impl Fn(&str) -> Result<(), String>) {
    let mut kept = Vec::with_capacity(report.requests.len());
    for request in std::mem::take(&mut report.requests) {
        match known(&request.tool_name) {
            Ok(()) => kept.push(request),
            Err(reason) => report.diagnostics.push(Diagnostic {
                severity: Severity::Error,
                code: DiagnosticCode::UnknownTool,
                message: format!(
                    "strict: the call to '{}' is dropped, as a serving stack drops calls to \
                     tools it was not given: {reason}",
                    request.tool_name
                ),
                span: request.span,
            }),
        }
    }
    report.requests = kept;
    report.diagnostics.sort_by_key(|d| d.span.start);
}

#[cfg(test)]
mod tests {
    use super::*;
    use toolscope_protocol::ProtocolSet;

    #[test]
    fn drops_cut_off_and_unknown_calls_and_says_where() {
        let reply = "<tool_call>{\"name\": \"known\", \"arguments\": {}}</tool_call>\n\
                     <tool_call>{\"name\": \"other\", \"arguments\": {}}</tool_call>\n\
                     <tool_call>{\"name\": \"known\", \"arguments\": {\"a\": 1}}";
        let mut report =
            parser::parse(&ProtocolSet::standard(), reply, Some("hermes")).expect("hermes");
        assert_eq!(report.requests.len(), 3);
        assert!(report.requests[2].incomplete);
        apply(&mut report, |name| {
            (name == "known")
                .then_some(())
                .ok_or_else(|| "not offered".to_owned())
        });
        assert_eq!(report.requests.len(), 1);
        assert_eq!(report.requests[0].tool_name, "known");
        let dropped: Vec<_> = report
            .diagnostics
            .iter()
            .filter(|d| d.severity == Severity::Error)
            .map(|d| d.code)
            .collect();
        assert_eq!(
            dropped,
            [DiagnosticCode::UnknownTool, DiagnosticCode::UnclosedBlock]
        );
    }
}
