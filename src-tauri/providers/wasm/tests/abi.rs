//! Seed 002's ABI, case by case, through the executor as the app runs it: success, the ENOSPC
//! retry and its bound, error codes with messages, and every way a hostile module can break
//! the ABI or the sandbox, each classified with the host alive and the next call fine.

mod support;

use std::time::{Duration, Instant};

use serde_json::json;
use support::{executor, load, manifest, module, run, tool_dir, ECHO};
use toolscope_protocol::result::ErrorKind;

/// Loads one tool `t` with `methods` (name → export) over `body`, plus `echo`.
fn tool(
    body: &str,
    methods: &[(&str, &str)],
    extra: &str,
) -> (tempfile::TempDir, toolscope_engine::executor::Executor) {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut all = vec![("echo", "echo")];
    all.extend_from_slice(methods);
    let wat = module(&format!("{ECHO}{body}"));
    tool_dir(dir.path(), "t", &manifest("t", &all, extra), &wat);
    let (registry, _set) = load(dir.path());
    let executor = executor(&registry, Duration::from_millis(500));
    (dir, executor)
}

/// Asserts the tool still answers after a hostile call.
async fn still_alive(executor: &toolscope_engine::executor::Executor) {
    let echoed = run(executor, "t_echo", json!({"alive": true})).await;
    assert!(echoed.is_success(), "{echoed:?}");
    assert_eq!(echoed.result, r#"{"alive":true}"#);
}

/// Calls each method of `cases` with `{}` and asserts it fails as `kind` with the given text in
/// its result, then that the tool still answers.
async fn each_fails(
    executor: &toolscope_engine::executor::Executor,
    kind: ErrorKind,
    cases: &[(&str, &str)],
) {
    for (name, expected) in cases {
        let result = run(executor, name, json!({})).await;
        assert_eq!(result.error_kind(), Some(kind), "{name}: {result:?}");
        assert!(
            result.result.contains(expected),
            "{name}: {}",
            result.result
        );
    }
    still_alive(executor).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_result_comes_back_as_json_and_a_large_one_after_one_retry() {
    let (_dir, executor) = tool("", &[], "");
    still_alive(&executor).await;
    // 10 000 bytes of arguments: more than the first 4096-byte buffer, so one ENOSPC round.
    let long = "x".repeat(10_000);
    let result = run(&executor, "t_echo", json!({"text": long})).await;
    assert!(result.is_success(), "{result:?}");
    assert_eq!(result.result.len(), 10_000 + r#"{"text":""}"#.len());
}

#[tokio::test(flavor = "multi_thread")]
async fn a_result_past_max_output_bytes_is_output_too_large() {
    let (_dir, executor) = tool("", &[], "[limits]\nmax_output_bytes = 100");
    let result = run(&executor, "t_echo", json!({"text": "y".repeat(200)})).await;
    assert_eq!(
        result.error_kind(),
        Some(ErrorKind::OutputTooLarge),
        "{result:?}"
    );
    assert!(
        result.result.contains("max_output_bytes of 100"),
        "{}",
        result.result
    );
    still_alive(&executor).await;
}

/// Always asks for one byte more than it was given: the retry bound must end it.
const GREEDY: &str = r#"
  (func (export "greedy") (param i32 i32 i32) (param $l i32) (result i32)
    (i32.store (local.get $l) (i32.add (i32.load (local.get $l)) (i32.const 1)))
    (i32.const -28))
"#;

#[tokio::test(flavor = "multi_thread")]
async fn a_module_that_always_wants_more_stops_after_two_retries() {
    let (_dir, executor) = tool(GREEDY, &[("greedy", "greedy")], "");
    let result = run(&executor, "t_greedy", json!({})).await;
    assert_eq!(
        result.error_kind(),
        Some(ErrorKind::ToolError),
        "{result:?}"
    );
    assert!(
        result.result.contains("after 2 retries"),
        "{}",
        result.result
    );
    still_alive(&executor).await;
}

/// Returns ENOSPC while claiming to need no more than it had, and success with a length past
/// its buffer.
const LIARS: &str = r#"
  (func (export "small_enospc") (param i32 i32 i32) (param $l i32) (result i32)
    (i32.store (local.get $l) (i32.const 10))
    (i32.const -28))
  (func (export "long_ok") (param i32 i32 i32) (param $l i32) (result i32)
    (i32.store (local.get $l) (i32.add (i32.load (local.get $l)) (i32.const 1)))
    (i32.const 0))
  (func (export "huge_ok") (param i32 i32 i32) (param $l i32) (result i32)
    (i32.store (local.get $l) (i32.const -1))
    (i32.const 0))
"#;

#[tokio::test(flavor = "multi_thread")]
async fn lying_lengths_are_errors_not_crashes() {
    let methods = [
        ("smallenospc", "small_enospc"),
        ("longok", "long_ok"),
        ("hugeok", "huge_ok"),
    ];
    let (_dir, executor) = tool(LIARS, &methods, "");
    let cases = [
        ("t_smallenospc", "asks for 10 bytes, no more than the 4096"),
        ("t_longok", "says it wrote 4097 bytes into a buffer of 4096"),
        ("t_hugeok", "says it wrote 4294967295 bytes"),
    ];
    each_fails(&executor, ErrorKind::ToolError, &cases).await;
}

/// Writes bytes that are not UTF-8.
const NOT_UTF8: &str = r#"
  (func (export "bytes") (param i32 i32) (param $o i32) (param $l i32) (result i32)
    (i32.store8 (local.get $o) (i32.const 0x7b))
    (i32.store8 (i32.add (local.get $o) (i32.const 1)) (i32.const 0xff))
    (i32.store (local.get $l) (i32.const 2))
    (i32.const 0))
"#;

#[tokio::test(flavor = "multi_thread")]
async fn invalid_utf8_output_is_refused() {
    let (_dir, executor) = tool(NOT_UTF8, &[("bytes", "bytes")], "");
    let cases = [("t_bytes", "not UTF-8 text (invalid byte at offset 1)")];
    each_fails(&executor, ErrorKind::ToolError, &cases).await;
}

/// Fails with EINVAL and a message; returns a positive code; writes its length cell out of
/// bounds by returning a pointer past memory from alloc is covered by `bad_alloc`.
const CODES: &str = r#"
  (data (i32.const 16) "bad pattern")
  (func (export "einval") (param i32 i32) (param $o i32) (param $l i32) (result i32)
    (memory.copy (local.get $o) (i32.const 16) (i32.const 11))
    (i32.store (local.get $l) (i32.const 11))
    (i32.const -22))
  (func (export "silent") (param i32 i32 i32) (param $l i32) (result i32)
    (i32.store (local.get $l) (i32.const 0))
    (i32.const -7))
  (func (export "positive") (param i32 i32 i32 i32) (result i32) (i32.const 3))
"#;

#[tokio::test(flavor = "multi_thread")]
async fn error_codes_carry_their_name_and_message() {
    let methods = [
        ("einval", "einval"),
        ("silent", "silent"),
        ("positive", "positive"),
    ];
    let (_dir, executor) = tool(CODES, &methods, "");
    let cases = [
        ("t_einval", "the tool failed with -22 (EINVAL): bad pattern"),
        ("t_silent", "the tool failed with -7 (E2BIG)"),
        ("t_positive", "returned 3; the ABI defines only 0"),
    ];
    each_fails(&executor, ErrorKind::ToolError, &cases).await;
}

const TRAP: &str = r#"
  (func (export "boom") (param i32 i32 i32 i32) (result i32) (unreachable))
  (func (export "oob") (param i32 i32 i32 i32) (result i32)
    (i32.load (i32.const 0x7ffffff0)))
"#;

#[tokio::test(flavor = "multi_thread")]
async fn a_trap_is_a_tool_error_with_the_trap_message() {
    let (_dir, executor) = tool(TRAP, &[("boom", "boom"), ("oob", "oob")], "");
    let boom = run(&executor, "t_boom", json!({})).await;
    assert!(boom.result.contains("trapped"), "{}", boom.result);
    let cases = [("t_boom", "unreachable"), ("t_oob", "out of bounds")];
    each_fails(&executor, ErrorKind::ToolError, &cases).await;
}

const SPIN: &str = r#"
  (func (export "spin") (param i32 i32 i32 i32) (result i32)
    (loop $forever (br $forever))
    (i32.const 0))
"#;

#[tokio::test(flavor = "multi_thread")]
async fn an_infinite_loop_ends_at_the_executor_timeout_and_is_stopped() {
    let (_dir, executor) = tool(SPIN, &[("spin", "spin")], "");
    let started = Instant::now();
    let result = run(&executor, "t_spin", json!({})).await;
    assert_eq!(result.error_kind(), Some(ErrorKind::Timeout), "{result:?}");
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
    // The abandoned module is interrupted (its blocking thread is freed), so many more
    // runaway calls do not pile up; and the tool keeps working.
    for _ in 0..4 {
        let again = run(&executor, "t_spin", json!({})).await;
        assert_eq!(again.error_kind(), Some(ErrorKind::Timeout));
    }
    still_alive(&executor).await;
}

const BOMB: &str = r#"
  (func (export "bomb") (param i32 i32 i32 i32) (result i32)
    (loop $more
      (br_if $more (i32.ne (memory.grow (i32.const 16)) (i32.const -1))))
    (i32.const 0))
"#;

#[tokio::test(flavor = "multi_thread")]
async fn a_memory_bomb_hits_the_cap_and_is_memory_limit() {
    let (_dir, executor) = tool(BOMB, &[("bomb", "bomb")], "[limits]\nmax_memory_mib = 8");
    let result = run(&executor, "t_bomb", json!({})).await;
    assert_eq!(
        result.error_kind(),
        Some(ErrorKind::MemoryLimit),
        "{result:?}"
    );
    assert!(
        result.result.contains("memory cap of 8 MiB"),
        "{}",
        result.result
    );
    still_alive(&executor).await;
}

/// An allocator that hands out a pointer past the end of memory, and one that fails.
const BAD_ALLOC: &str = r#"
(module
  (memory (export "memory") 1)
  (func (export "alloc") (param i32) (result i32) (i32.const 65530))
  (func (export "call") (param i32 i32 i32 i32) (result i32) (i32.const 0)))
"#;

#[tokio::test(flavor = "multi_thread")]
async fn an_allocator_returning_memory_it_does_not_have_is_an_error() {
    let dir = tempfile::tempdir().expect("temp dir");
    tool_dir(
        dir.path(),
        "t",
        &manifest("t", &[("call", "call")], ""),
        BAD_ALLOC,
    );
    let (registry, _set) = load(dir.path());
    let executor = executor(&registry, Duration::from_secs(2));
    let result = run(&executor, "t_call", json!({"a": "b".repeat(100)})).await;
    assert_eq!(
        result.error_kind(),
        Some(ErrorKind::ToolError),
        "{result:?}"
    );
    assert!(
        result.result.contains("outside the module's memory"),
        "{}",
        result.result
    );
}

/// Counts calls in a global: a fresh instance per call means it is always 1.
const COUNTER: &str = r#"
  (global $calls (mut i32) (i32.const 0))
  (func (export "count") (param i32 i32) (param $o i32) (param $l i32) (result i32)
    (global.set $calls (i32.add (global.get $calls) (i32.const 1)))
    (i32.store8 (local.get $o) (i32.add (i32.const 48) (global.get $calls)))
    (i32.store (local.get $l) (i32.const 1))
    (i32.const 0))
"#;

#[tokio::test(flavor = "multi_thread")]
async fn no_state_leaks_between_calls() {
    let (_dir, executor) = tool(COUNTER, &[("count", "count")], "");
    for _ in 0..3 {
        let result = run(&executor, "t_count", json!({})).await;
        assert_eq!(result.result, "1", "{result:?}");
    }
}

/// Seed 002 registers a tool by its function table index rather than an export name.
const TABLE: &str = r#"
(module
  (memory (export "memory") 1)
  (global $heap (mut i32) (i32.const 1024))
  (table (export "__indirect_function_table") 2 funcref)
  (elem (i32.const 1) $answer)
  (func (export "alloc") (param $size i32) (result i32)
    (local $ptr i32)
    (local.set $ptr (global.get $heap))
    (global.set $heap (i32.add (global.get $heap) (i32.and (i32.add (local.get $size) (i32.const 7)) (i32.const -8))))
    (local.get $ptr))
  (data (i32.const 16) "42")
  (func $answer (param i32 i32) (param $o i32) (param $l i32) (result i32)
    (memory.copy (local.get $o) (i32.const 16) (i32.const 2))
    (i32.store (local.get $l) (i32.const 2))
    (i32.const 0)))
"#;

#[tokio::test(flavor = "multi_thread")]
async fn a_method_can_be_a_function_table_entry() {
    let dir = tempfile::tempdir().expect("temp dir");
    let text = "id = \"t\"\nmodule = \"tool.wasm\"\n\n[[methods]]\nname = \"answer\"\ntable_index = 1\nannotations = { read_only = true }\n\n[[methods]]\nname = \"empty\"\ntable_index = 0\nannotations = { read_only = true }\n";
    tool_dir(dir.path(), "t", text, TABLE);
    let (registry, _set) = load(dir.path());
    let executor = executor(&registry, Duration::from_secs(2));
    let answer = run(&executor, "t_answer", json!({})).await;
    assert_eq!(answer.result, "42", "{answer:?}");
    let empty = run(&executor, "t_empty", json!({})).await;
    assert_eq!(empty.error_kind(), Some(ErrorKind::ToolError), "{empty:?}");
    assert!(
        empty.result.contains("table entry 0 holds no function"),
        "{}",
        empty.result
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn concurrent_calls_each_get_their_own_instance() {
    let (_dir, executor) = tool("", &[], "");
    let executor = std::sync::Arc::new(executor);
    let calls = (0..32).map(|i| {
        let executor = std::sync::Arc::clone(&executor);
        tokio::spawn(async move { (i, run(&executor, "t_echo", json!({"i": i})).await) })
    });
    for call in calls {
        let (i, result) = call.await.expect("the call task ends");
        assert_eq!(result.result, format!(r#"{{"i":{i}}}"#), "{result:?}");
    }
}
