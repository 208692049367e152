//! The tool registry: the single place providers put tools and everything else looks them up.
//!
//! Tools are stored behind `Arc`s with a metadata snapshot taken at registration, so discovery
//! and execution never call back into a provider just to read metadata. Every change bumps a
//! generation counter; caches (the prompt cache in [`crate::discovery`]) compare it to know they
//! are stale without being told.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock, RwLock};

use toolscope_protocol::request::json_kind;

use crate::tool::Tool;
use crate::types::{ToolInfo, ToolSource};
use toolscope_protocol::method::MethodMetadata;
use toolscope_protocol::result::ErrorKind;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RegistryError {
    #[error("a tool with id '{0}' is already registered")]
    DuplicateTool(String),
    #[error("invalid tool id '{0}': use letters, digits, '-', '_' or '.', not empty")]
    InvalidToolId(String),
    #[error("invalid method name '{method}' in tool '{tool}': {reason}")]
    InvalidMethodName {
        tool: String,
        method: String,
        reason: &'static str,
    },
    #[error("tool '{tool}' lists method '{method}' twice")]
    DuplicateMethod { tool: String, method: String },
    #[error("parameters of '{tool}_{method}' must be a JSON Schema object, got {found}")]
    InvalidParameters {
        tool: String,
        method: String,
        found: &'static str,
    },
}

/// Why a routing name did not lead to a method.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct ResolveError {
    pub kind: ErrorKind,
    pub message: String,
}

/// A method as the registry keeps it: metadata plus what is derived from it once.
pub struct RegisteredMethod {
    pub tool_id: String,
    pub routing_name: String,
    pub meta: MethodMetadata,
    /// Lower-cased tool + method names and descriptions, for cheap filtering.
    search_text: String,
    validator: OnceLock<Result<Arc<jsonschema::Validator>, String>>,
}

impl RegisteredMethod {
    /// Whether `needle` (already lower-case) occurs in the method's names or descriptions.
    pub fn matches_lowercase(&self, needle: &str) -> bool {
        self.search_text.contains(needle)
    }

    /// The compiled argument schema, built on first use and kept. External `$ref`s are never
    /// fetched or read (see [`NeverFetch`]).
    pub fn validator(&self) -> Result<Arc<jsonschema::Validator>, String> {
        self.validator
            .get_or_init(|| {
                compile_schema(&self.meta.parameters)
                    .map(Arc::new)
                    .map_err(|e| format!("the method's parameter schema is invalid: {e}"))
            })
            .clone()
    }
}

/// Compiles a JSON Schema the way the registry does for arguments (external `$ref`s refused),
/// so a source can reject a schema before registering it.
pub fn compile_schema(schema: &serde_json::Value) -> Result<jsonschema::Validator, String> {
    jsonschema::options()
        .with_retriever(NeverFetch)
        .build(schema)
        .map_err(|e| e.to_string())
}

/// Refuses every `$ref` outside the schema itself. A tool's schema comes from a server or a
/// file we do not control; following its references would make the app fetch URLs and read
/// local files. jsonschema is built without its resolver features as well, but features unify
/// across a build, so the refusal is stated here, with a message that says why.
struct NeverFetch;

impl jsonschema::Retrieve for NeverFetch {
    fn retrieve(
        &self,
        uri: &jsonschema::Uri<String>,
    ) -> Result<serde_json::Value, Box<dyn std::error::Error + Send + Sync>> {
        Err(format!(
            "'{uri}' is not loaded: Toolscope never fetches a schema from the network or a file"
        )
        .into())
    }
}

impl std::fmt::Debug for RegisteredMethod {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RegisteredMethod")
            .field("routing_name", &self.routing_name)
            .finish_non_exhaustive()
    }
}

/// A tool as the registry keeps it.
pub struct RegisteredTool {
    pub id: String,
    pub name: String,
    pub description: String,
    pub source: ToolSource,
    pub methods: Vec<Arc<RegisteredMethod>>,
    pub tool: Arc<dyn Tool>,
}

