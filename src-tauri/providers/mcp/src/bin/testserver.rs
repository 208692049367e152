//! A small MCP server over stdio, built on rmcp's server side, that the provider's tests start
//! as a real child process. Each tool exercises one client path: plain text, progress and
//! cancellation, a crash mid-call, invalid UTF-8 on stdout, secrets echoed back from its
//! environment, a tool-level error, rich content,
//! `tools/list_changed`, names that collide once `_` is mapped, (with `--tools N`) a large
//! paginated listing, and what a server asks of its client while it works: tasks,
//! elicitation, roots and sampling ([`features`], with MCP 2025-11-25 tasks provided by
//! [`task_front`] between stdio and rmcp).
//!
//! With `--http-oauth [--token-lifetime SECS] [--oauth-fault NAME]` it serves the same tools
//! over streamable HTTP instead, behind OAuth, as its own authorization server ([`oauth_http`]):
//! the client's sign-in is tested against it, and against the misbehaving authorization
//! servers [`oauth_server::Fault`] plays.
//!
//! Everything it logs goes to stderr: stdout carries JSON-RPC only (except what `garbage`
//! writes there on purpose).

#[path = "testserver/features.rs"]
mod features;
#[path = "testserver/oauth_http.rs"]
mod oauth_http;
#[path = "testserver/oauth_server.rs"]
mod oauth_server;
#[path = "testserver/oauth_token.rs"]
mod oauth_token;
#[path = "testserver/task_front.rs"]
mod task_front;
#[path = "testserver/task_state.rs"]
mod task_state;

use std::io::Write;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    JsonObject, ListToolsResult, PaginatedRequestParams, ProgressNotificationParam,
    ServerCapabilities, ServerConfig, Tool, ToolAnnotations,
};
use rmcp::service::{RequestContext, RoleServer};
use rmcp::{ErrorData, ServerHandler, ServiceExt};
use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::sync::mpsc;

use task_front::{Front, Journal};

const PAGE: usize = 100;
/// A 1x1 transparent PNG.
const PIXEL_PNG: &str =
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=";

#[derive(Clone, Default)]
struct TestServer {
    generated: usize,
    added: Arc<Mutex<Vec<String>>>,
    journal: Journal,
}

fn schema(value: Value) -> Arc<JsonObject> {
    Arc::new(value.as_object().cloned().unwrap_or_default())
}

fn read_only() -> ToolAnnotations {
    ToolAnnotations::new().read_only(true).destructive(false)
}

impl TestServer {
    fn tools(&self) -> Vec<Tool> {
        let mut tools = vec![
            Tool::new(
                "echo_text",
                "Returns the text it is given.",
                schema(json!({"type": "object", "properties": {"text": {"type": "string"}},
                              "required": ["text"], "additionalProperties": false})),
            )
            .with_annotations(read_only()),
            Tool::new(
                "slow_op",
                "Sleeps, reporting progress every 100 ms; stops when cancelled.",
                schema(json!({"type": "object", "properties": {"seconds": {"type": "number", "default": 5}}})),
            )
            .with_annotations(read_only()),
            Tool::new("crash", "Exits the server process in the middle of the call.", schema(json!({"type": "object"}))),
            Tool::new("fail", "Reports a tool-level error.", schema(json!({"type": "object"})))
                .with_annotations(read_only()),
            Tool::new(
                "echo_env",
                "Returns and prints to stderr TOOLSCOPE_TEST_SECRET, API_TOKEN and PLAIN_SETTING; fails with them if asked.",
                schema(json!({"type": "object", "properties": {"fail": {"type": "boolean"}}})),
            )
            .with_annotations(read_only()),
            Tool::new("garbage", "Writes a line of invalid UTF-8 to stdout, then answers.", schema(json!({"type": "object"})))
                .with_annotations(read_only()),
            Tool::new("rich", "Returns text, an image, a resource and structured content.", schema(json!({"type": "object"})))
                .with_annotations(read_only())
                .with_raw_output_schema(schema(json!({"type": "object", "properties": {"sum": {"type": "number"}}}))),
            Tool::new("add_tool", "Adds a tool and announces tools/list_changed.", schema(json!({"type": "object"})))
                .with_annotations(ToolAnnotations::new().destructive(false)),
            Tool::new("get_x", "Collides with get-x once '_' becomes '-'.", schema(json!({"type": "object"})))
                .with_annotations(read_only()),
            Tool::new("get-x", "Collides with get_x once '_' becomes '-'.", schema(json!({"type": "object"})))
                .with_annotations(read_only()),
        ];
        tools.extend(features::tools());
        if let Ok(added) = self.added.lock() {
            tools.extend(added.iter().map(|name| {
                Tool::new(
                    name.clone(),
                    "Added at run time.",
                    schema(json!({"type": "object"})),
                )
                .with_annotations(read_only())
            }));
        }
        tools.extend((0..self.generated).map(|i| {
            Tool::new(
                format!("generated_{i:04}"),
                format!("Generated tool number {i} for listing at scale."),
                schema(json!({"type": "object", "properties": {"n": {"type": "integer"}}})),
            )
            .with_annotations(read_only())
        }));
        tools
    }
}

