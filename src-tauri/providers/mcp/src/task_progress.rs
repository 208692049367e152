//! A task-augmented call's progress: the task's status rides along with every report, and a
//! change of status or status message is reported on its own, so the Executor (and the CLI's
//! stderr) shows a running task and where it stands between the tool's own progress reports.

use std::sync::{Arc, Mutex};

use toolscope_engine::{CallProgress, ProgressSink, TaskProgress, TaskStatus};

/// Passes a task call's progress on with the task's status attached, and reports each status
/// or status message change as progress of its own.
pub(crate) struct TaskSink {
    inner: Arc<dyn ProgressSink>,
    request_id: String,
    shown: Mutex<Shown>,
}

#[derive(Default)]
struct Shown {
    task: Option<TaskProgress>,
    progress: f64,
    total: Option<f64>,
    message: Option<String>,
}

impl TaskSink {
    fn shown(&self) -> std::sync::MutexGuard<'_, Shown> {
        self.shown.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub(crate) fn status(&self, task_id: &str, status: TaskStatus, message: Option<&str>) {
        let report = {
            let mut shown = self.shown();
            let task = TaskProgress {
                task_id: task_id.to_owned(),
                status,
            };
            let new_message = message.is_some_and(|m| shown.message.as_deref() != Some(m));
            if shown.task.as_ref() == Some(&task) && !new_message {
                return;
            }
            // A new status without words of its own: the old status's message would mislead.
            let new_status = shown.task.as_ref().map(|t| t.status) != Some(status);
            if message.is_some() || new_status {
                shown.message = message.map(str::to_owned);
            }
            shown.task = Some(task);
            CallProgress {
                request_id: self.request_id.clone(),
                progress: shown.progress,
                total: shown.total,
                message: shown.message.clone(),
                task: shown.task.clone(),
            }
        };
        self.inner.report(report);
    }
}

impl ProgressSink for TaskSink {
    fn report(&self, mut progress: CallProgress) {
        {
            let mut shown = self.shown();
            shown.progress = progress.progress;
            shown.total = progress.total;
            if progress.message.is_some() {
                shown.message.clone_from(&progress.message);
            }
            progress.task = shown.task.clone();
        }
        self.inner.report(progress);
    }
}

impl TaskSink {
    /// Wraps the call's own sink (if anyone listens to its progress).
    pub(crate) fn wrap(inner: Arc<dyn ProgressSink>, request_id: &str) -> Self {
        Self {
            inner,
            request_id: request_id.to_owned(),
            shown: Mutex::default(),
        }
    }
}

#[cfg(test)]
mod tests {
    use toolscope_engine::ProgressRecorder;

    use super::*;

    #[test]
    fn statuses_are_reported_once_and_progress_carries_the_task() {
        let log = Arc::new(ProgressRecorder::default());
        let sink = TaskSink::wrap(log.clone(), "call_1");
        sink.status("t-1", TaskStatus::Working, Some("Gathering sources"));
        sink.status("t-1", TaskStatus::Working, Some("Gathering sources"));
        sink.report(CallProgress {
            request_id: "call_1".into(),
            progress: 2.0,
            total: Some(4.0),
            message: None,
            task: None,
        });
        sink.status("t-1", TaskStatus::Completed, None);
        let reports = log.reports();
        assert_eq!(reports.len(), 3, "{reports:?}");
        assert_eq!(reports[0].message.as_deref(), Some("Gathering sources"));
        assert_eq!(
            reports[1].task.as_ref().map(|t| t.status),
            Some(TaskStatus::Working)
        );
        assert_eq!(reports[2].progress, 2.0, "the last progress is kept");
        assert_eq!(
            reports[2].message, None,
            "the working message does not outlive it"
        );
        assert_eq!(
            reports[2].task.as_ref().map(|t| t.status),
            Some(TaskStatus::Completed)
        );
    }
}