impl RegisteredTool {
    pub fn method(&self, name: &str) -> Option<&Arc<RegisteredMethod>> {
        self.methods.iter().find(|m| m.meta.name == name)
    }

    /// The metadata snapshot as a plain [`ToolInfo`].
    pub fn info(&self) -> ToolInfo {
        ToolInfo {
            id: self.id.clone(),
            name: self.name.clone(),
            description: self.description.clone(),
            source: self.source,
            methods: self.methods.iter().map(|m| m.meta.clone()).collect(),
        }
    }
}

impl std::fmt::Debug for RegisteredTool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RegisteredTool")
            .field("id", &self.id)
            .field("methods", &self.methods)
            .finish_non_exhaustive()
    }
}

#[derive(Default)]
pub struct Registry {
    tools: RwLock<BTreeMap<String, Arc<RegisteredTool>>>,
    generation: AtomicU64,
}

impl std::fmt::Debug for Registry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Registry")
            .field("tools", &self.tool_ids())
            .finish()
    }
}

fn valid_tool_id(id: &str) -> bool {
    !id.is_empty()
        && id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
}

impl Registry {
    pub fn new() -> Self {
        Self::default()
    }

    /// Registers a tool under the id its metadata gives.
    pub fn register(&self, tool: Arc<dyn Tool>) -> Result<Arc<RegisteredTool>, RegistryError> {
        let registered = Arc::new(Self::snapshot(tool)?);
        let mut tools = self.write();
        if tools.contains_key(&registered.id) {
            return Err(RegistryError::DuplicateTool(registered.id.clone()));
        }
        tools.insert(registered.id.clone(), Arc::clone(&registered));
        self.generation.fetch_add(1, Ordering::SeqCst);
        Ok(registered)
    }

    /// Registers or replaces a tool (a provider refreshing its list).
    pub fn upsert(&self, tool: Arc<dyn Tool>) -> Result<Arc<RegisteredTool>, RegistryError> {
        let registered = Arc::new(Self::snapshot(tool)?);
        self.write()
            .insert(registered.id.clone(), Arc::clone(&registered));
        self.generation.fetch_add(1, Ordering::SeqCst);
        Ok(registered)
    }

    pub fn unregister(&self, tool_id: &str) -> bool {
        let removed = self.write().remove(tool_id).is_some();
        if removed {
            self.generation.fetch_add(1, Ordering::SeqCst);
        }
        removed
    }

    /// Changes whenever the set of tools changes.
    pub fn generation(&self) -> u64 {
        self.generation.load(Ordering::SeqCst)
    }

    pub fn get(&self, tool_id: &str) -> Option<Arc<RegisteredTool>> {
        self.read().get(tool_id).cloned()
    }

    /// All tools, ordered by id.
    pub fn tools(&self) -> Vec<Arc<RegisteredTool>> {
        self.read().values().cloned().collect()
    }

    pub fn tool_ids(&self) -> Vec<String> {
        self.read().keys().cloned().collect()
    }

    /// The argument schema of the method a routing name names, if it resolves (what a text
    /// format's values are typed from: [`toolscope_protocol::parser::type_arguments`]).
    pub fn parameters_of(&self, routing_name: &str) -> Option<serde_json::Value> {
        self.resolve(routing_name)
            .ok()
            .map(|(_, method)| method.meta.parameters.clone())
    }

