//! Soak: 10,000 mixed runs in parallel batches through the real executor and the real history
//! file, as the app records them (one entry per run, appended as each run ends), plus one
//! parsed reply per batch through the cycle. Successes, tool errors, transport errors,
//! validation failures, unknown tools, denials, panics, hangs and sleeps past a short timeout,
//! cancellations before and during a call, outputs of up to 50 MB.
//!
//! Asserted: every run ends with the classification its kind calls for, the engine still
//! answers afterwards, no abandoned call is left alive, memory stays bounded (resident set read
//! from `/proc/self/status`), and the history holds exactly one complete entry per run, equal to
//! the result the caller got. The figures are printed (`--nocapture`).

mod support;

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use futures_util::future::join_all;
use serde_json::{json, Value};
use support::fault_tool::{memory_kib, FaultTool};
use support::registry_with_faults;
use tokio_util::sync::CancellationToken;
use toolscope_engine::cycle::{run_cycle, CycleOptions};
use toolscope_engine::executor::{Executor, ExecutorOptions, OversizePolicy};
use toolscope_engine::history::{History, HistoryEntry, RecordedRequest};
use toolscope_engine::Registry;
use toolscope_protocol::request::ParsedToolRequest;
use toolscope_protocol::result::{ErrorKind, ToolExecutionResult};
use toolscope_protocol::ProtocolSet;

const RUNS: usize = 10_000;
const BATCH: usize = 250;
/// Calls per cycle reply (one reply per batch, counted in `RUNS`).
const CYCLE_CALLS: usize = 4;
const CAP: usize = 64 * 1024;
/// Generous bounds: a leak of the capped outputs alone would be 50 × 50 MB.
const PEAK_GROWTH_LIMIT_MIB: u64 = 768;
const END_GROWTH_LIMIT_MIB: u64 = 256;

/// Each run's kind decides its request, the executor it goes to and the outcome it must have.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Kind {
    Ok,
    Echo,
    InvalidArgs,
    UnknownTool,
    ToolError,
    Transport,
    Panic,
    Hang,
    SleepPast,
    CancelledBefore,
    CancelledDuring,
    Denied,
    Large,
    Flood50Mb,
    TooLarge,
}

fn kind_of(i: usize) -> Kind {
    match i % 20 {
        0..=4 => Kind::Ok,
        5 => Kind::Echo,
        6 => Kind::InvalidArgs,
        7 => Kind::UnknownTool,
        8 => Kind::ToolError,
        9 => Kind::Transport,
        10 => Kind::Panic,
        11 => Kind::Hang,
        12 => Kind::SleepPast,
        13 => Kind::CancelledBefore,
        14 => Kind::CancelledDuring,
        15 => Kind::Denied,
        16 | 17 if i % 200 == 17 => Kind::Flood50Mb,
        16 | 17 => Kind::Large,
        _ => Kind::TooLarge,
    }
}

impl Kind {
    fn request(self, i: usize) -> ParsedToolRequest {
        let (name, args) = match self {
            Kind::Ok => (
                "calculator_evaluate",
                json!({"expression": format!("{i} + 1")}),
            ),
            Kind::Echo => ("echo_echo", json!({"message": format!("héllo {i}")})),
            Kind::InvalidArgs => ("calculator_evaluate", json!({"expression": i})),
            Kind::UnknownTool => ("nothing_here", json!({})),
            Kind::ToolError => ("devtools_fail", json!({"message": format!("fail {i}")})),
            Kind::Transport => ("devtools_fail", json!({"kind": "transport"})),
            Kind::Panic => ("fault_panic", json!({})),
            Kind::Hang | Kind::CancelledDuring => ("fault_hang", json!({})),
            Kind::SleepPast => ("fault_sleep-past", json!({"ms": 60_000})),
            Kind::CancelledBefore => ("echo_echo", json!({"message": "never"})),
            Kind::Denied => ("workspace_delete", json!({"path": "x"})),
            Kind::Large => ("devtools_generate", json!({"bytes": 200_000 + i})),
            Kind::Flood50Mb => ("devtools_generate", json!({"bytes": 50_000_000})),
            Kind::TooLarge => ("fault_flood-json", json!({"bytes": 100_000})),
        };
        let Value::Object(args) = args else {
            unreachable!("every request above has an object of arguments")
        };
        ParsedToolRequest::manual(name, args)
    }