fn text(message: impl Into<String>) -> Result<CallToolResponse, ErrorData> {
    Ok(CallToolResult::success(vec![ContentBlock::text(message.into())]).into())
}

impl ServerHandler for TestServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_tool_list_changed()
                .build(),
        )
        .with_server_info(Implementation::new(
            "toolscope-mcp-testserver",
            env!("CARGO_PKG_VERSION"),
        ))
    }

    async fn list_tools(
        &self,
        request: Option<PaginatedRequestParams>,
        _ctx: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let all = self.tools();
        let start: usize = request
            .and_then(|r| r.cursor)
            .and_then(|c| c.parse().ok())
            .unwrap_or(0)
            .min(all.len());
        let end = (start + PAGE).min(all.len());
        let mut page = ListToolsResult::with_all_items(all[start..end].to_vec());
        if end < all.len() {
            page.next_cursor = Some(end.to_string());
        }
        Ok(page)
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let args = request.arguments.unwrap_or_default();
        if let Some(answer) = features::call(&request.name, &args, &ctx, &self.journal).await {
            return answer;
        }
        match request.name.as_ref() {
            "echo_text" => match args.get("text").and_then(Value::as_str) {
                Some(t) => text(t),
                None => Err(ErrorData::invalid_params("'text' must be a string", None)),
            },
            "slow_op" => {
                let seconds = args.get("seconds").and_then(Value::as_f64).unwrap_or(5.0);
                let steps = (seconds * 10.0).round().max(1.0) as u32;
                let token = ctx.meta.get_progress_token();
                for step in 1..=steps {
                    tokio::select! {
                        () = ctx.ct.cancelled() => {
                            eprintln!("slow_op cancelled at step {step}");
                            return Err(ErrorData::internal_error("cancelled", None));
                        }
                        () = tokio::time::sleep(Duration::from_millis(100)) => {}
                    }
                    if let Some(token) = token.clone() {
                        let _ = ctx
                            .peer
                            .notify_progress(
                                ProgressNotificationParam::new(token, f64::from(step))
                                    .with_total(f64::from(steps))
                                    .with_message(format!("step {step} of {steps}")),
                            )
                            .await;
                    }
                }
                text(format!("slept {seconds} s"))
            }
            "crash" => {
                eprintln!("crashing on purpose");
                std::process::exit(3)
            }
            "echo_env" => {
                let var = |name: &str| std::env::var(name).unwrap_or_default();
                let shown = format!(
                    "secret={} token={} plain={}",
                    var("TOOLSCOPE_TEST_SECRET"),
                    var("API_TOKEN"),
                    var("PLAIN_SETTING")
                );
                eprintln!("echo_env: {shown}");
                if args.get("fail").and_then(Value::as_bool) == Some(true) {
                    Ok(
                        CallToolResult::error(vec![ContentBlock::text(format!(
                            "rejected {shown}"
                        ))])
                        .into(),
                    )
                } else {
                    text(shown)
                }
            }
            "garbage" => {
                // Between two messages, so the line stands alone: a server with a stray print
                // (or a corrupted stream) next to its JSON-RPC.
                let mut out = std::io::stdout().lock();
                let written = out
                    .write_all(b"\xff\xfe not \xc3 json \xe2\x82\n")
                    .and_then(|()| out.flush());
                if let Err(e) = written {
                    return Err(ErrorData::internal_error(e.to_string(), None));
                }
                text("still talking after the garbage")
            }
            "fail" => Ok(CallToolResult::error(vec![ContentBlock::text(
                "the tool failed on purpose",
            )])
            .into()),
            "rich" => {
                let mut result = CallToolResult::success(vec![
                    ContentBlock::text("two things"),
                    ContentBlock::image(PIXEL_PNG, "image/png"),
                    ContentBlock::embedded_text("mem://note", "a note"),
                ]);
                result.structured_content = Some(json!({"sum": 3}));
                Ok(result.into())
            }
            "add_tool" => {
                let name = match self.added.lock() {
                    Ok(mut added) => {
                        let name = format!("added_{}", added.len() + 1);
                        added.push(name.clone());
                        name
                    }
                    Err(_) => return Err(ErrorData::internal_error("state poisoned", None)),
                };
                ctx.peer
                    .notify_tool_list_changed()
                    .await
                    .map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
                text(format!("added {name}"))
            }
            "get_x" => text("from get_x"),
            "get-x" => text("from get-x"),
            name if name.starts_with("added_") || name.starts_with("generated_") => {
                text(format!("{name} ran"))
            }
            other => Err(ErrorData::invalid_params(
                format!("unknown tool {other}"),
                None,
            )),
        }
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let mut server = TestServer::default();
    let args: Vec<String> = std::env::args().collect();
    if let Some(i) = args.iter().position(|a| a == "--tools") {
        server.generated = args.get(i + 1).and_then(|n| n.parse().ok()).unwrap_or(0);
    }
    if args.iter().any(|a| a == "--http-oauth") {
        let lifetime = match args.iter().position(|a| a == "--token-lifetime") {
            Some(i) => match args.get(i + 1).and_then(|n| n.parse().ok()) {
                Some(seconds) => seconds,
                None => {
                    eprintln!("--token-lifetime needs a number of seconds");
                    std::process::exit(2);
                }
            },
            None => 3600,
        };
        let fault = match args.iter().position(|a| a == "--oauth-fault") {
            Some(i) => match args.get(i + 1).map(|name| oauth_server::Fault::parse(name)) {
                Some(Ok(fault)) => Some(fault),
                Some(Err(why)) => {
                    eprintln!("--oauth-fault: {why}");
                    std::process::exit(2);
                }
                None => {
                    eprintln!("--oauth-fault needs a name");
                    std::process::exit(2);
                }
            },
            None => None,
        };
        if let Err(e) = oauth_http::run(Duration::from_secs(lifetime), fault).await {
            eprintln!("toolscope-mcp-testserver: {e}");
            std::process::exit(1);
        }
        return;
    }
    if args.iter().any(|a| a == "--fail-to-start") {
        eprintln!("refusing to start: --fail-to-start was given");
        std::process::exit(2);
    }
    eprintln!("toolscope-mcp-testserver ready");
    let rmcp_side = front(server.journal.clone());
    match server.serve(rmcp_side).await {
        Ok(running) => {
            let _ = running.waiting().await;
        }
        Err(e) => {
            eprintln!("toolscope-mcp-testserver: {e}");
            std::process::exit(1);
        }
    }
}

