//! Discovery: what a model may call, and the prompt that tells it so (seed 000 §4.3).
//!
//! Listing works on the registry's `Arc` snapshots (no metadata is cloned while filtering, so
//! 10,000 methods filter in well under a millisecond). Prompts are cached by
//! `protocol | agent id | stable config hash`; an entry also remembers the registry generation
//! it was built from, so a registry change makes it stale even if nobody invalidates explicitly.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use serde::ser::{SerializeStruct, Serializer};
use serde::Serialize;

use crate::config::ToolCallConfig;
use crate::registry::{RegisteredMethod, Registry};
use crate::types::ToolSource;
use toolscope_protocol::{ProtocolSet, ToolDefinitionInput};

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DiscoveryError {
    #[error("unknown protocol '{requested}' (known: {known})")]
    UnknownProtocol { requested: String, known: String },
}

/// Which methods to list. The default lists agent-callable methods of every tool.
#[derive(Debug, Clone, Default)]
pub struct MethodFilter {
    /// Whitespace-separated terms; each must occur (case-insensitively) in the tool id, tool
    /// name, method name or a description.
    pub query: Option<String>,
    /// Also list methods a model may not call (for the UI's "show all").
    pub include_non_callable: bool,
    pub source: Option<ToolSource>,
}

/// A tool with the methods that passed the filter.
#[derive(Debug, Clone)]
pub struct DiscoveredTool {
    pub tool_id: String,
    pub tool_name: String,
    pub description: String,
    pub source: ToolSource,
    pub methods: Vec<Arc<RegisteredMethod>>,
}

impl Serialize for DiscoveredTool {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        struct MethodView<'a> {
            routing_name: &'a str,
            #[serde(flatten)]
            meta: &'a toolscope_protocol::method::MethodMetadata,
        }
        let methods: Vec<MethodView<'_>> = self
            .methods
            .iter()
            .map(|m| MethodView {
                routing_name: &m.routing_name,
                meta: &m.meta,
            })
            .collect();
        let mut s = serializer.serialize_struct("DiscoveredTool", 5)?;
        s.serialize_field("tool_id", &self.tool_id)?;
        s.serialize_field("tool_name", &self.tool_name)?;
        s.serialize_field("description", &self.description)?;
        s.serialize_field("source", &self.source)?;
        s.serialize_field("methods", &methods)?;
        s.end()
    }
}

struct CachedPrompt {
    generation: u64,
    text: Arc<str>,
}

pub struct Discovery {
    registry: Arc<Registry>,
    /// Replaced when declared formats change ([`Discovery::set_protocols`]).
    protocols: std::sync::RwLock<ProtocolSet>,
    cache: Mutex<HashMap<String, CachedPrompt>>,
}

impl std::fmt::Debug for Discovery {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Discovery")
            .field("protocols", &self.protocols)
            .finish_non_exhaustive()
    }
}

impl Discovery {
    pub fn new(registry: Arc<Registry>, protocols: ProtocolSet) -> Self {
        Self {
            registry,
            protocols: std::sync::RwLock::new(protocols),
            cache: Mutex::new(HashMap::new()),
        }
    }

    pub fn registry(&self) -> &Arc<Registry> {
        &self.registry
    }

    pub fn protocols(&self) -> ProtocolSet {
        self.protocols
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone()
    }

    /// Replaces the formats prompts are generated for (declared formats were edited), and
    /// drops the cached prompts: a declared format's preamble may have changed under its id.
    pub fn set_protocols(&self, protocols: ProtocolSet) {
        *self
            .protocols
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = protocols;
        self.invalidate_cache();
    }