    /// Resolves a routing name `{toolId}_{methodName}`, split at the last `_` (seed 000 §4.5).
    pub fn resolve(
        &self,
        routing_name: &str,
    ) -> Result<(Arc<RegisteredTool>, Arc<RegisteredMethod>), ResolveError> {
        let Some((tool_id, method_name)) = split_routing_name(routing_name) else {
            return Err(ResolveError {
                kind: ErrorKind::InvalidName,
                message: format!(
                    "'{routing_name}' is not a routing name: expected {{toolId}}_{{methodName}}"
                ),
            });
        };
        let Some(tool) = self.get(tool_id) else {
            return Err(ResolveError {
                kind: ErrorKind::ToolNotFound,
                message: format!(
                    "no tool with id '{tool_id}' is registered (known: {})",
                    self.tool_ids().join(", ")
                ),
            });
        };
        let Some(method) = tool.method(method_name).cloned() else {
            let known: Vec<&str> = tool.methods.iter().map(|m| m.meta.name.as_str()).collect();
            return Err(ResolveError {
                kind: ErrorKind::MethodNotFound,
                message: format!(
                    "tool '{tool_id}' has no method '{method_name}' (known: {})",
                    known.join(", ")
                ),
            });
        };
        Ok((tool, method))
    }

    fn snapshot(tool: Arc<dyn Tool>) -> Result<RegisteredTool, RegistryError> {
        let info = tool.info();
        if !valid_tool_id(&info.id) {
            return Err(RegistryError::InvalidToolId(info.id));
        }
        let mut methods: Vec<Arc<RegisteredMethod>> = Vec::with_capacity(info.methods.len());
        // A set, not a scan of `methods`: an imported set can hold thousands of methods.
        let mut names: std::collections::HashSet<String> =
            std::collections::HashSet::with_capacity(info.methods.len());
        for meta in info.methods {
            let reason = if meta.name.is_empty() {
                Some("it is empty")
            } else if meta.name.contains('_') {
                Some("'_' separates tool id and method name in routing names")
            } else if meta.name.chars().any(char::is_whitespace) {
                Some("it contains whitespace")
            } else {
                None
            };
            if let Some(reason) = reason {
                return Err(RegistryError::InvalidMethodName {
                    tool: info.id,
                    method: meta.name,
                    reason,
                });
            }
            if !meta.parameters.is_object() {
                return Err(RegistryError::InvalidParameters {
                    tool: info.id,
                    method: meta.name,
                    found: json_kind(&meta.parameters),
                });
            }
            if !names.insert(meta.name.clone()) {
                return Err(RegistryError::DuplicateMethod {
                    tool: info.id,
                    method: meta.name,
                });
            }
            let search_text = format!(
                "{}\n{}\n{}\n{}\n{}",
                info.id, info.name, meta.name, meta.description, info.description
            )
            .to_lowercase();
            methods.push(Arc::new(RegisteredMethod {
                tool_id: info.id.clone(),
                routing_name: format!("{}_{}", info.id, meta.name),
                meta,
                search_text,
                validator: OnceLock::new(),
            }));
        }
        Ok(RegisteredTool {
            id: info.id,
            name: info.name,
            description: info.description,
            source: info.source,
            methods,
            tool,
        })
    }

    fn read(&self) -> std::sync::RwLockReadGuard<'_, BTreeMap<String, Arc<RegisteredTool>>> {
        // A poisoned lock only means a writer panicked mid-insert of a whole Arc: the map is
        // still consistent, so keep serving it.
        self.tools.read().unwrap_or_else(|e| e.into_inner())
    }

    fn write(&self) -> std::sync::RwLockWriteGuard<'_, BTreeMap<String, Arc<RegisteredTool>>> {
        self.tools.write().unwrap_or_else(|e| e.into_inner())
    }
}

