//! MCP server configurations, and importing the `mcpServers` JSON other clients already use.
//!
//! Claude Desktop, Cursor, Claude Code and Cline keep `{"mcpServers": {name: {...}}}`; VS Code
//! keeps `{"servers": {name: {"type": ...}}}` (plus `inputs`). A server entry is either a
//! command line (`command`, `args`, `env`, `cwd`) or a URL (`url`, `headers`). Toolscope stores
//! its own list in the same `mcpServers` shape, so a user can copy it between tools by hand.
//! `${VAR}` and `${env:VAR}` in any string are expanded from the environment when the server is
//! started, so secrets can stay out of the file.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::oauth::OAuthClientConfig;

/// How to reach one server.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum McpTransport {
    /// A child process speaking JSON-RPC over its stdin/stdout.
    Stdio {
        command: String,
        #[serde(default)]
        args: Vec<String>,
        #[serde(default)]
        env: BTreeMap<String, String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        cwd: Option<String>,
    },
    /// A streamable-HTTP endpoint.
    Http {
        url: String,
        #[serde(default)]
        headers: BTreeMap<String, String>,
        /// How to identify Toolscope when the server requires signing in (OAuth); without it,
        /// Toolscope registers itself where the server allows that.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        oauth: Option<OAuthClientConfig>,
    },
}

/// One configured server.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct McpServerConfig {
    pub name: String,
    pub transport: McpTransport,
    #[serde(default = "enabled_by_default")]
    pub enabled: bool,
}

fn enabled_by_default() -> bool {
    true
}

impl McpTransport {
    /// The command line exactly as it will be started, for the user to approve.
    pub fn command_line(&self) -> Option<String> {
        match self {
            Self::Stdio {
                command,
                args,
                env,
                cwd,
            } => {
                let mut parts: Vec<String> = Vec::new();
                if let Some(cwd) = cwd {
                    parts.push(format!("(in {})", shell_quote(cwd)));
                }
                parts.extend(env.iter().map(|(k, v)| format!("{k}={}", shell_quote(v))));
                parts.push(shell_quote(command));
                parts.extend(args.iter().map(|a| shell_quote(a)));
                Some(parts.join(" "))
            }
            Self::Http { .. } => None,
        }
    }
}

fn shell_quote(text: &str) -> String {
    let plain = !text.is_empty()
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./:=@%+,".contains(c));
    if plain {
        text.to_owned()
    } else {
        format!("'{}'", text.replace('\'', r"'\''"))
    }
}

/// What an import found: the servers, and entries it could not take (with why).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct ImportReport {
    pub servers: Vec<McpServerConfig>,
    pub warnings: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ConfigError {
    #[error("not valid JSON: {0}")]
    InvalidJson(String),
    #[error(
        "expected an object with \"mcpServers\" or \"servers\" (or a map of servers), found {0}"
    )]
    NoServers(String),
    #[error("a variable in {field} is not set: {name}")]
    MissingVariable { field: String, name: String },
}

/// Reads any of the known config shapes. Entries that cannot be used become warnings, so one
/// odd entry never loses the others.
pub fn import(text: &str) -> Result<ImportReport, ConfigError> {
    let root: Value = serde_json::from_str(strip_json_comments(text).as_str())
        .map_err(|e| ConfigError::InvalidJson(e.to_string()))?;
    let Value::Object(root) = root else {
        return Err(ConfigError::NoServers(
            toolscope_protocol::request::json_kind(&root).to_owned(),
        ));
    };
    let has_inputs = root
        .get("inputs")
        .is_some_and(|v| v.as_array().is_some_and(|a| !a.is_empty()));
    let servers = match (root.get("mcpServers"), root.get("servers")) {
        (Some(Value::Object(map)), _) | (None, Some(Value::Object(map))) => map.clone(),
        (Some(other), _) | (None, Some(other)) => {
            return Err(ConfigError::NoServers(format!(
                "servers as {}",
                toolscope_protocol::request::json_kind(other)
            )))
        }
        // A bare map of servers: every value an object with `command` or `url`.
        (None, None)
            if !root.is_empty()
                && root
                    .values()
                    .all(|v| v.get("command").is_some() || v.get("url").is_some()) =>
        {
            root
        }
        (None, None) => return Err(ConfigError::NoServers("neither key".to_owned())),
    };
    let mut report = ImportReport::default();
    for (name, entry) in servers {
        match server_entry(&name, &entry) {
            Ok(server) => report.servers.push(server),
            Err(why) => report
                .warnings
                .push(format!("server '{name}' skipped: {why}")),
        }
    }
    if has_inputs {
        report.warnings.push(
            "VS Code \"inputs\" are prompted for by VS Code only: values written ${input:...} \
             stay unresolved and their servers fail to start until you replace them"
                .to_owned(),
        );
    }
    Ok(report)
}