    /// Tools with their matching methods; tools left with no method are omitted.
    pub fn discovered_methods(&self, filter: &MethodFilter) -> Vec<DiscoveredTool> {
        let terms: Vec<String> = filter
            .query
            .as_deref()
            .unwrap_or("")
            .split_whitespace()
            .map(str::to_lowercase)
            .collect();
        self.registry
            .tools()
            .into_iter()
            .filter(|tool| filter.source.is_none_or(|s| s == tool.source))
            .filter_map(|tool| {
                let methods: Vec<Arc<RegisteredMethod>> = tool
                    .methods
                    .iter()
                    .filter(|m| filter.include_non_callable || m.meta.agent_callable)
                    .filter(|m| terms.iter().all(|t| m.matches_lowercase(t)))
                    .cloned()
                    .collect();
                (!methods.is_empty()).then(|| DiscoveredTool {
                    tool_id: tool.id.clone(),
                    tool_name: tool.name.clone(),
                    description: tool.description.clone(),
                    source: tool.source,
                    methods,
                })
            })
            .collect()
    }

    /// The enabled tools with their agent-callable methods, as protocols receive them.
    pub fn enabled_tools(&self, config: &ToolCallConfig) -> Vec<ToolDefinitionInput> {
        if !config.enabled {
            return Vec::new();
        }
        self.discovered_methods(&MethodFilter::default())
            .into_iter()
            .filter(|tool| config.is_tool_enabled(&tool.tool_id))
            .map(|tool| ToolDefinitionInput {
                methods: tool.methods.iter().map(|m| m.meta.clone()).collect(),
                tool_id: tool.tool_id,
                tool_name: tool.tool_name,
                description: tool.description,
            })
            .collect()
    }

    /// The tool-definition prompt for `protocol_id`, from the cache when it is current.
    pub fn generate_prompt(
        &self,
        protocol_id: &str,
        config: &ToolCallConfig,
        agent_id: Option<&str>,
    ) -> Result<Arc<str>, DiscoveryError> {
        let protocols = self.protocols();
        let protocol =
            protocols
                .get(protocol_id)
                .ok_or_else(|| DiscoveryError::UnknownProtocol {
                    requested: protocol_id.to_owned(),
                    known: protocols.ids().join(", "),
                })?;
        let key = Self::cache_key(protocol.id(), agent_id, config);
        let generation = self.registry.generation();
        if let Some(hit) = self.lock_cache().get(&key) {
            if hit.generation == generation {
                return Ok(Arc::clone(&hit.text));
            }
        }
        let text: Arc<str> = if config.enabled {
            protocol
                .generate_tool_definitions(&self.enabled_tools(config))
                .into()
        } else {
            Arc::from("")
        };
        self.lock_cache().insert(
            key,
            CachedPrompt {
                generation,
                text: Arc::clone(&text),
            },
        );
        Ok(text)
    }

    /// Drops every cached prompt (the registry or a provider's metadata changed).
    pub fn invalidate_cache(&self) {
        self.lock_cache().clear();
    }

    pub fn cached_prompt_count(&self) -> usize {
        self.lock_cache().len()
    }

    /// `protocol|agent|stable config hash` (seed 000 §4.3).
    pub fn cache_key(protocol_id: &str, agent_id: Option<&str>, config: &ToolCallConfig) -> String {
        format!(
            "{protocol_id}|{}|{:016x}",
            agent_id.unwrap_or("default"),
            config.stable_hash()
        )
    }

    fn lock_cache(&self) -> std::sync::MutexGuard<'_, HashMap<String, CachedPrompt>> {
        // The cache holds only derived data; a poisoned lock is still safe to use.
        self.cache.lock().unwrap_or_else(|e| e.into_inner())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::registry::tests::{fixture, method};

    fn setup() -> Discovery {
        let registry = Arc::new(Registry::new());
        registry
            .register(fixture(
                "echo",
                vec![method("say", true), method("secret", false)],
            ))
            .expect("registers");
        registry
            .register(fixture("calculator", vec![method("evaluate", true)]))
            .expect("registers");
        Discovery::new(registry, ProtocolSet::standard())
    }