    /// `None` for success.
    fn expected(self) -> Option<ErrorKind> {
        match self {
            Kind::Ok | Kind::Echo | Kind::Large | Kind::Flood50Mb => None,
            Kind::InvalidArgs => Some(ErrorKind::InvalidArgs),
            Kind::UnknownTool => Some(ErrorKind::ToolNotFound),
            Kind::ToolError | Kind::Panic => Some(ErrorKind::ToolError),
            Kind::Transport => Some(ErrorKind::Transport),
            Kind::Hang | Kind::SleepPast => Some(ErrorKind::Timeout),
            Kind::CancelledBefore | Kind::CancelledDuring => Some(ErrorKind::Cancelled),
            Kind::Denied => Some(ErrorKind::Denied),
            Kind::TooLarge => Some(ErrorKind::OutputTooLarge),
        }
    }
}

struct Engines {
    /// Everything that should not time out.
    patient: Executor,
    /// Hangs and sleeps past the timeout.
    impatient: Executor,
    /// Refuses oversized output instead of truncating it.
    strict: Executor,
}

fn engines(registry: &Arc<Registry>) -> Engines {
    let options = |timeout: Duration, oversize: OversizePolicy| ExecutorOptions {
        timeout,
        max_output_bytes: CAP,
        oversize,
        ..ExecutorOptions::default()
    };
    let make = |o| Executor::new(Arc::clone(registry), o);
    Engines {
        patient: make(options(Duration::from_secs(600), OversizePolicy::Truncate)),
        impatient: make(options(Duration::from_millis(20), OversizePolicy::Truncate)),
        strict: make(options(Duration::from_secs(600), OversizePolicy::Fail)),
    }
}

/// Runs one request the way its kind calls for, then records it as the app does.
async fn run_one(
    kind: Kind,
    request: &ParsedToolRequest,
    engines: &Engines,
    fault: &FaultTool,
    history: &History,
) -> ToolExecutionResult {
    let cancel = CancellationToken::new();
    let result = match kind {
        Kind::Hang | Kind::SleepPast => engines.impatient.execute(request, &cancel).await,
        Kind::TooLarge => engines.strict.execute(request, &cancel).await,
        Kind::CancelledBefore => {
            cancel.cancel();
            engines.patient.execute(request, &cancel).await
        }
        Kind::CancelledDuring => {
            let (result, ()) = tokio::join!(engines.patient.execute(request, &cancel), async {
                fault.hang_started(&request.request_id).await;
                cancel.cancel();
            });
            result
        }
        _ => engines.patient.execute(request, &cancel).await,
    };
    let entry = HistoryEntry::new(None, "soak", RecordedRequest::from(request), result.clone());
    history.append(&entry).expect("history append");
    result
}

