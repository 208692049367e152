//! What a server said on the side: its stderr lines and MCP log messages, kept as a bounded
//! tail so the Sources pane can show them and an error can quote the last few. Lines pass
//! through the connection's redactor on the way in, so nothing downstream sees a secret.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use toolscope_engine::redact::Redactor;

/// How many lines of a server's stderr and log messages are kept.
const LOG_LINES: usize = 500;
/// Longer lines are cut: a server printing one huge line must not fill the memory.
const LOG_LINE_BYTES: usize = 2000;

/// A bounded tail of what the server printed on stderr or sent as log messages, with the
/// connection's secrets redacted.
#[derive(Debug, Default)]
pub struct ServerLog {
    lines: Mutex<VecDeque<String>>,
    secrets: Mutex<Arc<Redactor>>,
}

impl ServerLog {
    /// The secrets to redact from the lines pushed from now on (set on every connect).
    pub fn set_secrets(&self, secrets: Arc<Redactor>) {
        *self.secrets.lock().unwrap_or_else(|e| e.into_inner()) = secrets;
    }

    pub fn push(&self, line: impl Into<String>) {
        let secrets = Arc::clone(&self.secrets.lock().unwrap_or_else(|e| e.into_inner()));
        let mut line = secrets.redact(&line.into());
        if line.len() > LOG_LINE_BYTES {
            let mut cut = LOG_LINE_BYTES;
            while !line.is_char_boundary(cut) {
                cut -= 1;
            }
            line.truncate(cut);
            line.push_str(" [cut]");
        }
        let mut lines = self.lines.lock().unwrap_or_else(|e| e.into_inner());
        if lines.len() == LOG_LINES {
            lines.pop_front();
        }
        lines.push_back(line);
    }

    pub fn lines(&self) -> Vec<String> {
        self.lines
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .iter()
            .cloned()
            .collect()
    }

    /// The last `n` lines, for an error message.
    pub fn tail(&self, n: usize) -> Vec<String> {
        let lines = self.lines.lock().unwrap_or_else(|e| e.into_inner());
        lines
            .iter()
            .skip(lines.len().saturating_sub(n))
            .cloned()
            .collect()
    }
}
