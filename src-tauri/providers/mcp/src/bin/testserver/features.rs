//! The test server's tools for what a server asks of its client while it works: tasks (through
//! [`crate::task_front`]), elicitation, roots and sampling. Each answers with what the client
//! sent back, as JSON, so the tests can check it.

use std::sync::Arc;
use std::time::Duration;

use rmcp::model::{
    CallToolResponse, CallToolResult, ContentBlock, CustomRequest, ErrorCode, GetMeta, JsonObject,
    MetaObject, ProgressNotificationParam, ServerRequest, Tool, ToolAnnotations,
};
use rmcp::service::{RequestContext, RoleServer};
use rmcp::ErrorData;
use serde_json::{json, Value};

use crate::task_front::{lock, Journal, RELATED_TASK, TASK_SUPPORT_MARKER};

fn schema(value: Value) -> Arc<JsonObject> {
    Arc::new(value.as_object().cloned().unwrap_or_default())
}

fn task_tool(name: &'static str, support: &str, description: &'static str) -> Tool {
    let mut meta = MetaObject::new();
    meta.insert(TASK_SUPPORT_MARKER.into(), json!(support));
    Tool::new(
        name,
        description,
        schema(json!({"type": "object", "properties": {
            "steps": {"type": "integer", "default": 3},
            "fail": {"type": "boolean"},
            "ask": {"type": "boolean"}
        }})),
    )
    .with_annotations(ToolAnnotations::new().read_only(true).destructive(false))
    .with_meta(meta)
}

pub fn tools() -> Vec<Tool> {
    let plain = |name: &'static str, description: &'static str, properties: Value| {
        Tool::new(
            name,
            description,
            schema(json!({"type": "object", "properties": properties})),
        )
        .with_annotations(ToolAnnotations::new().read_only(true).destructive(false))
    };
    vec![
        task_tool(
            "slow_task",
            "required",
            "Runs as a task (taskSupport required): `steps` steps of 100 ms with a status message each; asks the client which colour after the first with `ask`; fails with `fail`.",
        ),
        task_tool(
            "maybe_task",
            "optional",
            "The same as slow_task, with taskSupport optional.",
        ),
        plain(
            "ask",
            "Asks the client for a form (elicitation/create) and returns its answer as JSON; `strict` adds a required field with no default.",
            json!({"strict": {"type": "boolean"}}),
        ),
        plain(
            "roots",
            "Asks the client for its roots (roots/list) and returns them as JSON.",
            json!({}),
        ),
        plain(
            "sample",
            "Asks the client's model for a message (sampling/createMessage); returns the answer or the client's error. `text` is the user message (default \"Say hi\"), `system` a system prompt, `image` sends an image instead.",
            json!({"text": {"type": "string"}, "system": {"type": "string"}, "image": {"type": "boolean"}}),
        ),
        plain(
            "task_journal",
            "What the task front saw: tasks completed, failed and cancelled, in order.",
            json!({}),
        ),
    ]
}

fn text(message: impl Into<String>) -> Result<CallToolResponse, ErrorData> {
    Ok(CallToolResult::success(vec![ContentBlock::text(message.into())]).into())
}

/// Sends a request the typed API does not cover in this form, and returns the answer as JSON.
async fn request(
    ctx: &RequestContext<RoleServer>,
    method: &str,
    params: Value,
    task: Option<&Value>,
) -> Result<Value, String> {
    let mut request = CustomRequest::new(method, Some(params));
    if let Some(task) = task {
        request
            .get_meta_mut()
            .insert(RELATED_TASK.into(), task.clone());
    }
    ctx.peer
        .send_request(ServerRequest::CustomRequest(request))
        .await
        .map(|answer| serde_json::to_value(answer).unwrap_or(Value::Null))
        .map_err(|e| e.to_string())
}

fn colour_form() -> Value {
    json!({
        "message": "Which colour?",
        "requestedSchema": {"type": "object", "properties": {
            "colour": {"type": "string", "title": "Colour", "oneOf": [
                {"const": "red", "title": "Red"}, {"const": "green", "title": "Green"}],
                "default": "green"}
        }, "required": ["colour"]}
    })
}

