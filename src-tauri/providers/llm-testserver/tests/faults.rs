//! Streams that go wrong (cut, stalled, garbage) end in the client's matching errors with what
//! had arrived; a `repeat` turn answers forever; every request is recorded.

mod common;

use std::time::Duration;

use common::{assert_arguments, endpoint, stream, stream_with, WIRES};
use toolscope_llm::client::{ClientError, Wire};
use toolscope_llm::StreamError;
use toolscope_llm_testserver::{Call, Fault, Framing, Reply, Script, TestServer, Turn};

const ARGUMENTS: &str = r#"{"message": "a fairly long message to cut"}"#;

fn calling(fault: Fault) -> Reply {
    Reply {
        calls: vec![Call {
            id: Some("call_1".to_owned()),
            name: "echo_echo".to_owned(),
            arguments: serde_json::Value::from(ARGUMENTS),
        }],
        chunk_chars: Some(4),
        fault: Some(fault),
        ..Reply::default()
    }
}

#[tokio::test]
async fn a_cut_stream_is_reported_as_cut_with_the_arguments_so_far() {
    for wire in WIRES {
        let fault = Fault::CutAfter(5);
        let server = TestServer::start(Script::new(vec![Turn::reply(calling(fault))]))
            .await
            .expect("server");
        match stream(&server, wire, "hi").await {
            Err(ClientError::Cut { partial }) => {
                assert_eq!(partial.calls.len(), 1, "{wire:?}");
                let arguments = &partial.calls[0].arguments;
                if wire == Wire::Gemini {
                    // The call came whole (in one chunk); the finishing chunk did not: N past
                    // the end falls before it.
                    assert_arguments(wire, arguments, ARGUMENTS);
                    assert!(partial.finish_reason.is_none());
                    continue;
                }
                assert!(
                    !arguments.is_empty()
                        && ARGUMENTS.starts_with(arguments.as_str())
                        && arguments.len() < 40,
                    "{wire:?}: {arguments}"
                );
            }
            other => panic!("{wire:?}: expected a cut, got {other:?}"),
        }
    }
}

#[tokio::test]
async fn a_cut_chunked_body_is_a_cut_stream() {
    for wire in WIRES {
        let reply = Reply {
            framing: Some(Framing::Chunked),
            ..calling(Fault::CutAfter(5))
        };
        let server = TestServer::start(Script::new(vec![Turn::reply(reply)]))
            .await
            .expect("server");
        // The body ends without its last chunk: the HTTP client reports a broken body, which is
        // a cut stream with what had arrived.
        match stream(&server, wire, "hi").await {
            Err(ClientError::Cut { partial }) => {
                assert_eq!(partial.calls.len(), 1, "{wire:?}");
            }
            other => panic!("{wire:?}: expected an error, got {other:?}"),
        }
    }
}

#[tokio::test]
async fn a_stalled_stream_is_reported_as_stalled() {
    for wire in WIRES {
        let server = TestServer::start(Script::new(vec![Turn::reply(calling(Fault::StallAfter(
            4,
        )))]))
        .await
        .expect("server");
        let mut quick = endpoint(&server, wire, None);
        quick.idle_timeout = Duration::from_millis(300);
        let (result, _) = stream_with(&quick, common::body(wire, "hi")).await;
        assert!(
            matches!(result, Err(ClientError::Stalled { .. })),
            "{wire:?}: {result:?}"
        );
        assert_eq!(server.requests().len(), 1, "recorded while stalled");
    }
}

#[tokio::test]
async fn an_invalid_chunk_is_reported_as_a_stream_error() {
    for wire in WIRES {
        let server = TestServer::start(Script::new(vec![Turn::reply(calling(
            Fault::InvalidChunkAfter(4),
        ))]))
        .await
        .expect("server");
        match stream(&server, wire, "hi").await {
            Err(ClientError::Stream {
                error: StreamError::InvalidChunk { excerpt, .. },
                ..
            }) => assert_eq!(excerpt, "{not json", "{wire:?}"),
            other => panic!("{wire:?}: expected an invalid chunk, got {other:?}"),
        }
    }
}

