//! The manifest of a WASM tool: `manifest.toml` or `manifest.json` beside its `.wasm`.
//!
//! Everything a person can write in a manifest is spelled out here as serde types with
//! `deny_unknown_fields`, so a typo (`max_memory_mb`) is an error with its field path, not a
//! silently ignored key. [`compile`] checks a [`Manifest`] and yields a [`WasmToolSpec`]: the
//! tool's metadata for the registry plus, per method, which function it calls.

use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde_json::Value;
use toolscope_engine::file_tools::document::{
    check_method_name, check_tool_id, AnnotationsDefinition, FieldError,
};
use toolscope_engine::types::{ToolInfo, ToolSource};
use toolscope_protocol::method::MethodMetadata;

use crate::grants::{resolve_host_path, DirectoryGrant, Grants};

/// Default memory cap of one call (MiB).
pub const DEFAULT_MAX_MEMORY_MIB: u32 = 64;
/// Default cap on one result (seed 002's `max_tool_output_bytes`).
pub const DEFAULT_MAX_OUTPUT_BYTES: u32 = 64 * 1024;
/// Default size of the first output buffer offered to a method.
pub const DEFAULT_INITIAL_OUTPUT_BYTES: u32 = 4096;
/// wasm32 cannot address more than 4 GiB.
const MAX_MEMORY_MIB: u32 = 4096;
/// A result larger than this is not something a model should be shown.
const MAX_OUTPUT_BYTES: u32 = 64 * 1024 * 1024;

/// The file names a tool directory's manifest may have, in the order they are looked for.
pub const MANIFEST_NAMES: [&str; 2] = ["manifest.toml", "manifest.json"];

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Manifest {
    /// Tool id: letters, digits, `-`, `_`, `.`.
    pub id: String,
    #[serde(default)]
    pub name: String,
    #[serde(default)]
    pub description: String,
    #[serde(default = "yes")]
    pub enabled: bool,
    /// The module file, relative to the manifest's directory.
    pub module: String,
    #[serde(default)]
    pub allocator: AllocatorDefinition,
    #[serde(default)]
    pub limits: LimitsDefinition,
    #[serde(default)]
    pub grants: GrantsDefinition,
    pub methods: Vec<MethodDefinition>,
}

/// The module's allocator exports (seed 002: the host allocates the buffers in guest memory).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AllocatorDefinition {
    /// `(size: i32) -> i32`; 0 means the allocation failed.
    #[serde(default = "alloc_name")]
    pub alloc: String,
    /// `(ptr: i32, size: i32)` or `(ptr: i32)`; optional in the module.
    #[serde(default = "free_name")]
    pub free: String,
}

impl Default for AllocatorDefinition {
    fn default() -> Self {
        Self {
            alloc: alloc_name(),
            free: free_name(),
        }
    }
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LimitsDefinition {
    pub max_memory_mib: Option<u32>,
    pub max_output_bytes: Option<u32>,
    pub initial_output_bytes: Option<u32>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GrantsDefinition {
    #[serde(default)]
    pub env: Vec<String>,
    #[serde(default)]
    pub dirs: Vec<DirectoryGrantDefinition>,
}

#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DirectoryGrantDefinition {
    pub host: String,
    pub guest: String,
    #[serde(default)]
    pub writable: bool,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MethodDefinition {
    /// No `_` (routing names `{toolId}_{methodName}` split at the last `_`).
    pub name: String,
    #[serde(default)]
    pub description: String,
    /// The exported function called, `(args_ptr, args_len, out_ptr, out_len_ptr) -> i32`.
    #[serde(default)]
    pub export: Option<String>,
    /// Or, as seed 002 registers tools, an index into the module's function table.
    #[serde(default)]
    pub table_index: Option<u32>,
    #[serde(default = "object_schema")]
    pub parameters: Value,
    #[serde(default)]
    pub annotations: Option<AnnotationsDefinition>,
    #[serde(default = "yes")]
    pub agent_callable: bool,
    #[serde(default)]
    pub output_schema: Option<Value>,
}

/// Which function a method runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Entry {
    Export(String),
    TableIndex(u32),
}

impl std::fmt::Display for Entry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Export(name) => write!(f, "export '{name}'"),
            Self::TableIndex(index) => write!(f, "table entry {index}"),
        }
    }
}

/// The limits of every call, resolved from the manifest and the defaults.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    pub max_memory_bytes: usize,
    pub max_output_bytes: u32,
    pub initial_output_bytes: u32,
}

/// A checked manifest, ready to load.
#[derive(Debug, Clone, PartialEq)]
pub struct WasmToolSpec {
    pub info: ToolInfo,
    pub enabled: bool,
    pub module_path: PathBuf,
    pub allocator: AllocatorDefinition,
    pub limits: Limits,
    pub grants: Grants,
    /// Method name → entry, in the order of `info.methods`.
    pub entries: Vec<(String, Entry)>,
}

impl WasmToolSpec {
    pub fn id(&self) -> &str {
        &self.info.id
    }

    pub fn entry(&self, method: &str) -> Option<&Entry> {
        self.entries
            .iter()
            .find(|(name, _)| name == method)
            .map(|(_, entry)| entry)
    }
}

fn field_error(field: impl Into<String>, message: impl Into<String>) -> FieldError {
    FieldError {
        field: field.into(),
        message: message.into(),
    }
}