/// Splits at the last `_`; both halves must be non-empty.
pub fn split_routing_name(routing_name: &str) -> Option<(&str, &str)> {
    let (tool, method) = routing_name.rsplit_once('_')?;
    if tool.is_empty() || method.is_empty() {
        return None;
    }
    Some((tool, method))
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::tool::{BoxFuture, CallContext, ToolFailure};
    use serde_json::{json, Map, Value};
    use toolscope_protocol::method::Annotations;

    /// A tool defined by metadata only; its calls echo their arguments.
    pub(crate) struct FixtureTool(pub ToolInfo);

    impl Tool for FixtureTool {
        fn info(&self) -> ToolInfo {
            self.0.clone()
        }
        fn call<'a>(
            &'a self,
            _method: &'a str,
            args: Map<String, Value>,
            _ctx: CallContext,
        ) -> BoxFuture<'a, Result<Value, ToolFailure>> {
            Box::pin(async move { Ok(Value::Object(args)) })
        }
    }

    pub(crate) fn method(name: &str, callable: bool) -> MethodMetadata {
        MethodMetadata {
            name: name.into(),
            description: format!("does {name}"),
            parameters: json!({"type": "object"}),
            agent_callable: callable,
            protocol_config: None,
            annotations: Annotations::default(),
            output_schema: None,
        }
    }

    pub(crate) fn fixture(id: &str, methods: Vec<MethodMetadata>) -> Arc<dyn Tool> {
        Arc::new(FixtureTool(ToolInfo {
            id: id.into(),
            name: id.to_uppercase(),
            description: format!("the {id} tool"),
            source: ToolSource::Builtin,
            methods,
        }))
    }

    #[test]
    fn resolves_at_the_last_underscore() {
        let registry = Registry::new();
        registry
            .register(fixture("my_tool", vec![method("run", true)]))
            .expect("registers");
        let (tool, method) = registry.resolve("my_tool_run").expect("resolves");
        assert_eq!(tool.id, "my_tool");
        assert_eq!(method.routing_name, "my_tool_run");
    }

    #[test]
    fn classifies_resolution_failures() {
        let registry = Registry::new();
        registry
            .register(fixture("echo", vec![method("say", true)]))
            .expect("registers");
        for (name, kind) in [
            ("echosay", ErrorKind::InvalidName),
            ("_say", ErrorKind::InvalidName),
            ("echo_", ErrorKind::InvalidName),
            ("", ErrorKind::InvalidName),
            ("nope_say", ErrorKind::ToolNotFound),
            ("echo_shout", ErrorKind::MethodNotFound),
        ] {
            let err = registry.resolve(name).expect_err(name);
            assert_eq!(err.kind, kind, "{name}: {}", err.message);
        }
    }

    #[test]
    fn rejects_bad_registrations_and_bumps_generation() {
        let registry = Registry::new();
        let g0 = registry.generation();
        registry
            .register(fixture("a", vec![method("x", true)]))
            .expect("registers");
        assert!(registry.generation() > g0);
        assert_eq!(
            registry.register(fixture("a", vec![])).map(|_| ()),
            Err(RegistryError::DuplicateTool("a".into()))
        );
        assert!(matches!(
            registry.register(fixture("b", vec![method("has_underscore", true)])),
            Err(RegistryError::InvalidMethodName { .. })
        ));
        assert!(matches!(
            registry.register(fixture("c", vec![method("x", true), method("x", true)])),
            Err(RegistryError::DuplicateMethod { .. })
        ));
        assert!(matches!(
            registry.register(fixture("bad id", vec![])),
            Err(RegistryError::InvalidToolId(_))
        ));
        let mut bad = method("y", true);
        bad.parameters = json!("string");
        assert!(matches!(
            registry.register(fixture("d", vec![bad])),
            Err(RegistryError::InvalidParameters { .. })
        ));
        let g1 = registry.generation();
        assert!(registry.unregister("a"));
        assert!(!registry.unregister("a"));
        assert!(registry.generation() > g1);
    }

    #[test]
    fn invalid_schema_is_reported_on_use() {
        let registry = Registry::new();
        let mut m = method("x", true);
        m.parameters = json!({"type": "no-such-type"});
        registry
            .register(fixture("t", vec![m]))
            .expect("shape is an object");
        let (_, method) = registry.resolve("t_x").expect("resolves");
        assert!(method.validator().is_err());
    }
}