#[tokio::test]
async fn a_repeat_turn_answers_every_further_request() {
    let looping = Reply {
        text: Some("Again.".to_owned()),
        calls: vec![Call {
            id: None,
            name: "time_now".to_owned(),
            arguments: serde_json::json!({}),
        }],
        ..Reply::default()
    };
    let first = Turn::reply(Reply {
        text: Some("First.".to_owned()),
        ..Reply::default()
    });
    let script = Script::new(vec![
        first,
        Turn {
            repeat: true,
            ..Turn::reply(looping)
        },
    ]);
    let server = TestServer::start(script).await.expect("server");
    assert_eq!(
        stream(&server, Wire::OpenAiChat, "go")
            .await
            .expect("first")
            .text,
        "First."
    );
    for round in 0..6 {
        let wire = WIRES[round % WIRES.len()];
        let reply = stream(&server, wire, "go").await.expect("looping");
        assert_eq!(reply.text, "Again.", "{wire:?}");
        assert_eq!(reply.calls[0].name, "time_now");
        assert_eq!(reply.calls[0].arguments, "{}");
    }
    assert_eq!(server.turns_used(), 1);
    let turns: Vec<Option<usize>> = server.requests().iter().map(|r| r.turn).collect();
    assert_eq!(
        turns,
        [
            Some(0),
            Some(1),
            Some(1),
            Some(1),
            Some(1),
            Some(1),
            Some(1)
        ]
    );
}

#[tokio::test]
async fn requests_are_recorded_as_they_arrived() {
    let script = Script::new(vec![
        Turn::reply(Reply {
            text: Some("one".to_owned()),
            ..Reply::default()
        }),
        Turn::reply(Reply {
            text: Some("two".to_owned()),
            ..Reply::default()
        }),
    ]);
    let server = TestServer::start(script).await.expect("server");
    let before = std::time::SystemTime::now();
    stream_with(
        &endpoint(&server, Wire::OpenAiChat, Some("sk-1")),
        common::body(Wire::OpenAiChat, "first question"),
    )
    .await
    .0
    .expect("one");
    stream_with(
        &endpoint(&server, Wire::Anthropic, Some("sk-2")),
        common::body(Wire::Anthropic, "second question"),
    )
    .await
    .0
    .expect("two");
    let requests = server.requests();
    assert_eq!(requests.len(), 2);
    let (chat, messages) = (&requests[0], &requests[1]);
    assert_eq!(
        (chat.method.as_str(), chat.path.as_str()),
        ("POST", "/v1/chat/completions")
    );
    assert_eq!(chat.header("Authorization"), Some("Bearer sk-1"));
    assert_eq!(chat.body["stream"], true);
    assert_eq!(chat.body["model"], "toolscope-test");
    assert_eq!(chat.body["messages"][0]["content"], "first question");
    assert!(chat.received_at >= before && messages.received_at >= chat.received_at);
    assert_eq!(messages.path, "/v1/messages");
    assert_eq!(messages.header("x-api-key"), Some("sk-2"));
    assert_eq!(messages.header("anthropic-version"), Some("2023-06-01"));
    assert_eq!(messages.turn, Some(1));
    assert!(messages.raw_body.contains("second question"));
}

#[tokio::test]
async fn one_client_reuses_its_connection_across_turns_and_faults() {
    let turns = vec![
        Turn::reply(Reply {
            text: Some("one".to_owned()),
            ..Reply::default()
        }),
        Turn::error(toolscope_llm_testserver::ErrorReply {
            status: 500,
            ..Default::default()
        }),
        Turn::reply(calling(Fault::CutAfter(3))),
        Turn::reply(Reply {
            text: Some("four".to_owned()),
            ..Reply::default()
        }),
    ];
    let server = TestServer::start(Script::new(turns)).await.expect("server");
    let client = reqwest::Client::new();
    let endpoint = endpoint(&server, Wire::OpenAiChat, None);
    let mut outcomes = Vec::new();
    for _ in 0..4 {
        let result = toolscope_llm::client::stream_reply(
            &client,
            &endpoint,
            common::body(Wire::OpenAiChat, "hi"),
            &tokio_util::sync::CancellationToken::new(),
            |_| {},
        )
        .await;
        outcomes.push(match result {
            Ok(reply) => reply.text,
            Err(ClientError::Refused(_)) => "refused".to_owned(),
            Err(ClientError::Cut { .. }) => "cut".to_owned(),
            Err(other) => format!("{other}"),
        });
    }
    assert_eq!(outcomes, ["one", "refused", "cut", "four"]);
}
