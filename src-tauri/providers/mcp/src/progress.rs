//! Progress notifications routed to the call that asked for them, complete and in order.
//!
//! rmcp hands each notification to the client handler on a task of its own, while a response
//! goes straight to the waiting call. So the last "step 3 of 3" a server sends just before its
//! result can reach the handler after the call has finished (and be lost), and two progress
//! notifications can be handled in either order (a bar that moves backwards). The server sent
//! them in order on one stream, and that order is what the user must see.
//!
//! [`ProgressCounting`] wraps the transport and counts each progress notification as it is
//! read, which is in wire order, before the response that follows it. A finished call waits
//! (briefly, bounded) until the handler has delivered as many as were read for its token, and
//! a notification whose progress does not exceed the last one delivered is dropped, as the
//! MCP specification requires progress to increase.

use std::collections::HashMap;
use std::future::Future;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use rmcp::model::{
    JsonRpcMessage, JsonRpcNotification, ProgressNotificationParam, ProgressToken,
    ServerNotification,
};
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use rmcp::RoleClient;
use tokio::sync::Notify;
use toolscope_engine::CallContext;

/// How long a finished call waits for progress notifications already read but not yet
/// delivered. They are in flight on the same runtime, so this is only reached if it is stalled.
const SETTLE_LIMIT: Duration = Duration::from_millis(500);

/// Running calls that asked for progress, by the token their request carried.
#[derive(Default)]
pub struct ProgressRoutes {
    routes: Mutex<HashMap<ProgressToken, Route>>,
    delivered: Notify,
}

struct Route {
    ctx: CallContext,
    read: u64,
    delivered: u64,
    last: Option<f64>,
}

impl ProgressRoutes {
    fn routes(&self) -> MutexGuard<'_, HashMap<ProgressToken, Route>> {
        self.routes.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Sends the progress of `token` to `ctx` until the returned guard is settled or dropped.
    /// Returns `None` if nobody listens to this call's progress.
    pub fn open(self: &Arc<Self>, token: ProgressToken, ctx: &CallContext) -> Option<OpenRoute> {
        if !ctx.wants_progress() {
            return None;
        }
        self.routes().insert(
            token.clone(),
            Route {
                ctx: ctx.clone(),
                read: 0,
                delivered: 0,
                last: None,
            },
        );
        Some(OpenRoute {
            routes: Arc::clone(self),
            token,
        })
    }

    /// The transport read a progress notification for `token`.
    fn note_read(&self, token: &ProgressToken) {
        if let Some(route) = self.routes().get_mut(token) {
            route.read += 1;
        }
    }

    /// The handler received a progress notification: pass it on if it moves forward.
    pub fn deliver(&self, p: ProgressNotificationParam) {
        let target = {
            let mut routes = self.routes();
            let Some(route) = routes.get_mut(&p.progress_token) else {
                return;
            };
            route.delivered += 1;
            let forward = route.last.is_none_or(|last| p.progress > last);
            if forward {
                route.last = Some(p.progress);
            }
            forward.then(|| route.ctx.clone())
        };
        if let Some(ctx) = target {
            ctx.report_progress(p.progress, p.total, p.message);
        }
        self.delivered.notify_waiters();
    }

    fn settled(&self, token: &ProgressToken) -> bool {
        self.routes()
            .get(token)
            .is_none_or(|route| route.delivered >= route.read)
    }

    fn close(&self, token: &ProgressToken) {
        self.routes().remove(token);
    }
}

/// A call's progress route; dropping it stops the routing at once.
pub struct OpenRoute {
    routes: Arc<ProgressRoutes>,
    token: ProgressToken,
}

impl OpenRoute {
    /// Waits until every progress notification read before the call's response has been
    /// delivered, then stops the routing.
    pub async fn settle(self) {
        let deadline = tokio::time::Instant::now() + SETTLE_LIMIT;
        loop {
            let delivered = self.routes.delivered.notified();
            if self.routes.settled(&self.token) {
                return;
            }
            if tokio::time::timeout_at(deadline, delivered).await.is_err() {
                return;
            }
        }
    }
}

