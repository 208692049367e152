//! Recorded-shape chunks: the fields and their nesting follow the Gemini API reference's
//! `GenerateContentResponse` and published streamed transcripts; the values are made up.

use super::*;
use crate::reply::AssembledReply;

fn read_all(chunks: &[&str]) -> Result<(Vec<ReplyEvent>, AssembledReply), StreamError> {
    let mut reader = GenerateStream::default();
    let mut events = Vec::new();
    for chunk in chunks {
        assert!(reader.read_event(chunk, &mut events)?, "never ends itself");
    }
    let mut reply = AssembledReply::default();
    events.iter().for_each(|e| reply.apply(e));
    Ok((events, reply))
}

#[test]
fn text_in_pieces_then_stop_with_usage() {
    // Every chunk repeats the running usage; only the finished one is reported.
    let (events, reply) = read_all(&[
        r#"{"candidates":[{"content":{"parts":[{"text":"The sky"}],"role":"model"},"index":0}],"usageMetadata":{"promptTokenCount":9,"totalTokenCount":9},"modelVersion":"gemini-2.5-flash"}"#,
        r#"{"candidates":[{"content":{"parts":[{"text":" is blue."}],"role":"model"},"index":0}],"usageMetadata":{"promptTokenCount":9,"totalTokenCount":9}}"#,
        r#"{"candidates":[{"content":{"parts":[{"text":""}],"role":"model"},"finishReason":"STOP","index":0}],"usageMetadata":{"promptTokenCount":9,"candidatesTokenCount":6,"totalTokenCount":15}}"#,
    ])
    .expect("valid");
    assert_eq!(reply.text, "The sky is blue.");
    assert_eq!(reply.finish_reason.as_deref(), Some("STOP"));
    assert_eq!(
        reply.usage,
        Some(Usage {
            input_tokens: 9,
            output_tokens: 6
        })
    );
    let usages = events
        .iter()
        .filter(|e| matches!(e, ReplyEvent::Usage { .. }))
        .count();
    assert_eq!(usages, 1);
}

