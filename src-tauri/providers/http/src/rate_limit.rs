//! Seed 004's per-tool `rate_limit`: at most `requests` calls of a tool start within any
//! `window`, however many run at once.
//!
//! It exists because the APIs behind HTTP tools meter their callers, and a model in a loop (or
//! a parallel batch) can burst far past what an API allows; refusing or spacing calls here
//! keeps a run from being throttled or banned upstream. A call over the limit waits its turn
//! (first come, first served) as long as its turn comes before its deadline; when it would
//! come later, the call fails at once with the time it could start, rather than wait for a
//! timeout that is certain. A call that is abandoned while it waits (cancelled, timed out, its
//! task dropped) leaves the queue and the calls behind it move up.

use std::collections::VecDeque;
use std::sync::Mutex;
use std::time::Duration;

use tokio::sync::watch;
use tokio::time::Instant;

/// Longest window accepted (a day): the limiter remembers starts in memory only, so longer
/// quotas are the server's to enforce.
pub const MAX_WINDOW_SECONDS: u64 = 24 * 60 * 60;

/// A checked limit: `requests` ≥ 1, `window` from 1 s to [`MAX_WINDOW_SECONDS`] (so adding
/// it to a clock reading never overflows).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RateLimit {
    requests: u32,
    window: Duration,
}

impl RateLimit {
    /// `None` when `requests` is 0 or `window` is outside 1 s ..= [`MAX_WINDOW_SECONDS`].
    pub fn new(requests: u32, window: Duration) -> Option<Self> {
        let window_ok =
            Duration::from_secs(1) <= window && window <= Duration::from_secs(MAX_WINDOW_SECONDS);
        (requests > 0 && window_ok).then_some(Self { requests, window })
    }

    pub fn requests(&self) -> u32 {
        self.requests
    }

    pub fn window(&self) -> Duration {
        self.window
    }

    /// How the limit reads in messages: `2 requests per 10 s`.
    pub fn describe(&self) -> String {
        let plural = if self.requests == 1 { "" } else { "s" };
        format!(
            "{} request{plural} per {} s",
            self.requests,
            self.window.as_secs()
        )
    }
}

/// A call that cannot start before its deadline: `retry_after` is how long until it could.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("no free slot before the deadline; one frees up in {retry_after:?}")]
pub struct NoSlot {
    pub retry_after: Duration,
}

/// The queue and the recent starts of one tool's calls; shared by every call of the tool.
#[derive(Debug)]
pub struct RateLimiter {
    limit: RateLimit,
    state: Mutex<State>,
    /// Bumped whenever the queue changes, so waiters recompute their turn.
    changed: watch::Sender<()>,
}

#[derive(Debug, Default)]
struct State {
    /// When the calls granted within the last window started, oldest first.
    started: VecDeque<Instant>,
    /// Tickets of the waiting calls, first come first.
    waiting: VecDeque<u64>,
    next_ticket: u64,
}

/// What a waiter should do next.
enum Turn {
    Go,
    /// Its projected start; it may be now when a call ahead has yet to take its slot.
    WaitUntil(Instant),
}

impl RateLimiter {
    pub fn new(limit: RateLimit) -> Self {
        Self {
            limit,
            state: Mutex::new(State::default()),
            changed: watch::Sender::new(()),
        }
    }

    pub fn limit(&self) -> RateLimit {
        self.limit
    }

    /// Waits for a slot and takes it. Fails at once, without taking one, when the call's turn
    /// would come at or after `deadline`. Cancel-safe: dropping the future leaves the queue.
    pub async fn acquire(&self, deadline: Option<Instant>) -> Result<(), NoSlot> {
        let mut changes = self.changed.subscribe();
        let mut ticket = Ticket {
            limiter: self,
            id: self.lock().enqueue(),
            queued: true,
        };
        loop {
            let now = Instant::now();
            let turn = self.lock().turn(ticket.id, now, self.limit);
            match turn {
                Turn::Go => {
                    ticket.queued = false;
                    // The next in line may be able to go too (a limit above one).
                    self.changed.send_replace(());
                    return Ok(());
                }
                Turn::WaitUntil(at) if deadline.is_some_and(|d| at >= d) => {
                    return Err(NoSlot {
                        retry_after: at.saturating_duration_since(now),
                    });
                }
                Turn::WaitUntil(at) if at <= now => {
                    // A call ahead has its slot now but has not taken it yet.
                    let _ = changes.changed().await;
                }
                Turn::WaitUntil(at) => {
                    tokio::select! {
                        () = tokio::time::sleep_until(at) => {}
                        _ = changes.changed() => {}
                    }
                }
            }
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        // Nothing is left half-done under this lock, so a poisoned one is still consistent.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl State {
    fn enqueue(&mut self) -> u64 {
        let id = self.next_ticket;
        self.next_ticket += 1;
        self.waiting.push_back(id);
        id
    }

    /// The turn of `ticket`, taking the slot when it is first in line and a slot is free.
    fn turn(&mut self, ticket: u64, now: Instant, limit: RateLimit) -> Turn {
        while self
            .started
            .front()
            .is_some_and(|&start| start + limit.window <= now)
        {
            self.started.pop_front();
        }
        let position = match self.waiting.iter().position(|&t| t == ticket) {
            Some(position) => position,
            // Not reachable (only the ticket's owner removes it); requeue rather than guess.
            None => {
                self.waiting.push_back(ticket);
                self.waiting.len() - 1
            }
        };
        let at = self.projected_start(position, now, limit);
        if position == 0 && at <= now {
            self.waiting.pop_front();
            self.started.push_back(now);
            Turn::Go
        } else {
            Turn::WaitUntil(at)
        }
    }

    /// When the call at `position` in the queue can start if every call ahead of it starts
    /// as early as the limit allows: each start must leave fewer than `requests` others in
    /// the window before it.
    fn projected_start(&self, position: usize, now: Instant, limit: RateLimit) -> Instant {
        let requests = usize::try_from(limit.requests).unwrap_or(usize::MAX);
        let mut starts: Vec<Instant> = self.started.iter().copied().collect();
        let mut at = now;
        for _ in 0..=position {
            at = match starts.len().checked_sub(requests) {
                Some(index) => (starts[index] + limit.window).max(now),
                None => now,
            };
            starts.push(at);
        }
        at
    }
}

/// A place in the queue, given back when the waiting call is dropped or gives up.
struct Ticket<'a> {
    limiter: &'a RateLimiter,
    id: u64,
    queued: bool,
}

impl Drop for Ticket<'_> {
    fn drop(&mut self) {
        if self.queued {
            self.limiter.lock().waiting.retain(|&t| t != self.id);
            // The calls behind it may start sooner now.
            self.limiter.changed.send_replace(());
        }
    }
}

#[cfg(test)]
#[path = "rate_limit_tests.rs"]
mod tests;