impl Drop for OpenRoute {
    fn drop(&mut self) {
        self.routes.close(&self.token);
    }
}

/// A client transport that counts progress notifications for [`ProgressRoutes`] as it reads
/// them.
pub struct ProgressCounting<T> {
    inner: T,
    routes: Arc<ProgressRoutes>,
}

impl<T> ProgressCounting<T> {
    pub fn new(inner: T, routes: Arc<ProgressRoutes>) -> Self {
        Self { inner, routes }
    }
}

impl<T: Transport<RoleClient>> Transport<RoleClient> for ProgressCounting<T> {
    type Error = T::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleClient>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        self.inner.send(item)
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleClient>> {
        let message = self.inner.receive().await;
        if let Some(JsonRpcMessage::Notification(JsonRpcNotification {
            notification: ServerNotification::ProgressNotification(n),
            ..
        })) = &message
        {
            self.routes.note_read(&n.params.progress_token);
        }
        message
    }

    fn close(&mut self) -> impl Future<Output = Result<(), Self::Error>> + Send {
        self.inner.close()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rmcp::model::NumberOrString;
    use toolscope_engine::ProgressRecorder;

    /// The progress values reported so far.
    fn values(log: &ProgressRecorder) -> Vec<f64> {
        log.reports().iter().map(|p| p.progress).collect()
    }

    fn token(n: i64) -> ProgressToken {
        ProgressToken(NumberOrString::Number(n))
    }

    fn step(n: i64, progress: f64) -> ProgressNotificationParam {
        ProgressNotificationParam::new(token(n), progress)
    }

    fn listening() -> (Arc<ProgressRecorder>, CallContext) {
        let log = Arc::new(ProgressRecorder::default());
        let ctx = CallContext {
            request_id: "call_1".into(),
            progress: Some(log.clone()),
            ..CallContext::default()
        };
        (log, ctx)
    }

    #[tokio::test]
    async fn a_finished_call_waits_for_progress_read_before_its_response() {
        let routes = Arc::new(ProgressRoutes::default());
        let (log, ctx) = listening();
        let route = routes.open(token(1), &ctx).expect("listened to");
        routes.note_read(&token(1));
        routes.note_read(&token(1));
        routes.deliver(step(1, 1.0));
        let late = Arc::clone(&routes);
        tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(30)).await;
            late.deliver(step(1, 2.0));
        });
        route.settle().await;
        assert_eq!(values(&log), vec![1.0, 2.0]);
        routes.deliver(step(1, 3.0));
        assert_eq!(values(&log).len(), 2, "closed");
    }

    #[tokio::test]
    async fn progress_that_does_not_move_forward_is_dropped_and_others_are_not_routed() {
        let routes = Arc::new(ProgressRoutes::default());
        let (log, ctx) = listening();
        let _route = routes.open(token(1), &ctx).expect("listened to");
        routes.deliver(step(1, 2.0));
        routes.deliver(step(1, 1.0));
        routes.deliver(step(1, 2.0));
        routes.deliver(step(2, 9.0));
        routes.deliver(step(1, 3.0));
        assert_eq!(values(&log), vec![2.0, 3.0]);
    }

    #[tokio::test]
    async fn settling_gives_up_after_its_limit_and_a_call_nobody_watches_gets_no_route() {
        let routes = Arc::new(ProgressRoutes::default());
        assert!(routes.open(token(1), &CallContext::default()).is_none());
        let (_log, ctx) = listening();
        let route = routes.open(token(1), &ctx).expect("listened to");
        routes.note_read(&token(1));
        let started = std::time::Instant::now();
        route.settle().await;
        assert!(started.elapsed() >= SETTLE_LIMIT);
        assert!(routes.routes().is_empty());
    }
}