fn server_entry(name: &str, entry: &Value) -> Result<McpServerConfig, String> {
    let Value::Object(entry) = entry else {
        return Err(format!(
            "expected an object, found {}",
            toolscope_protocol::request::json_kind(entry)
        ));
    };
    let text = |key: &str| -> Result<Option<String>, String> {
        match entry.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(other) => Err(format!(
                "\"{key}\" must be a string, found {}",
                toolscope_protocol::request::json_kind(other)
            )),
        }
    };
    let map = |key: &str| -> Result<BTreeMap<String, String>, String> {
        match entry.get(key) {
            None | Some(Value::Null) => Ok(BTreeMap::new()),
            Some(Value::Object(map)) => map
                .iter()
                .map(|(k, v)| match v {
                    Value::String(s) => Ok((k.clone(), s.clone())),
                    Value::Number(n) => Ok((k.clone(), n.to_string())),
                    Value::Bool(b) => Ok((k.clone(), b.to_string())),
                    other => Err(format!(
                        "\"{key}.{k}\" must be a string, found {}",
                        toolscope_protocol::request::json_kind(other)
                    )),
                })
                .collect(),
            Some(other) => Err(format!(
                "\"{key}\" must be an object, found {}",
                toolscope_protocol::request::json_kind(other)
            )),
        }
    };
    let kind = text("type")?.or(text("transport")?);
    let transport = match (kind.as_deref(), text("command")?, text("url")?) {
        (Some("sse"), _, _) => {
            return Err(
                "the legacy HTTP+SSE transport is not supported; point \"url\" at the \
                        server's streamable HTTP endpoint and set \"type\": \"http\""
                    .to_owned(),
            )
        }
        (Some("stdio") | None, Some(command), _) => {
            let args = match entry.get("args") {
                None | Some(Value::Null) => Vec::new(),
                Some(Value::Array(items)) => items
                    .iter()
                    .map(|v| match v {
                        Value::String(s) => Ok(s.clone()),
                        Value::Number(n) => Ok(n.to_string()),
                        other => Err(format!(
                            "\"args\" must hold strings, found {}",
                            toolscope_protocol::request::json_kind(other)
                        )),
                    })
                    .collect::<Result<_, _>>()?,
                Some(other) => {
                    return Err(format!(
                        "\"args\" must be an array, found {}",
                        toolscope_protocol::request::json_kind(other)
                    ))
                }
            };
            McpTransport::Stdio {
                command,
                args,
                env: map("env")?,
                cwd: text("cwd")?,
            }
        }
        (Some("http" | "streamable-http" | "streamableHttp") | None, None, Some(url)) => {
            McpTransport::Http {
                url,
                headers: map("headers")?,
                oauth: match entry.get("oauth") {
                    None | Some(Value::Null) => None,
                    Some(value) => Some(
                        serde_json::from_value(value.clone())
                            .map_err(|e| format!("\"oauth\": {e}"))?,
                    ),
                },
            }
        }
        (Some(other), _, _)
            if !matches!(
                other,
                "stdio" | "http" | "streamable-http" | "streamableHttp"
            ) =>
        {
            return Err(format!("unknown transport type \"{other}\""))
        }
        _ => {
            return Err(
                "needs \"command\" (a program to start) or \"url\" (an HTTP endpoint)".to_owned(),
            )
        }
    };
    let disabled = entry
        .get("disabled")
        .and_then(Value::as_bool)
        .unwrap_or(false);
    let enabled = entry
        .get("enabled")
        .and_then(Value::as_bool)
        .unwrap_or(true);
    Ok(McpServerConfig {
        name: name.to_owned(),
        transport,
        enabled: enabled && !disabled,
    })
}