#[test]
fn thought_parts_are_reasoning_and_thinking_tokens_count_as_output() {
    let (_, reply) = read_all(&[
        r#"{"candidates":[{"content":{"parts":[{"text":"**Checking the forecast**\n\nThe user wants Paris.","thought":true}],"role":"model"},"index":0}]}"#,
        r#"{"candidates":[{"content":{"parts":[{"text":"Let me look.","thoughtSignature":"CiQB0e2Kb..."}],"role":"model"},"index":0}]}"#,
        r#"{"candidates":[{"content":{"parts":[{"functionCall":{"name":"get_weather","args":{"city":"Paris"}},"thoughtSignature":"CiQB0e2Kc..."}],"role":"model"},"finishReason":"STOP","index":0}],"usageMetadata":{"promptTokenCount":12,"candidatesTokenCount":15,"totalTokenCount":31,"thoughtsTokenCount":4}}"#,
    ])
    .expect("valid");
    assert_eq!(
        reply.reasoning,
        "**Checking the forecast**\n\nThe user wants Paris."
    );
    assert_eq!(reply.text, "Let me look.");
    assert_eq!(reply.calls.len(), 1);
    assert_eq!(
        reply.calls[0].id, "call_0",
        "no id sent: a stable one is made"
    );
    assert_eq!(reply.calls[0].name, "get_weather");
    assert_eq!(reply.calls[0].arguments, r#"{"city":"Paris"}"#);
    assert_eq!(reply.calls[0].signature.as_deref(), Some("CiQB0e2Kc..."));
    assert_eq!(
        reply.usage,
        Some(Usage {
            input_tokens: 12,
            output_tokens: 19
        })
    );
}

#[test]
fn several_whole_calls_in_one_chunk_each_get_one_arguments_event() {
    let (events, reply) = read_all(&[
        r#"{"candidates":[{"content":{"parts":[{"functionCall":{"name":"turn_on_lights","args":{"room":"kitchen","level":0.5}}},{"functionCall":{"id":"fc_7","name":"play_music","args":{}}},{"functionCall":{"name":"ping"}}],"role":"model"},"finishReason":"STOP","index":0}]}"#,
    ])
    .expect("valid");
    let ids: Vec<_> = reply.calls.iter().map(|c| c.id.as_str()).collect();
    assert_eq!(ids, ["call_0", "fc_7", "call_2"]);
    assert_eq!(
        reply.calls[0].arguments,
        r#"{"room":"kitchen","level":0.5}"#
    );
    assert_eq!(reply.calls[1].arguments, "{}");
    assert_eq!(reply.calls[2].arguments, "{}", "no args: none taken");
    let fragments = events
        .iter()
        .filter(|e| matches!(e, ReplyEvent::CallArguments { .. }))
        .count();
    assert_eq!(fragments, 3);
}

#[test]
fn calls_in_later_chunks_keep_counting() {
    let (_, reply) = read_all(&[
        r#"{"candidates":[{"content":{"parts":[{"functionCall":{"name":"a","args":{"x":1}}}],"role":"model"}}]}"#,
        r#"{"candidates":[{"content":{"parts":[{"functionCall":{"name":"b","args":{"y":[1,2]}}}],"role":"model"},"finishReason":"STOP"}]}"#,
    ])
    .expect("valid");
    assert_eq!(reply.calls[1].id, "call_1");
    assert_eq!(reply.calls[1].name, "b");
    assert_eq!(reply.calls[1].arguments, r#"{"y":[1,2]}"#);
}

#[test]
fn every_finish_reason_is_passed_on() {
    for reason in [
        "MAX_TOKENS",
        "SAFETY",
        "MALFORMED_FUNCTION_CALL",
        "RECITATION",
    ] {
        let chunk = format!(
            r#"{{"candidates":[{{"content":{{"parts":[{{"text":"par"}}],"role":"model"}},"finishReason":"{reason}"}}]}}"#
        );
        let (_, reply) = read_all(&[&chunk]).expect("valid");
        assert_eq!(reply.finish_reason.as_deref(), Some(reason));
        assert!(reply.is_finished());
    }
    // A malformed call comes with no content at all.
    let (_, reply) = read_all(&[
        r#"{"candidates":[{"finishReason":"MALFORMED_FUNCTION_CALL","index":0}],"usageMetadata":{"promptTokenCount":40,"totalTokenCount":40}}"#,
    ])
    .expect("valid");
    assert!(reply.calls.is_empty());
    assert_eq!(
        reply.usage,
        Some(Usage {
            input_tokens: 40,
            output_tokens: 0
        })
    );
}

#[test]
fn without_a_finish_reason_the_reply_is_unfinished() {
    let (_, reply) = read_all(&[
        r#"{"candidates":[{"content":{"parts":[{"text":"Half"}],"role":"model"}}],"usageMetadata":{"promptTokenCount":3}}"#,
    ])
    .expect("valid");
    assert!(!reply.is_finished());
    assert_eq!(reply.usage, None);
}

#[test]
fn a_blocked_prompt_is_an_error_that_names_the_reason() {
    let error = read_all(&[
        r#"{"promptFeedback":{"blockReason":"SAFETY","safetyRatings":[{"category":"HARM_CATEGORY_DANGEROUS_CONTENT","probability":"HIGH"}]},"usageMetadata":{"promptTokenCount":8,"totalTokenCount":8}}"#,
    ])
    .expect_err("blocked");
    assert_eq!(
        error.to_string(),
        "the endpoint blocked the prompt (SAFETY) and generated no reply"
    );
}

#[test]
fn an_error_object_or_invalid_json_ends_the_stream() {
    let error = read_all(&[
        r#"{"error":{"code":503,"message":"The model is overloaded. Please try again later.","status":"UNAVAILABLE"}}"#,
    ])
    .expect_err("error chunk");
    assert_eq!(
        error,
        StreamError::Endpoint {
            kind: "UNAVAILABLE".to_owned(),
            message: "The model is overloaded. Please try again later.".to_owned()
        }
    );
    let error =
        read_all(&[r#"{"candidates":[{"content":{"parts":[{"text":"a"#]).expect_err("cut JSON");
    assert!(
        matches!(error, StreamError::InvalidChunk { .. }),
        "{error:?}"
    );
}
