//! The limiter on tokio's paused clock: calls wait their turn in arrival order, one whose turn
//! comes after its deadline fails at once with the time to retry, and an abandoned waiter
//! leaves the queue for the calls behind it. Instants are virtual, so equalities are exact.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::time::Instant;

use super::*;

fn limiter(requests: u32, window_seconds: u64) -> Arc<RateLimiter> {
    let limit = RateLimit::new(requests, Duration::from_secs(window_seconds)).expect("valid");
    Arc::new(RateLimiter::new(limit))
}

/// Starts `acquire` in a task of its own (like the executor runs a call), recording its
/// index and when it got through.
fn spawn_call(
    limiter: &Arc<RateLimiter>,
    index: usize,
    deadline: Option<Instant>,
    log: &Arc<Mutex<Vec<(usize, Instant)>>>,
) -> tokio::task::JoinHandle<Result<(), NoSlot>> {
    let (limiter, log) = (Arc::clone(limiter), Arc::clone(log));
    tokio::spawn(async move {
        limiter.acquire(deadline).await?;
        log.lock().expect("log").push((index, Instant::now()));
        Ok(())
    })
}

/// Lets spawned tasks run until `limiter` has `waiting` calls queued.
async fn until_queued(limiter: &RateLimiter, waiting: usize) {
    while limiter.lock().waiting.len() != waiting {
        tokio::task::yield_now().await;
    }
}

#[test]
fn limits_are_checked_where_they_are_made() {
    assert!(RateLimit::new(0, Duration::from_secs(1)).is_none());
    assert!(RateLimit::new(1, Duration::from_millis(999)).is_none());
    assert!(RateLimit::new(1, Duration::from_secs(MAX_WINDOW_SECONDS + 1)).is_none());
    let limit = RateLimit::new(2, Duration::from_secs(10)).expect("valid");
    assert_eq!(limit.describe(), "2 requests per 10 s");
}

#[tokio::test(start_paused = true)]
async fn a_burst_waits_its_turn_and_the_call_past_its_deadline_fails_at_once() {
    let limiter = limiter(2, 10);
    let t0 = Instant::now();
    let deadline = Some(t0 + Duration::from_secs(15));
    let log = Arc::new(Mutex::new(Vec::new()));
    let mut calls = Vec::new();
    for index in 0..4 {
        calls.push(spawn_call(&limiter, index, deadline, &log));
        tokio::task::yield_now().await;
    }
    until_queued(&limiter, 2).await;
    // The fifth would start at t0 + 20 s, after its deadline: refused now, with that time.
    let refused = limiter.acquire(deadline).await;
    assert_eq!(
        refused,
        Err(NoSlot {
            retry_after: Duration::from_secs(20)
        })
    );
    assert_eq!(Instant::now(), t0, "refused without waiting");
    for call in calls {
        assert_eq!(call.await.expect("joined"), Ok(()));
    }
    let got: Vec<(usize, Duration)> = log
        .lock()
        .expect("log")
        .iter()
        .map(|&(i, at)| (i, at - t0))
        .collect();
    let ten = Duration::from_secs(10);
    assert_eq!(
        got,
        [(0, Duration::ZERO), (1, Duration::ZERO), (2, ten), (3, ten)]
    );
    assert!(limiter.lock().waiting.is_empty());
}

#[tokio::test(start_paused = true)]
async fn waiters_go_in_arrival_order_and_never_more_than_the_limit_per_window() {
    let limiter = limiter(3, 5);
    let t0 = Instant::now();
    let log = Arc::new(Mutex::new(Vec::new()));
    let mut calls = Vec::new();
    for index in 0..20 {
        calls.push(spawn_call(&limiter, index, None, &log));
        // Arrivals spread over time, some while others wait.
        if index % 4 == 0 {
            tokio::time::advance(Duration::from_millis(700)).await;
        }
        tokio::task::yield_now().await;
    }
    for call in calls {
        assert_eq!(call.await.expect("joined"), Ok(()));
    }
    let log = log.lock().expect("log").clone();
    let order: Vec<usize> = log.iter().map(|&(i, _)| i).collect();
    assert_eq!(order, (0..20).collect::<Vec<_>>());
    for pair in log.windows(4) {
        assert!(pair[3].1 - pair[0].1 >= Duration::from_secs(5), "{pair:?}");
    }
    // As early as allowed: the fourth starts exactly when the first leaves the window.
    assert_eq!(log[3].1, log[0].1 + Duration::from_secs(5));
    assert!(log[0].1 >= t0);
}

#[tokio::test(start_paused = true)]
async fn an_abandoned_waiter_leaves_the_queue_and_the_next_moves_up() {
    let limiter = limiter(1, 10);
    let t0 = Instant::now();
    let log = Arc::new(Mutex::new(Vec::new()));
    let first = spawn_call(&limiter, 0, None, &log);
    let second = spawn_call(&limiter, 1, None, &log);
    let third = spawn_call(&limiter, 2, None, &log);
    until_queued(&limiter, 2).await;
    tokio::time::advance(Duration::from_secs(1)).await;
    // What the executor does on a timeout or a cancel: the task is aborted mid-wait.
    second.abort();
    assert!(second.await.is_err_and(|e| e.is_cancelled()));
    assert_eq!(limiter.lock().waiting.len(), 1);
    // A newcomer with a deadline queues behind the third, whose turn is now t0 + 10 s.
    let late = limiter.acquire(Some(t0 + Duration::from_secs(15))).await;
    assert_eq!(
        late,
        Err(NoSlot {
            retry_after: Duration::from_secs(19)
        })
    );
    for call in [first, third] {
        assert_eq!(call.await.expect("joined"), Ok(()));
    }
    let got: Vec<(usize, Duration)> = log
        .lock()
        .expect("log")
        .iter()
        .map(|&(i, at)| (i, at - t0))
        .collect();
    assert_eq!(got, [(0, Duration::ZERO), (2, Duration::from_secs(10))]);
    assert!(limiter.lock().waiting.is_empty());
}