/// Writes servers in the `mcpServers` shape, the one every client reads.
pub fn export(servers: &[McpServerConfig]) -> Value {
    let mut map = serde_json::Map::new();
    for server in servers {
        let mut entry = serde_json::Map::new();
        match &server.transport {
            McpTransport::Stdio {
                command,
                args,
                env,
                cwd,
            } => {
                entry.insert("command".into(), command.clone().into());
                entry.insert("args".into(), args.clone().into());
                if !env.is_empty() {
                    entry.insert("env".into(), serde_json::to_value(env).unwrap_or_default());
                }
                if let Some(cwd) = cwd {
                    entry.insert("cwd".into(), cwd.clone().into());
                }
            }
            McpTransport::Http {
                url,
                headers,
                oauth,
            } => {
                entry.insert("type".into(), "http".into());
                entry.insert("url".into(), url.clone().into());
                if !headers.is_empty() {
                    entry.insert(
                        "headers".into(),
                        serde_json::to_value(headers).unwrap_or_default(),
                    );
                }
                if let Some(oauth) = oauth {
                    entry.insert(
                        "oauth".into(),
                        serde_json::to_value(oauth).unwrap_or_default(),
                    );
                }
            }
        }
        if !server.enabled {
            entry.insert("disabled".into(), true.into());
        }
        map.insert(server.name.clone(), Value::Object(entry));
    }
    serde_json::json!({ "mcpServers": map })
}

/// Expands `${VAR}` and `${env:VAR}` from `lookup`; `field` names the place for the error.
pub fn expand_variables(
    text: &str,
    field: &str,
    lookup: &dyn Fn(&str) -> Option<String>,
) -> Result<String, ConfigError> {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find("${") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        let Some(end) = after.find('}') else {
            out.push_str(&rest[start..]);
            return Ok(out);
        };
        let name = &after[..end];
        let var = name.strip_prefix("env:").unwrap_or(name);
        let missing = || ConfigError::MissingVariable {
            field: field.to_owned(),
            name: name.to_owned(),
        };
        if var.is_empty() || var.contains(':') {
            return Err(missing());
        }
        out.push_str(&lookup(var).ok_or_else(missing)?);
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

/// Drops `//` and `/* */` comments outside strings: VS Code's mcp.json is JSON with comments.
fn strip_json_comments(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let (mut i, mut in_string) = (0, false);
    while i < bytes.len() {
        let b = bytes[i];
        if in_string {
            out.push(b);
            if b == b'\\' && i + 1 < bytes.len() {
                out.push(bytes[i + 1]);
                i += 1;
            } else if b == b'"' {
                in_string = false;
            }
        } else if b == b'"' {
            in_string = true;
            out.push(b);
        } else if b == b'/' && bytes.get(i + 1) == Some(&b'/') {
            while i < bytes.len() && bytes[i] != b'\n' {
                i += 1;
            }
            continue;
        } else if b == b'/' && bytes.get(i + 1) == Some(&b'*') {
            i += 2;
            while i < bytes.len() && !(bytes[i] == b'*' && bytes.get(i + 1) == Some(&b'/')) {
                i += 1;
            }
            i += 2;
            continue;
        } else {
            out.push(b);
        }
        i += 1;
    }
    String::from_utf8(out).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

#[cfg(test)]
mod tests;