/// A JSON_Strict reply with a success, a failure, a panic and an invalid call, through the
/// cycle (parse → execute → record). Returns the request ids it ran with their kinds.
async fn run_cycle_batch(
    batch: usize,
    protocols: &ProtocolSet,
    engines: &Engines,
    history: &History,
) -> Vec<(String, Kind, ToolExecutionResult)> {
    let reply = format!(
        r#"Let me check. {{"tool_calls": [
            {{"name": "calculator_evaluate", "arguments": {{"expression": "{batch} * 2"}}}},
            {{"name": "devtools_fail", "arguments": {{}}}},
            {{"name": "fault_panic", "arguments": {{}}}},
            {{"name": "calculator_evaluate", "arguments": {{"expression": false}}}}
        ]}}"#
    );
    let options = CycleOptions {
        format: Some("json_strict"),
        origin: "soak-cycle",
        ..CycleOptions::default()
    };
    let outcome = run_cycle(
        &reply,
        &options,
        protocols,
        &engines.patient,
        Some(history),
        &CancellationToken::new(),
    )
    .await
    .expect("json_strict is a known format");
    assert!(outcome.history_errors.is_empty(), "{outcome:?}");
    assert_eq!(outcome.results.len(), CYCLE_CALLS, "{:?}", outcome.parse);
    let kinds = [Kind::Ok, Kind::ToolError, Kind::Panic, Kind::InvalidArgs];
    outcome
        .results
        .into_iter()
        .zip(kinds)
        .map(|(result, kind)| (result.request_id.clone(), kind, result))
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn ten_thousand_mixed_runs_end_classified_and_recorded_once() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (registry, fault) = registry_with_faults(dir.path());
    let engines = engines(&registry);
    let protocols = ProtocolSet::standard();
    let path = dir.path().join("history.jsonl");
    let (history, report) = History::open(&path).expect("history");
    assert_eq!(report.torn_tail, None);

    let (rss_start, _) = memory_kib();
    let started = Instant::now();
    // Request id → (kind, result the caller got).
    let outcomes: Mutex<HashMap<String, (Kind, ToolExecutionResult)>> = Mutex::default();
    let mut issued = 0usize;
    let mut batch_no = 0usize;
    while issued < RUNS {
        let singles = BATCH.min(RUNS - issued).saturating_sub(CYCLE_CALLS);
        let requests: Vec<(Kind, ParsedToolRequest)> = (issued..issued + singles)
            .map(|i| (kind_of(i), kind_of(i).request(i)))
            .collect();
        let record = |id: String, kind: Kind, result: ToolExecutionResult| {
            let previous = outcomes
                .lock()
                .expect("outcomes")
                .insert(id.clone(), (kind, result));
            assert!(previous.is_none(), "request id {id} ran twice");
        };
        let singles_done = join_all(requests.iter().map(|(kind, request)| async {
            let result = run_one(*kind, request, &engines, &fault, &history).await;
            record(request.request_id.clone(), *kind, result);
        }));
        let (_, cycle) = tokio::join!(
            singles_done,
            run_cycle_batch(batch_no, &protocols, &engines, &history)
        );
        for (id, kind, result) in cycle {
            record(id, kind, result);
        }
        issued += singles + CYCLE_CALLS;
        batch_no += 1;
    }
    let wall = started.elapsed();
    let (rss_after_runs, _) = memory_kib();

    // The engine is still fine, and nothing it gave up on is still running.
    let after = engines
        .patient
        .execute(&Kind::Ok.request(1), &CancellationToken::new())
        .await;
    assert!(after.result.contains(r#""value":2"#), "{after:?}");
    tokio::time::timeout(Duration::from_secs(60), fault.liveness.all_dropped())
        .await
        .unwrap_or_else(|_| panic!("{} abandoned calls still alive", fault.liveness.live()));

    // Every run ended with the classification its kind calls for.
    let outcomes = outcomes.into_inner().expect("outcomes");
    assert_eq!(outcomes.len(), RUNS);
    let mut per_kind: BTreeMap<Kind, usize> = BTreeMap::new();
    for (id, (kind, result)) in &outcomes {
        assert_eq!(&result.request_id, id);
        assert_eq!(result.error_kind(), kind.expected(), "{kind:?}: {result:?}");
        if matches!(kind, Kind::Large | Kind::Flood50Mb) {
            assert!(result.truncated.is_some() && result.result.len() < CAP + 100);
        }
        *per_kind.entry(*kind).or_default() += 1;
    }

    // The history holds exactly one complete entry per run, equal to what the caller got.
    let loaded = History::load(&path).expect("load history");
    assert!(loaded.skipped.is_empty(), "{:?}", loaded.skipped);
    let mut seen: HashMap<&str, usize> = HashMap::new();
    for entry in &loaded.entries {
        *seen.entry(entry.request.request_id.as_str()).or_default() += 1;
        let (_, result) = outcomes
            .get(&entry.request.request_id)
            .unwrap_or_else(|| panic!("entry for an unknown run: {entry:?}"));
        assert_eq!(&entry.result, result, "recorded result differs");
    }
    let lost = outcomes
        .keys()
        .filter(|id| !seen.contains_key(id.as_str()))
        .count();
    let duplicated = seen.values().filter(|&&n| n > 1).count();
    assert_eq!((lost, duplicated), (0, 0), "lost and duplicated entries");
    assert_eq!(loaded.entries.len(), RUNS);

    drop(outcomes);
    drop(loaded);
    let (rss_end, rss_peak) = memory_kib();
    let mib = |kib: u64| kib / 1024;
    println!(
        "soak: {RUNS} runs in {batch_no} batches of {BATCH} (incl. {batch_no} cycle replies) in {wall:.2?}; \
         RSS start {} MiB, after runs {} MiB, peak {} MiB, end {} MiB; \
         history: {} entries, {lost} lost, {duplicated} duplicated; per kind: {per_kind:?}",
        mib(rss_start),
        mib(rss_after_runs),
        mib(rss_peak),
        mib(rss_end),
        RUNS - lost,
    );
    assert!(
        mib(rss_peak.saturating_sub(rss_start)) < PEAK_GROWTH_LIMIT_MIB,
        "peak RSS grew by {} MiB",
        mib(rss_peak.saturating_sub(rss_start))
    );
    assert!(
        mib(rss_end.saturating_sub(rss_start)) < END_GROWTH_LIMIT_MIB,
        "RSS grew by {} MiB",
        mib(rss_end.saturating_sub(rss_start))
    );
}
