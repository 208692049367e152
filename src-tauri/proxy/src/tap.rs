//! Where the message stream meets the record: each line is recorded, observed and its derived
//! records written under one lock, so `seq` is the order of the file and of the observer, and
//! all of it happens before the transport forwards the line (a forwarded message is an
//! acknowledged one: it is in the file).
//!
//! A record that cannot be written does not stop the traffic (the agent must keep working
//! with its server); the first failure is reported on stderr and remembered for the exit code.

use std::sync::{Mutex, MutexGuard};

use base64::Engine;
use serde_json::{json, Value};

use crate::faults::{self, Fault, FaultWatch};
use crate::message::{self, Parsed};
use crate::observer::Observer;
use crate::record::{Direction, EndReason, Event, ExitStatusRecord, Origin, RECORD_FORMAT};
use crate::recorder::{Recorder, SessionInfo};
use crate::tools_diff::previous_session;
use toolscope_engine::jsonl::LogIoError;

/// What to do with a line from the agent.
#[derive(Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Send it to the server.
    Forward,
    /// Do not forward it; send the agent this line (already recorded) instead.
    Answer(Vec<u8>),
    /// Forward it after this delay (a fault of the plan); other messages go on meanwhile.
    Delay(std::time::Duration),
    /// Do not forward it; after this delay, record this line with [`Tap::proxy_answer`] and
    /// send it to the agent (a mock with a latency); other messages go on meanwhile.
    AnswerAfter(std::time::Duration, Vec<u8>),
}

/// How a session ended, for [`Tap::end`].
#[derive(Debug, Clone, Default)]
pub struct Ending<'a> {
    pub signal: Option<&'a str>,
    pub server_status: Option<ExitStatusRecord>,
    pub stderr_tail: &'a [String],
    pub pending_answered: usize,
}

#[derive(Debug)]
struct State {
    next_seq: u64,
    messages: u64,
    observer: Observer,
    faults: FaultWatch,
    failure: Option<String>,
}

/// The recorder and the observer of one session.
#[derive(Debug)]
pub struct Tap {
    recorder: Recorder,
    state: Mutex<State>,
}

impl Tap {
    /// Writes the session header (seq 0); failing here fails the start.
    pub fn start(
        recorder: Recorder,
        session_id: &str,
        info: &SessionInfo,
    ) -> Result<Self, LogIoError> {
        recorder.append(
            0,
            &Event::Session {
                session_id,
                name: &info.name,
                argv: &info.argv,
                proxy_version: env!("CARGO_PKG_VERSION"),
                enforce: info.enforce,
                format: RECORD_FORMAT,
            },
        )?;
        let mut observer = Observer::new(info.enforce);
        let faults = FaultWatch::new(recorder.path().parent());
        // The first listing is compared with the last one of the server's previous session.
        let previous = recorder
            .path()
            .parent()
            .and_then(|dir| previous_session(dir, session_id));
        if let Some(baseline) = previous {
            observer.set_baseline(baseline);
        }
        Ok(Self {
            recorder,
            state: Mutex::new(State {
                next_seq: 1,
                messages: 0,
                observer,
                faults,
                failure: None,
            }),
        })
    }

    pub fn recorder(&self) -> &Recorder {
        &self.recorder
    }

    /// How many of the agent's requests the server has not answered yet.
    pub fn unanswered(&self) -> usize {
        self.lock().observer.pending_agent_requests().len()
    }

    /// The first record that could not be written, if any.
    pub fn failure(&self) -> Option<String> {
        self.lock().failure.clone()
    }

    /// A line from the agent, before it is forwarded.
    pub fn agent_message(&self, line: &[u8]) -> Verdict {
        let mut state = self.lock();
        let seq = state.next_seq;
        let Some(refusal) = self.take(&mut state, Direction::AgentToServer, None, line) else {
            return self.apply_fault(&mut state, seq, line);
        };
        let mut answer = refusal.response.into_bytes();
        answer.push(b'\n');
        self.take(
            &mut state,
            Direction::ServerToAgent,
            Some(Origin::Proxy),
            &answer,
        );
        Verdict::Answer(answer)
    }

    /// The fault the plan holds for this message, when it is a call of a tool that has one.
    fn apply_fault(&self, state: &mut State, call_seq: u64, line: &[u8]) -> Verdict {
        if state.faults.is_empty() {
            return Verdict::Forward;
        }
        let Ok(message) = serde_json::from_slice::<Value>(line) else {
            return Verdict::Forward;
        };
        let (Some(id), Some(tool)) = (message.get("id"), message["params"]["name"].as_str()) else {
            return Verdict::Forward;
        };
        if message["method"] != "tools/call" {
            return Verdict::Forward;
        }
        let Some(fault) = state.faults.for_tool(tool) else {
            return Verdict::Forward;
        };
        let (kind, delay_ms, error_kind) = match &fault {
            Fault::DelayMs(ms) => ("delay", Some(*ms), None),
            Fault::Error(error) => ("error", None, Some(error.kind)),
            Fault::Mock(_) | Fault::Imported(_) => ("mock", None, None),
        };
        let imported = match &fault {
            Fault::Imported(mock) => Some(format!("{}/{}", mock.set, mock.definition)),
            _ => None,
        };
        self.write(
            state,
            &Event::Fault {
                call_seq,
                id: id.clone(),
                tool: tool.to_owned(),
                fault: kind,
                delay_ms,
                error_kind,
                imported,
            },
        );
        if let Some(ms) = delay_ms {
            return Verdict::Delay(std::time::Duration::from_millis(ms));
        }
        let arguments = &message["params"]["arguments"];
        let Some(answer) = faults::answer(id, tool, arguments, &fault) else {
            return Verdict::Forward;
        };
        let mut answer = answer.into_bytes();
        answer.push(b'\n');
        let delay = faults::answer_delay(&fault);
        if !delay.is_zero() {
            // Recorded when it is sent, so the call's latency is the mock's.
            return Verdict::AnswerAfter(delay, answer);
        }
        self.take(
            state,
            Direction::ServerToAgent,
            Some(Origin::Proxy),
            &answer,
        );
        Verdict::Answer(answer)
    }

