//! Server-Sent Events read from bytes as they are forwarded, so the recorder sees each event
//! of a stream without holding up the agent's copy: bytes go in in whatever pieces the
//! upstream sent, complete events come out (only their `data`, joined as the SSE spec joins
//! multi-line data).

/// An incremental SSE reader.
#[derive(Debug, Default)]
pub struct SseReader {
    pending: Vec<u8>,
    data: Option<String>,
    /// The `event:` of the event being read (`message` when it names none).
    kind: Option<String>,
    /// Each dispatched event's kind, in step with the data pushed, when asked for
    /// ([`Self::push_typed`]).
    kinds: Vec<String>,
    /// The last `id:` seen (the stream's "last event ID", sent back when reconnecting).
    last_id: Option<String>,
    /// The last `retry:` the server asked for, in milliseconds.
    retry_ms: Option<u64>,
}

impl SseReader {
    /// As [`Self::push`], with each event's kind (`event:`, `message` by default): the older
    /// HTTP+SSE transport names its first event `endpoint`.
    pub fn push_typed(&mut self, bytes: &[u8], events: &mut Vec<(String, String)>) {
        let mut data = Vec::new();
        self.read(bytes, &mut data);
        events.extend(self.kinds.drain(..).zip(data));
    }

    /// Reads `bytes`; each event they complete is pushed onto `events` (its data).
    pub fn push(&mut self, bytes: &[u8], events: &mut Vec<String>) {
        self.read(bytes, events);
        self.kinds.clear();
    }

    fn read(&mut self, bytes: &[u8], events: &mut Vec<String>) {
        self.pending.extend_from_slice(bytes);
        let mut start = 0;
        while let Some(offset) = self.pending[start..]
            .iter()
            .position(|b| *b == b'\n' || *b == b'\r')
        {
            let end = start + offset;
            // A CR at the very end may be half of a CRLF still on its way.
            if self.pending[end] == b'\r' && end + 1 == self.pending.len() {
                break;
            }
            let line = String::from_utf8_lossy(&self.pending[start..end]).into_owned();
            self.line(&line, events);
            start = end + 1;
            if self.pending[end] == b'\r' && self.pending.get(start) == Some(&b'\n') {
                start += 1;
            }
        }
        self.pending.drain(..start);
    }

    /// The stream ended: an event without its blank line still counts.
    pub fn finish(&mut self, events: &mut Vec<String>) {
        if !self.pending.is_empty() {
            let line = String::from_utf8_lossy(&self.pending).into_owned();
            self.pending.clear();
            self.line(&line, events);
        }
        events.extend(self.data.take());
        self.kind = None;
        self.kinds.clear();
    }

    /// The stream's last event ID so far, for `Last-Event-ID` on a reconnection.
    pub fn last_id(&self) -> Option<&str> {
        self.last_id.as_deref().filter(|id| !id.is_empty())
    }

    /// How long the server asked a client to wait before reconnecting, if it said.
    pub fn retry_ms(&self) -> Option<u64> {
        self.retry_ms
    }

    fn line(&mut self, line: &str, events: &mut Vec<String>) {
        if line.is_empty() {
            let kind = self.kind.take();
            if let Some(data) = self.data.take() {
                events.push(data);
                self.kinds
                    .push(kind.unwrap_or_else(|| "message".to_owned()));
            }
            return;
        }
        let (field, value) = match line.split_once(':') {
            Some((field, value)) => (field, value.strip_prefix(' ').unwrap_or(value)),
            None => (line, ""),
        };
        if field == "event" {
            self.kind = Some(value.to_owned());
        } else if field == "id" && !value.contains('\0') {
            self.last_id = Some(value.to_owned());
        } else if field == "retry" {
            if let Ok(ms) = value.parse() {
                self.retry_ms = Some(ms);
            }
        } else if field == "data" {
            match &mut self.data {
                Some(data) => {
                    data.push('\n');
                    data.push_str(value);
                }
                None => self.data = Some(value.to_owned()),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read_in_pieces(text: &str, piece: usize) -> Vec<String> {
        let mut reader = SseReader::default();
        let mut events = Vec::new();
        for chunk in text.as_bytes().chunks(piece) {
            reader.push(chunk, &mut events);
        }
        reader.finish(&mut events);
        events
    }

    #[test]
    fn events_come_with_their_kind_when_asked() {
        let mut reader = SseReader::default();
        let mut events = Vec::new();
        reader.push_typed(
            b"event: endpoint\ndata: /message?sessionId=1\n\ndata: {}\n\nevent: message\ndata: []\n\n",
            &mut events,
        );
        let kinds: Vec<(&str, &str)> = events
            .iter()
            .map(|(k, d)| (k.as_str(), d.as_str()))
            .collect();
        assert_eq!(
            kinds,
            [
                ("endpoint", "/message?sessionId=1"),
                ("message", "{}"),
                ("message", "[]")
            ]
        );
    }

    #[test]
    fn the_last_event_id_and_the_retry_delay_are_kept() {
        let mut reader = SseReader::default();
        let mut events = Vec::new();
        reader.push(b"retry: 250\nid: 7\ndata: a\n\ndata: b\n\n", &mut events);
        assert_eq!(events, ["a", "b"]);
        assert_eq!(
            (reader.last_id(), reader.retry_ms()),
            (Some("7"), Some(250))
        );
        reader.push(b"id\ndata: c\n\n", &mut events);
        assert_eq!(reader.last_id(), None, "an empty id resets it");
    }

    #[test]
    fn events_come_out_whole_however_the_bytes_were_cut() {
        let text = "event: message_start\r\ndata: {\"a\":1}\r\n\r\n: comment\n\ndata: one\ndata: two\n\ndata:[DONE]\n\n";
        for piece in [1, 2, 3, 7, 64] {
            assert_eq!(
                read_in_pieces(text, piece),
                ["{\"a\":1}", "one\ntwo", "[DONE]"],
                "pieces of {piece}"
            );
        }
    }

    #[test]
    fn a_last_event_without_its_blank_line_is_kept() {
        assert_eq!(read_in_pieces("data: tail", 4), ["tail"]);
    }
}
