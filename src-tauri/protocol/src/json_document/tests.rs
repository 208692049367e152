//! Tests of `json_document`, kept beside it so the module itself stays readable.

use super::calls::{integrity, Integrity};
use super::found::{find_documents, is_whole_reply};
use super::offsets::{is_generated_id, literal_offset};
use super::*;

fn root(text: &str) -> Node {
    value_at(&Doc::plain(text), 0, text.len()).expect("a value")
}

/// The reply walked without and with the index: both must agree.
fn docs(text: &str) -> [Doc<'_>; 2] {
    let start = text.find(['{', '[']).expect("a container");
    [Doc::plain(text), Doc::indexed(text, start)]
}

#[test]
fn members_and_items_carry_spans() {
    let text = r#" {"a": [1, {"b": "x\"}"}], "c\u0041": null, "d": "é"} "#;
    for d in docs(text) {
        let doc = value_at(&d, 0, text.len()).expect("a value");
        assert!(doc.complete);
        let keys: Vec<String> = doc.members(&d).map(|m| m.key.into_owned()).collect();
        assert_eq!(keys, vec!["a", "cA", "d"]);
        let a = doc.get(&d, "a").expect("a");
        let items: Vec<&str> = a.items(&d).map(|n| n.slice(text)).collect();
        assert_eq!(items, vec!["1", r#"{"b": "x\"}"}"#]);
        assert_eq!(doc.get_string(&d, "d").as_deref(), Some("é"));
        assert_eq!(doc.get(&d, "cA").map(|n| n.slice(text)), Some("null"));
    }
}

#[test]
fn a_cut_off_document_yields_what_is_complete() {
    let text = r#"{"list": [{"x": 1}, {"y": 2}, {"z": "#;
    for d in docs(text) {
        let doc = value_at(&d, 0, text.len()).expect("a value");
        assert!(!doc.complete);
        let list = doc.get(&d, "list").expect("list");
        assert!(!list.complete);
        let items: Vec<(bool, &str)> = list
            .items(&d)
            .map(|n| (n.complete, n.slice(text)))
            .collect();
        assert_eq!(
            items,
            vec![
                (true, r#"{"x": 1}"#),
                (true, r#"{"y": 2}"#),
                (false, r#"{"z": "#)
            ]
        );
        assert_eq!(integrity(text, doc), Integrity::CutOff);
    }
}

#[test]
fn documents_are_found_after_prose_and_in_fences() {
    let text = "See [1] and {x}.\n```json\n{\"k\": 1}\n```\nthen {\"k\": 2} done";
    let found = find_documents(text, 8, |t, n| n.has(t, "k"));
    let slices: Vec<&str> = found.documents.iter().map(|n| n.slice(text)).collect();
    assert_eq!(slices, vec!["{\"k\": 1}", "{\"k\": 2}"]);
    assert_eq!(
        found.content(text, vec!["one".into()]),
        "See [1] and {x}.\n\none\n\nthen\n\ndone"
    );
    assert!(find_documents("a { b", 1, |_, _| false)
        .documents
        .is_empty());
    let thinking = "<think>{\"k\": 0}</think>{\"k\": 1} <thinking>x";
    let found = find_documents(thinking, 8, |t, n| n.has(t, "k"));
    assert_eq!(found.documents.len(), 1);
    assert_eq!(found.documents[0].slice(thinking), "{\"k\": 1}");
    assert_eq!(found.content(thinking, vec![]), "");
}

#[test]
fn positions_in_decoded_strings_map_back_across_escapes() {
    // Decoded: {"q": "a"b}  — the error is at the `b` after the inner quote.
    let literal = r#""{\"q\": \"a\"b}""#;
    let decoded: String = serde_json::from_str(literal).expect("string");
    let at = decoded.find('b').expect("b");
    assert_eq!(&literal[literal_offset(literal, at)..][..1], "b");
    let unicode = r#""\u00e9\ud83d\ude00é!""#;
    let decoded: String = serde_json::from_str(unicode).expect("string");
    let at = decoded.find('!').expect("!");
    assert_eq!(&unicode[literal_offset(unicode, at)..][..1], "!");
}

#[test]
fn whole_replies() {
    let fenced = "```json\n{\"a\": 1}\n```\n";
    let start = fenced.find('{').expect("brace");
    let node = value_at(&Doc::plain(fenced), start, fenced.len()).expect("node");
    assert!(is_whole_reply(fenced, node));
    let tagged = "<x>{\"a\": 1}</x>";
    let node = value_at(&Doc::plain(tagged), 3, tagged.len()).expect("node");
    assert!(!is_whole_reply(tagged, node));
}

#[test]
fn broken_documents_point_at_the_byte() {
    let text = "{\"a\": 1,, \"b\": 2}";
    match integrity(text, root(text)) {
        Integrity::Broken { at, .. } => assert_eq!(&text[at..at + 1], ","),
        other => panic!("expected broken, got {other:?}"),
    }
}

#[test]
fn generated_ids_are_recognised() {
    assert!(is_generated_id(&crate::request::new_request_id()));
    assert!(!is_generated_id("call_abc"));
    assert!(!is_generated_id("toolu_01"));
}
