//! Watching a tool directory by polling: every interval the source's fingerprint (its tool
//! files with their modification times and sizes) is compared with the last one, and a change
//! triggers a reload.
//!
//! Polling is portable and needs no extra crate; a directory of a few tool files costs one
//! `read_dir` and a `stat` per file per tick. The reports go out on a `tokio::sync::watch`
//! channel, so a UI sees the latest state without queueing every intermediate one. Providers
//! differ only in which files count and how they load, hence [`WatchedSource`].

use std::io;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use tokio::sync::watch;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use super::ReloadReport;

/// Shortest polling interval accepted (shorter ones are raised to it).
pub const MIN_POLL_INTERVAL: Duration = Duration::from_millis(10);

/// What the poller compares: each file's path, modification time and size, or the kind of
/// error listing the directory gave.
pub type Fingerprint = Result<Vec<(PathBuf, Option<SystemTime>, u64)>, io::ErrorKind>;

/// The fingerprint of a listing (typically [`super::list_files`]'s result).
pub fn fingerprint_of(paths: io::Result<Vec<PathBuf>>) -> Fingerprint {
    let paths = paths.map_err(|e| e.kind())?;
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

/// A directory of tool files a [`DirectoryWatch`] can poll. Both methods block (file system)
/// and are called from `spawn_blocking`.
pub trait WatchedSource: Send + Sync + 'static {
    /// The current state of the files, cheap to take (no reading of contents).
    fn fingerprint(&self) -> Fingerprint;
    /// Syncs the registry with the files.
    fn reload(&self) -> ReloadReport;
}

/// A running watch; dropping it stops the polling.
#[derive(Debug)]
pub struct DirectoryWatch {
    stop: CancellationToken,
    reports: watch::Receiver<ReloadReport>,
    task: Option<JoinHandle<()>>,
}

impl DirectoryWatch {
    /// Polls `source` every `interval` on a tokio task and reloads when its fingerprint
    /// changes (a file added, removed, or changed in size or modification time). The first
    /// poll reloads at once. Must be called inside a tokio runtime.
    pub fn start(source: Arc<dyn WatchedSource>, interval: Duration) -> DirectoryWatch {
        let (sender, reports) = watch::channel(ReloadReport::default());
        let stop = CancellationToken::new();
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
                let source = Arc::clone(&source);
                let previous = last.take();
                // The fingerprint is taken before the reload, so a change made during the
                // reload shows up as a difference on the next tick.
                let polled = tokio::task::spawn_blocking(move || {
                    let now = source.fingerprint();
                    let report = (previous.as_ref() != Some(&now)).then(|| source.reload());
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

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Mutex;

    use super::*;

    /// A source whose fingerprint the test sets; counts reloads.
    #[derive(Default)]
    struct Scripted {
        fingerprint: Mutex<u64>,
        reloads: AtomicUsize,
        panic_next: Mutex<bool>,
    }

    impl WatchedSource for Scripted {
        fn fingerprint(&self) -> Fingerprint {
            let size = *self.fingerprint.lock().unwrap_or_else(|e| e.into_inner());
            Ok(vec![(PathBuf::from("t.json"), None, size)])
        }
        fn reload(&self) -> ReloadReport {
            let panic =
                std::mem::take(&mut *self.panic_next.lock().unwrap_or_else(|e| e.into_inner()));
            assert!(!panic, "scripted panic");
            let n = self.reloads.fetch_add(1, Ordering::SeqCst) + 1;
            ReloadReport {
                added: vec![format!("reload{n}")],
                ..ReloadReport::default()
            }
        }
    }

    async fn next_report(reports: &mut watch::Receiver<ReloadReport>) -> ReloadReport {
        tokio::time::timeout(Duration::from_secs(10), reports.changed())
            .await
            .expect("a report in time")
            .expect("the watch is running");
        reports.borrow_and_update().clone()
    }

    #[tokio::test]
    async fn reloads_at_once_then_only_on_change_and_retries_after_a_panic() {
        let source = Arc::new(Scripted::default());
        let watch = DirectoryWatch::start(source.clone(), Duration::from_millis(10));
        let mut reports = watch.reports();
        assert_eq!(next_report(&mut reports).await.added, ["reload1"]);
        tokio::time::sleep(Duration::from_millis(60)).await;
        assert_eq!(source.reloads.load(Ordering::SeqCst), 1, "nothing changed");

        *source.panic_next.lock().expect("lock") = true;
        *source.fingerprint.lock().expect("lock") = 1;
        // The panicking reload sends nothing; the next tick sees a difference again.
        assert_eq!(next_report(&mut reports).await.added, ["reload2"]);
        watch.stop().await;
    }
}