fn profile_form(strict: bool) -> Value {
    let mut form = json!({
        "message": "Tell the test server about yourself",
        "requestedSchema": {"type": "object", "properties": {
            "name": {"type": "string", "title": "Name", "default": "Ada"},
            "age": {"type": "integer", "minimum": 0, "maximum": 150, "default": 36},
            "ratio": {"type": "number", "default": 0.5},
            "subscribe": {"type": "boolean", "default": true},
            "plan": {"type": "string", "enum": ["free", "pro"], "default": "pro"},
            "pet": {"type": "string", "enum": ["pet-1", "pet-2"], "enumNames": ["Cat", "Dog"], "default": "pet-2"},
            "hero": {"type": "string", "oneOf": [{"const": "h1", "title": "Superman"}, {"const": "h2", "title": "Batman"}], "default": "h1"},
            "toppings": {"type": "array", "items": {"anyOf": [{"const": "t1", "title": "Cheese"}, {"const": "t2", "title": "Olives"}]}, "default": ["t2"]},
            "nickname": {"type": "string"}
        }, "required": ["name", "plan"]}
    });
    if strict {
        form["requestedSchema"]["properties"]["email"] =
            json!({"type": "string", "format": "email", "title": "Email"});
        form["requestedSchema"]["required"] = json!(["name", "plan", "email"]);
    }
    form
}

/// Runs the test server's tool `name` if it is one of these.
pub async fn call(
    name: &str,
    args: &JsonObject,
    ctx: &RequestContext<RoleServer>,
    journal: &Journal,
) -> Option<Result<CallToolResponse, ErrorData>> {
    let flag = |key: &str| args.get(key).and_then(Value::as_bool) == Some(true);
    Some(match name {
        "slow_task" | "maybe_task" => {
            let task = ctx.meta.get(RELATED_TASK).cloned();
            if task.is_none() && name == "slow_task" {
                return Some(Err(ErrorData::new(
                    ErrorCode::METHOD_NOT_FOUND,
                    "Tool slow_task requires task augmentation (taskSupport: 'required')",
                    None,
                )));
            }
            run_task(args, ctx, task.as_ref(), flag("ask"), flag("fail")).await
        }
        "ask" => match request(
            ctx,
            "elicitation/create",
            profile_form(flag("strict")),
            None,
        )
        .await
        {
            Ok(answer) => text(answer.to_string()),
            Err(e) => Err(ErrorData::internal_error(e, None)),
        },
        "roots" => match request(ctx, "roots/list", json!({}), None).await {
            Ok(answer) => text(answer.to_string()),
            Err(e) => Err(ErrorData::internal_error(e, None)),
        },
        "sample" => {
            let said = args.get("text").and_then(Value::as_str).unwrap_or("Say hi");
            let content = if flag("image") {
                json!({"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"})
            } else {
                json!({"type": "text", "text": said})
            };
            let mut params = json!({"messages": [{"role": "user", "content": content}],
                                    "maxTokens": 20,
                                    "modelPreferences": {"hints": [{"name": "claude-3-sonnet"}]}});
            if let Some(system) = args.get("system").and_then(Value::as_str) {
                params["systemPrompt"] = json!(system);
            }
            match request(ctx, "sampling/createMessage", params, None).await {
                Ok(answer) => text(answer.to_string()),
                Err(e) => Ok(CallToolResult::error(vec![ContentBlock::text(format!(
                    "sampling failed: {e}"
                ))])
                .into()),
            }
        }
        "task_journal" => text(lock(journal).join("\n")),
        _ => return None,
    })
}

async fn run_task(
    args: &JsonObject,
    ctx: &RequestContext<RoleServer>,
    task: Option<&Value>,
    ask: bool,
    fail: bool,
) -> Result<CallToolResponse, ErrorData> {
    let steps = args
        .get("steps")
        .and_then(Value::as_u64)
        .unwrap_or(3)
        .max(1);
    let token = ctx.meta.get_progress_token();
    let mut colour = None;
    for step in 1..=steps {
        tokio::select! {
            () = ctx.ct.cancelled() => {
                eprintln!("task cancelled at step {step}");
                return Err(ErrorData::internal_error("cancelled", None));
            }
            () = tokio::time::sleep(Duration::from_millis(100)) => {}
        }
        if let Some(token) = token.clone() {
            #[allow(clippy::cast_precision_loss)] // step counts are small
            let param = ProgressNotificationParam::new(token, step as f64)
                .with_total(steps as f64)
                .with_message(format!("step {step} of {steps}"));
            let _ = ctx.peer.notify_progress(param).await;
        }
        if ask && step == 1 {
            let answer = request(ctx, "elicitation/create", colour_form(), task)
                .await
                .map_err(|e| ErrorData::internal_error(e, None))?;
            colour = Some(answer);
        }
    }
    if fail {
        return Err(ErrorData::internal_error(
            "the task failed on purpose",
            None,
        ));
    }
    match colour {
        Some(answer) => text(format!("finished {steps} steps; answer {answer}")),
        None => text(format!("finished {steps} steps")),
    }
}
