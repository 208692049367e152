//! Replaying a recorded conversation offline: each turn's reply read again by today's parser.
//!
//! A person who changes a format (a declared format file, a parser fix) wants to know whether
//! the replies their model really sent are now read differently, without calling the model
//! again. The record holds every reply as it arrived and how it was read then; reading it again
//! and comparing the calls says which turns changed.

use serde::Serialize;

use super::native;
use super::record::{LoadedConversation, Record};
use super::ToolMode;
use toolscope_protocol::parser::{self, ParseReport, ParserError};
use toolscope_protocol::ProtocolSet;

/// One turn, then and now.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct ReplayedTurn {
    pub turn: u32,
    pub recorded: Option<ParseReport>,
    pub today: ParseReport,
    /// The calls (names, arguments, cut-off marks) or the error diagnostics differ.
    pub changed: bool,
}

#[derive(Debug, thiserror::Error)]
pub enum ReplayError {
    #[error("the conversation has no start record, so how its tools were given is unknown")]
    NoStart,
    #[error(transparent)]
    Format(#[from] ParserError),
}

/// Every recorded reply of `conversation`, parsed again with `protocols`.
pub fn replay(
    conversation: &LoadedConversation,
    protocols: &ProtocolSet,
) -> Result<Vec<ReplayedTurn>, ReplayError> {
    // A proxied conversation is read as the proxy read it: native calls when the reply has
    // them, else whatever format the text is in.
    let (mode, native_protocol) = conversation
        .records
        .iter()
        .find_map(|r| match &r.record {
            Record::Started {
                settings, model, ..
            } => Some((Some(settings.tools.clone()), model.native_protocol.clone())),
            Record::Proxied { model, .. } => Some((None, model.native_protocol.clone())),
            _ => None,
        })
        .ok_or(ReplayError::NoStart)?;
    let mut turns: Vec<ReplayedTurn> = Vec::new();
    for timed in &conversation.records {
        match &timed.record {
            Record::Reply { turn, reply, .. } => {
                let today = match &mode {
                    Some(ToolMode::Native) => native::report(protocols, &native_protocol, reply),
                    Some(ToolMode::Prompted { format }) => {
                        parser::parse(protocols, &reply.text, Some(format))?
                    }
                    None => native::observed_report(protocols, &native_protocol, reply),
                };
                turns.push(ReplayedTurn {
                    turn: *turn,
                    recorded: None,
                    today,
                    changed: false,
                });
            }
            Record::Parsed { turn, report } => {
                if let Some(replayed) = turns.iter_mut().rev().find(|t| t.turn == *turn) {
                    replayed.changed = !same_reading(report, &replayed.today);
                    replayed.recorded = Some(report.clone());
                }
            }
            _ => {}
        }
    }
    Ok(turns)
}

/// Request ids are generated afresh for formats without ids, so they are not compared.
fn same_reading(a: &ParseReport, b: &ParseReport) -> bool {
    let calls = |r: &ParseReport| {
        r.requests
            .iter()
            .map(|q| (q.tool_name.clone(), q.args.clone(), q.incomplete))
            .collect::<Vec<_>>()
    };
    let errors = |r: &ParseReport| {
        r.diagnostics
            .iter()
            .map(|d| (d.severity, d.code, d.message.clone()))
            .collect::<Vec<_>>()
    };
    calls(a) == calls(b) && errors(a) == errors(b)
}
