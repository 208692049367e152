use serde_json::Map;
use toolscope_protocol::request::Span;
use toolscope_protocol::result::{ErrorKind, ExecutionError};

use super::*;

fn request(name: &str, start: usize) -> ParsedToolRequest {
    let mut request = ParsedToolRequest::manual(name, Map::new());
    request.span = Span::new(start, start + 10);
    request
}

fn valid() -> ReplyCheck {
    ReplyCheck {
        error: None,
        routing_name: None,
    }
}

fn invalid() -> ReplyCheck {
    ReplyCheck {
        error: Some(ExecutionError::new(ErrorKind::ToolNotFound, "no such tool")),
        routing_name: None,
    }
}

fn range(from: u32) -> TextRange {
    TextRange {
        from,
        to: from + 10,
        line: from / 100 + 1,
        column: from % 100 + 1,
    }
}

#[test]
fn an_outline_holds_each_request_in_seven_numbers_and_each_name_once() {
    let requests = [request("a", 0), request("b", 20), request("a", 40)];
    let ranges = [range(0), range(15), range(130)];
    let outline = RequestOutline::of(&requests, &ranges, &[valid(), invalid(), valid()]);
    assert_eq!(outline.count, 3);
    assert_eq!(outline.names, ["a", "b"]);
    assert_eq!(
        outline.places,
        [
            0, 0, 10, 0, 10, 1, 1, //
            1, 20, 30, 15, 25, 1, 16, //
            0, 40, 50, 130, 140, 2, 31,
        ]
    );
    assert_eq!(outline.invalid, [1]);
    assert_eq!(outline.places.len(), PLACE_FIELDS * 3);
}

fn parse_of(kept: &KeptRequests, count: usize) -> (u32, Vec<ParsedToolRequest>) {
    let mut requests: Vec<_> = (0..count).map(|i| request(&format!("t{i}"), i)).collect();
    let mut checks: Vec<_> = (0..count)
        .map(|i| if i % 2 == 0 { valid() } else { invalid() })
        .collect();
    let id = kept.keep_rest(&mut requests, &mut checks);
    assert_eq!(requests.len(), count.min(FIRST_REQUESTS));
    assert_eq!(checks.len(), requests.len());
    (id, requests)
}

#[test]
fn the_answer_keeps_the_first_requests_and_pages_give_the_rest_in_order() {
    let kept = KeptRequests::default();
    let (id, first) = parse_of(&kept, 250);
    assert_eq!(first.last().map(|r| r.tool_name.as_str()), Some("t99"));

    let page = kept.page(id, 100, 200).expect("a page");
    assert_eq!(page.from, 100);
    assert_eq!(page.requests.len(), 100);
    assert_eq!(page.requests[0].tool_name, "t100");
    assert!(page.checks[0].error.is_none() && page.checks[1].error.is_some());

    // The end is clamped to what the parse found; an empty page at the end is fine.
    let tail = kept.page(id, 200, 1_000).expect("the tail");
    assert_eq!(tail.requests.len(), 50);
    assert_eq!(tail.requests[49].tool_name, "t249");
    assert!(kept.page(id, 250, 300).expect("empty").requests.is_empty());
}

#[test]
fn only_the_latest_parse_is_kept_and_bad_ranges_are_input_errors() {
    let kept = KeptRequests::default();
    let (old, _) = parse_of(&kept, 150);
    let (new, _) = parse_of(&kept, 120);
    assert_ne!(old, new);
    let stale = kept.page(old, 100, 150).expect_err("an older parse");
    assert_eq!(stale.kind, CommandErrorKind::InvalidInput);
    assert!(stale.message.contains("parsed again"), "{}", stale.message);

    for (from, to) in [(0, 50), (99, 110), (130, 200), (110, 105)] {
        let error = kept.page(new, from, to).expect_err("out of range");
        assert_eq!(error.kind, CommandErrorKind::InvalidInput, "{from}..{to}");
    }
    assert_eq!(kept.page(new, 100, 120).expect("rest").requests.len(), 20);
}

#[test]
fn a_short_parse_keeps_nothing_but_still_replaces_the_previous_one() {
    let kept = KeptRequests::default();
    let (long, _) = parse_of(&kept, 300);
    let (short, first) = parse_of(&kept, 3);
    assert_eq!(first.len(), 3);
    assert!(kept.page(long, 100, 200).is_err());
    assert!(kept.page(short, 100, 100).is_err(), "it found only 3");
}
