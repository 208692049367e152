//! Sending a request again when the endpoint says "not now": a bounded, visible, cancellable
//! wait before the stream starts.
//!
//! Rate limits (429) and overloads that name their end (503 with `retry-after`) usually pass
//! within seconds, and a person debugging tool calls should not have to press "send" again for
//! them. A retry is only made before any byte of the reply arrived, so nothing is shown twice.
//! The wait is the endpoint's own (`retry-after` in seconds or as a date, or Gemini's
//! `retryDelay` in the body), else 1 s, 2 s, 4 s, ...; at most [`Endpoint::max_retries`]
//! retries are made, and a wait longer than [`MAX_RETRY_WAIT`] is not waited at all (a quota
//! that resets in an hour is reported, not slept on). Each retry is told to the caller as a
//! [`RetryNotice`] before its wait begins, so the Agent pane can show "rate limited, retry 1 of
//! 2 in 4 s"; cancelling ends the wait at once.

use std::time::{Duration, SystemTime};

use serde::Serialize;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use super::{authorize, read_limited, ClientError, Endpoint};
use crate::status::{classify, parse_retry_after, EndpointError};

/// The longest wait this client sits through before a retry.
pub const MAX_RETRY_WAIT: Duration = Duration::from_secs(60);

/// A retry about to be made: told to the caller before the wait starts.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RetryNotice {
    /// Which retry this is, from 1.
    pub attempt: u32,
    /// How many retries the endpoint allows ([`Endpoint::max_retries`]).
    pub of: u32,
    /// How long the client waits before sending again.
    pub wait: Duration,
    /// The refusal that caused it, in words (`rate limited (HTTP 429), retry after 2 s: …`).
    pub reason: String,
}

/// Sends the request until the endpoint accepts it, a refusal is final, the retries run out or
/// the caller cancels; returns the accepted response, its stream not yet read.
pub(super) async fn open(
    client: &reqwest::Client,
    endpoint: &Endpoint,
    url: &str,
    body: &Value,
    cancel: &CancellationToken,
    on_retry: &mut impl FnMut(&RetryNotice),
) -> Result<reqwest::Response, ClientError> {
    let mut retries = 0;
    loop {
        let request = authorize(client.post(url).json(body), endpoint);
        let response = tokio::select! {
            response = request.send() => response.map_err(|e| ClientError::Transport {
                url: url.to_owned(),
                message: e.to_string(),
            })?,
            () = cancel.cancelled() => return Err(ClientError::Cancelled { partial: Box::default() }),
        };
        let status = response.status().as_u16();
        if response.status().is_success() {
            return Ok(response);
        }
        let header = response
            .headers()
            .get(reqwest::header::RETRY_AFTER)
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned);
        let text = read_limited(response).await;
        let error = classify(status, header.as_deref(), &text, &endpoint.model);
        let wait = match &error {
            EndpointError::RateLimited { retry_after, .. } => Some(*retry_after),
            // An overload is retried only when the endpoint says when it ends.
            _ if status == 503 => header
                .as_deref()
                .and_then(|value| parse_retry_after(value, SystemTime::now()))
                .map(Some),
            _ => None,
        };
        let Some(asked) = wait else {
            return Err(error.into());
        };
        let (wait, reason) = plan(asked, retries, endpoint.max_retries, error)?;
        retries += 1;
        on_retry(&RetryNotice {
            attempt: retries,
            of: endpoint.max_retries,
            wait,
            reason,
        });
        tokio::select! {
            () = tokio::time::sleep(wait) => {}
            () = cancel.cancelled() => return Err(ClientError::Cancelled { partial: Box::default() }),
        }
    }
}

/// The wait before the next retry and the reason to show, or the error that ends the tries.
/// `asked` is the endpoint's own wait, if it named one; `retries` were made already.
fn plan(
    asked: Option<Duration>,
    retries: u32,
    max_retries: u32,
    error: EndpointError,
) -> Result<(Duration, String), ClientError> {
    let attempts = retries + 1;
    if let Some(asked) = asked.filter(|wait| *wait > MAX_RETRY_WAIT) {
        return Err(ClientError::GaveUp {
            attempts,
            refused_wait: Some(asked),
            last: error,
        });
    }
    if retries >= max_retries {
        // With retries turned off the refusal is the whole story.
        return Err(if max_retries == 0 {
            error.into()
        } else {
            ClientError::GaveUp {
                attempts,
                refused_wait: None,
                last: error,
            }
        });
    }
    let wait = asked.unwrap_or_else(|| backoff(retries));
    Ok((wait, error.to_string()))
}

/// 1 s, 2 s, 4 s, ... after the first, second, third refusal (capped so it never overflows).
fn backoff(retries: u32) -> Duration {
    Duration::from_secs(1 << retries.min(6))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn limited(retry_after: Option<Duration>) -> EndpointError {
        EndpointError::RateLimited {
            retry_after,
            message: "slow down".to_owned(),
        }
    }

    #[test]
    fn the_endpoints_wait_wins_else_the_backoff_doubles() {
        let asked = Some(Duration::from_secs(3));
        let (wait, reason) = plan(asked, 0, 2, limited(asked)).expect("retry");
        assert_eq!(wait, Duration::from_secs(3));
        assert_eq!(
            reason,
            "rate limited (HTTP 429), retry after 3 s: slow down"
        );
        let waits: Vec<_> = (0..3)
            .map(|n| plan(None, n, 5, limited(None)).expect("retry").0.as_secs())
            .collect();
        assert_eq!(waits, [1, 2, 4]);
    }

    #[test]
    fn retries_end_at_the_limit_or_at_a_wait_too_long() {
        let exhausted = plan(None, 2, 2, limited(None)).expect_err("no retries left");
        assert_eq!(
            exhausted.to_string(),
            "gave up after 3 attempt(s): rate limited (HTTP 429): slow down"
        );
        let off = plan(None, 0, 0, limited(None)).expect_err("retries off");
        assert!(matches!(off, ClientError::Refused(_)), "{off}");
        let hour = Some(Duration::from_secs(3600));
        let too_long = plan(hour, 0, 2, limited(hour)).expect_err("too long");
        assert_eq!(
            too_long.to_string(),
            "gave up after 1 attempt(s) (the endpoint asks to wait 3600 s, more than the 60 s \
             this client waits): rate limited (HTTP 429), retry after 3600 s: slow down"
        );
    }
}