    /// Records an answer the proxy makes up, at the moment it is sent (a
    /// [`Verdict::AnswerAfter`]'s, when its time has come).
    pub fn proxy_answer(&self, answer: &[u8]) {
        let mut state = self.lock();
        self.take(
            &mut state,
            Direction::ServerToAgent,
            Some(Origin::Proxy),
            answer,
        );
    }

    /// A line from the server, before it is forwarded.
    pub fn server_message(&self, line: &[u8]) {
        let mut state = self.lock();
        self.take(&mut state, Direction::ServerToAgent, None, line);
    }

    /// Answers every request of the agent the server left unanswered with a JSON-RPC error
    /// (`code`, `message`, `data`), records the answers and returns them as lines to send.
    pub fn answer_pending(&self, code: i64, message: &str, data: &Value) -> Vec<Vec<u8>> {
        let mut state = self.lock();
        let ids: Vec<_> = state
            .observer
            .pending_agent_requests()
            .into_iter()
            .map(|p| p.id.clone())
            .collect();
        ids.into_iter()
            .map(|id| self.answer_with_error(&mut state, &id, code, message, data))
            .collect()
    }

    /// Answers one request of the agent with a JSON-RPC error the proxy makes up (the upstream
    /// refused or could not be reached), records it and returns the line to send.
    pub fn answer_request(&self, id: &Value, code: i64, message: &str, data: &Value) -> Vec<u8> {
        let mut state = self.lock();
        self.answer_with_error(&mut state, id, code, message, data)
    }

    fn answer_with_error(
        &self,
        state: &mut State,
        id: &(impl serde::Serialize + ?Sized),
        code: i64,
        message: &str,
        data: &Value,
    ) -> Vec<u8> {
        let mut line = json!({
            "jsonrpc": "2.0",
            "id": id,
            "error": {"code": code, "message": message, "data": data},
        })
        .to_string()
        .into_bytes();
        line.push(b'\n');
        self.take(state, Direction::ServerToAgent, Some(Origin::Proxy), &line);
        line
    }

    /// Writes the last record of the session.
    pub fn end(&self, reason: EndReason, ending: &Ending<'_>) {
        let mut state = self.lock();
        let messages = state.messages;
        self.write(
            &mut state,
            &Event::End {
                reason,
                signal: ending.signal,
                server_status: ending.server_status,
                stderr_tail: ending.stderr_tail,
                pending_answered: ending.pending_answered,
                messages,
            },
        );
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        // Records are built before they are written; a panic elsewhere leaves nothing half-done.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Records `line` and what it means; returns the observer's refusal, if any.
    fn take(
        &self,
        state: &mut State,
        dir: Direction,
        origin: Option<Origin>,
        line: &[u8],
    ) -> Option<crate::observer::Refusal> {
        let content = message::content(line);
        let parsed = message::parse(line);
        let event = match &parsed {
            Parsed::Json { raw, .. } => Event::Message {
                dir,
                origin,
                bytes: content.len(),
                msg: Some(raw),
                text: None,
                base64: None,
            },
            Parsed::NotJson => Event::Message {
                dir,
                origin,
                bytes: content.len(),
                msg: None,
                text: Some(String::from_utf8_lossy(content).into_owned()),
                base64: std::str::from_utf8(content)
                    .is_err()
                    .then(|| base64::engine::general_purpose::STANDARD.encode(content)),
            },
        };
        state.messages += 1;
        let (seq, ms) = self.write(state, &event);
        let Parsed::Json { messages, .. } = &parsed else {
            return None;
        };
        let (events, refusal) = state.observer.observe(dir, seq, ms, messages);
        for event in &events {
            self.write(state, event);
        }
        refusal
    }

    fn write(&self, state: &mut State, event: &Event<'_>) -> (u64, f64) {
        let seq = state.next_seq;
        state.next_seq += 1;
        match self.recorder.append(seq, event) {
            Ok(ms) => (seq, ms),
            Err(error) => {
                if state.failure.is_none() {
                    eprintln!(
                        "toolscope proxy: recording failed, forwarding goes on unrecorded: {error}"
                    );
                    state.failure = Some(error.to_string());
                }
                (seq, self.recorder.elapsed_ms())
            }
        }
    }
}