    fn routing_names(tools: &[DiscoveredTool]) -> Vec<String> {
        tools
            .iter()
            .flat_map(|t| t.methods.iter().map(|m| m.routing_name.clone()))
            .collect()
    }

    #[test]
    fn lists_only_agent_callable_unless_asked() {
        let discovery = setup();
        let names = routing_names(&discovery.discovered_methods(&MethodFilter::default()));
        assert_eq!(names, ["calculator_evaluate", "echo_say"]);
        let all = discovery.discovered_methods(&MethodFilter {
            include_non_callable: true,
            ..Default::default()
        });
        assert_eq!(
            routing_names(&all),
            ["calculator_evaluate", "echo_say", "echo_secret"]
        );
    }

    #[test]
    fn filters_by_all_terms_case_insensitively() {
        let discovery = setup();
        let filter = |q: &str| MethodFilter {
            query: Some(q.into()),
            ..Default::default()
        };
        assert_eq!(
            routing_names(&discovery.discovered_methods(&filter("ECHO"))),
            ["echo_say"]
        );
        assert_eq!(
            routing_names(&discovery.discovered_methods(&filter("does evaluate"))),
            ["calculator_evaluate"]
        );
        assert!(discovery.discovered_methods(&filter("zzz")).is_empty());
        let by_source = discovery.discovered_methods(&MethodFilter {
            source: Some(ToolSource::Mcp),
            ..Default::default()
        });
        assert!(by_source.is_empty());
    }

    #[test]
    fn prompt_respects_toggles_and_enabled() {
        let discovery = setup();
        let mut config = ToolCallConfig::default();
        config.tool_toggles.insert("echo".into(), false);
        let prompt = discovery
            .generate_prompt("vcp", &config, None)
            .expect("known protocol");
        assert!(prompt.contains("calculator_evaluate"));
        assert!(!prompt.contains("echo_say"));
        assert!(!prompt.contains("echo_secret"));
        config.enabled = false;
        let prompt = discovery
            .generate_prompt("vcp", &config, None)
            .expect("known protocol");
        assert!(prompt.is_empty());
        assert!(matches!(
            discovery.generate_prompt("nope", &config, None),
            Err(DiscoveryError::UnknownProtocol { .. })
        ));
    }

    #[test]
    fn prompt_cache_hits_and_invalidates() {
        let discovery = setup();
        let config = ToolCallConfig::default();
        let first = discovery
            .generate_prompt("vcp", &config, Some("agent-1"))
            .expect("prompt");
        let second = discovery
            .generate_prompt("vcp", &config, Some("agent-1"))
            .expect("prompt");
        assert!(Arc::ptr_eq(&first, &second), "second call is a cache hit");
        discovery
            .generate_prompt("vcp", &config, Some("agent-2"))
            .expect("prompt");
        assert_eq!(discovery.cached_prompt_count(), 2);

        // A registry change makes the entry stale without explicit invalidation.
        discovery
            .registry()
            .register(fixture("time", vec![method("now", true)]))
            .expect("registers");
        let third = discovery
            .generate_prompt("vcp", &config, Some("agent-1"))
            .expect("prompt");
        assert!(!Arc::ptr_eq(&first, &third));
        assert!(third.contains("time_now"));

        discovery.invalidate_cache();
        assert_eq!(discovery.cached_prompt_count(), 0);
        let fourth = discovery
            .generate_prompt("vcp", &config, Some("agent-1"))
            .expect("prompt");
        assert!(!Arc::ptr_eq(&third, &fourth));
        assert_eq!(third, fourth);
    }

    #[test]
    fn cache_key_has_the_seed_shape() {
        let key = Discovery::cache_key("vcp", None, &ToolCallConfig::default());
        let parts: Vec<&str> = key.split('|').collect();
        assert_eq!(parts.len(), 3);
        assert_eq!(parts[0], "vcp");
        assert_eq!(parts[1], "default");
        assert_eq!(parts[2].len(), 16);
    }
}