/// Starts the task front between stdio and an in-process pipe; returns rmcp's end of it.
fn front(journal: Journal) -> tokio::io::DuplexStream {
    let (rmcp_side, front_side) = tokio::io::duplex(1 << 16);
    let (from_rmcp, mut to_rmcp) = tokio::io::split(front_side);
    let (client_tx, mut client_rx) = mpsc::unbounded_channel::<String>();
    let (server_tx, mut server_rx) = mpsc::unbounded_channel::<String>();
    let front = Arc::new(Front::new(client_tx, server_tx, journal));
    tokio::spawn(async move {
        let mut stdout = tokio::io::stdout();
        while let Some(line) = client_rx.recv().await {
            let written = stdout.write_all(format!("{line}\n").as_bytes()).await;
            if written.is_err() || stdout.flush().await.is_err() {
                break;
            }
        }
    });
    tokio::spawn(async move {
        while let Some(line) = server_rx.recv().await {
            if to_rmcp
                .write_all(format!("{line}\n").as_bytes())
                .await
                .is_err()
            {
                break;
            }
        }
    });
    let from_client = Arc::clone(&front);
    tokio::spawn(async move {
        let mut lines = BufReader::new(tokio::io::stdin()).lines();
        while let Ok(Some(line)) = lines.next_line().await {
            from_client.on_client_line(line);
        }
        // The client went away, and with it the reason to run (as with rmcp's own stdio).
        std::process::exit(0);
    });
    tokio::spawn(async move {
        let mut lines = BufReader::new(from_rmcp).lines();
        while let Ok(Some(line)) = lines.next_line().await {
            front.on_server_line(line);
        }
    });
    rmcp_side
}
