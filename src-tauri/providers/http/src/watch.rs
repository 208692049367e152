//! Watching a tool directory by polling: every interval the list of definition files with their
//! modification times and sizes is compared with the last one, and a change triggers a reload.
//!
//! Polling is portable and needs no extra crate; a directory of a few tool files costs one
//! `read_dir` and a `stat` per file per tick. The reports go out on a `tokio::sync::watch`
//! channel, so a UI sees the latest state without queueing every intermediate one.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use tokio::sync::watch;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use crate::toolset::{list_definition_files, HttpToolSet, ReloadReport};

/// Shortest polling interval accepted (shorter ones are raised to it).
pub const MIN_POLL_INTERVAL: Duration = Duration::from_millis(10);

/// What the poller compares: each file's path, modification time and size, or the kind of
/// error listing the directory gave.
type Fingerprint = Result<Vec<(PathBuf, Option<SystemTime>, u64)>, std::io::ErrorKind>;

fn fingerprint(directory: &Path) -> Fingerprint {
    let paths = list_definition_files(directory).map_err(|e| e.kind())?;
    Ok(paths
        .into_iter()
        .map(|path| {
            let meta = std::fs::metadata(&path).ok();
            let modified = meta.as_ref().and_then(|m| m.modified().ok());
            let size = meta.map_or(0, |m| m.len());
            (path, modified, size)
        })
        .collect())
}

/// A running watch; dropping it stops the polling.
#[derive(Debug)]
pub struct DirectoryWatch {
    stop: CancellationToken,
    reports: watch::Receiver<ReloadReport>,
    task: Option<JoinHandle<()>>,
}

impl DirectoryWatch {
    /// The latest reload's report; `changed()` wakes on every reload the watch runs.
    pub fn reports(&self) -> watch::Receiver<ReloadReport> {
        self.reports.clone()
    }

    /// Stops polling and waits for the task to end.
    pub async fn stop(mut self) {
        self.stop.cancel();
        if let Some(task) = self.task.take() {
            let _ = task.await;
        }
    }
}

impl Drop for DirectoryWatch {
    fn drop(&mut self) {
        self.stop.cancel();
    }
}

impl HttpToolSet {
    /// Polls the directory every `interval` on a tokio task and reloads when a definition
    /// file is added, removed, or changes size or modification time. The first poll reloads
    /// at once. Must be called inside a tokio runtime.
    pub fn watch(self: &Arc<Self>, interval: Duration) -> DirectoryWatch {
        let (sender, reports) = watch::channel(ReloadReport::default());
        let stop = CancellationToken::new();
        let set = Arc::clone(self);
        let stopped = stop.clone();
        let task = tokio::spawn(async move {
            let mut ticker = tokio::time::interval(interval.max(MIN_POLL_INTERVAL));
            ticker.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            let mut last: Option<Fingerprint> = None;
            loop {
                tokio::select! {
                    biased;
                    () = stopped.cancelled() => break,
                    _ = ticker.tick() => {}
                }
                let set = Arc::clone(&set);
                let previous = last.take();
                // The fingerprint is taken before the reload, so a change made during the
                // reload shows up as a difference on the next tick.
                let polled = tokio::task::spawn_blocking(move || {
                    let now = fingerprint(set.directory());
                    let report = (previous.as_ref() != Some(&now)).then(|| set.reload());
                    (now, report)
                })
                .await;
                match polled {
                    Ok((now, report)) => {
                        last = Some(now);
                        if let Some(report) = report {
                            sender.send_replace(report);
                        }
                    }
                    // A panic inside reload: forget the fingerprint so the next tick retries.
                    Err(_) => last = None,
                }
            }
        });
        DirectoryWatch {
            stop,
            reports,
            task: Some(task),
        }
    }
}