/// Checks a manifest read from `tool_directory`.
pub fn compile(manifest: &Manifest, tool_directory: &Path) -> Result<WasmToolSpec, FieldError> {
    check_tool_id(&manifest.id)?;
    if manifest.module.trim().is_empty() {
        return Err(field_error(
            "module",
            "name the .wasm file (relative to the manifest)",
        ));
    }
    if manifest.methods.is_empty() {
        return Err(field_error("methods", "a tool needs at least one method"));
    }
    let limits = compile_limits(&manifest.limits)?;
    let grants = compile_grants(&manifest.grants, tool_directory)?;
    let mut methods = Vec::with_capacity(manifest.methods.len());
    let mut entries = Vec::with_capacity(manifest.methods.len());
    for (index, method) in manifest.methods.iter().enumerate() {
        let at = format!("methods[{index}]");
        check_method_name(&format!("{at}.name"), &method.name)?;
        if let Some(first) = manifest.methods[..index]
            .iter()
            .position(|m| m.name == method.name)
        {
            return Err(field_error(
                format!("{at}.name"),
                format!("'{}' is already the name of methods[{first}]", method.name),
            ));
        }
        let entry = match (&method.export, method.table_index) {
            (Some(export), None) if !export.is_empty() => Entry::Export(export.clone()),
            (None, Some(index)) => Entry::TableIndex(index),
            (Some(_), Some(_)) => {
                return Err(field_error(
                    format!("{at}.export"),
                    "give either export or table_index, not both",
                ))
            }
            _ => {
                return Err(field_error(
                    format!("{at}.export"),
                    "name the exported function this method calls (or its table_index)",
                ))
            }
        };
        for (key, schema) in [
            ("parameters", Some(&method.parameters)),
            ("output_schema", method.output_schema.as_ref()),
        ] {
            if schema.is_some_and(|s| !s.is_object()) {
                return Err(field_error(
                    format!("{at}.{key}"),
                    "must be a JSON Schema object such as {\"type\": \"object\"}",
                ));
            }
        }
        methods.push(MethodMetadata {
            name: method.name.clone(),
            description: method.description.clone(),
            parameters: method.parameters.clone(),
            agent_callable: method.agent_callable,
            protocol_config: None,
            annotations: method
                .annotations
                .clone()
                .map(Into::into)
                .unwrap_or_default(),
            output_schema: method.output_schema.clone(),
        });
        entries.push((method.name.clone(), entry));
    }
    Ok(WasmToolSpec {
        info: ToolInfo {
            id: manifest.id.clone(),
            name: if manifest.name.is_empty() {
                manifest.id.clone()
            } else {
                manifest.name.clone()
            },
            description: manifest.description.clone(),
            source: ToolSource::Wasm,
            methods,
        },
        enabled: manifest.enabled,
        module_path: tool_directory.join(&manifest.module),
        allocator: manifest.allocator.clone(),
        limits,
        grants,
        entries,
    })
}

fn compile_limits(limits: &LimitsDefinition) -> Result<Limits, FieldError> {
    let memory_mib = limits.max_memory_mib.unwrap_or(DEFAULT_MAX_MEMORY_MIB);
    if !(1..=MAX_MEMORY_MIB).contains(&memory_mib) {
        return Err(field_error(
            "limits.max_memory_mib",
            format!("must be between 1 and {MAX_MEMORY_MIB}"),
        ));
    }
    let max_output = limits.max_output_bytes.unwrap_or(DEFAULT_MAX_OUTPUT_BYTES);
    if !(1..=MAX_OUTPUT_BYTES).contains(&max_output) {
        return Err(field_error(
            "limits.max_output_bytes",
            format!("must be between 1 and {MAX_OUTPUT_BYTES}"),
        ));
    }
    let initial = match limits.initial_output_bytes {
        Some(0) => {
            return Err(field_error(
                "limits.initial_output_bytes",
                "must be more than 0",
            ))
        }
        Some(n) if n > max_output => {
            return Err(field_error(
                "limits.initial_output_bytes",
                format!("must not exceed max_output_bytes ({max_output})"),
            ))
        }
        Some(n) => n,
        None => DEFAULT_INITIAL_OUTPUT_BYTES.min(max_output),
    };
    Ok(Limits {
        max_memory_bytes: memory_mib as usize * 1024 * 1024,
        max_output_bytes: max_output,
        initial_output_bytes: initial,
    })
}

fn compile_grants(grants: &GrantsDefinition, tool_directory: &Path) -> Result<Grants, FieldError> {
    for (index, name) in grants.env.iter().enumerate() {
        if name.is_empty() || name.contains('=') || name.contains('\0') {
            return Err(field_error(
                format!("grants.env[{index}]"),
                "must be an environment variable name",
            ));
        }
    }
    let mut dirs = Vec::with_capacity(grants.dirs.len());
    for (index, dir) in grants.dirs.iter().enumerate() {
        if dir.host.trim().is_empty() {
            return Err(field_error(
                format!("grants.dirs[{index}].host"),
                "must be a path",
            ));
        }
        if dir.guest.trim().is_empty() {
            return Err(field_error(
                format!("grants.dirs[{index}].guest"),
                "must be the path the module opens (such as /data)",
            ));
        }
        dirs.push(DirectoryGrant {
            host: resolve_host_path(tool_directory, &dir.host),
            guest: dir.guest.clone(),
            writable: dir.writable,
        });
    }
    Ok(Grants {
        env: grants.env.clone(),
        dirs,
    })
}

fn yes() -> bool {
    true
}

fn alloc_name() -> String {
    "alloc".to_owned()
}

fn free_name() -> String {
    "free".to_owned()
}

fn object_schema() -> Value {
    serde_json::json!({ "type": "object" })
}
