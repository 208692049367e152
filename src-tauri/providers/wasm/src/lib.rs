//! Toolscope WASM tools (seed 002): tools whose methods are functions of a WebAssembly module,
//! run in a sandbox.
//!
//! A tool is a directory with a manifest ([`manifest`]) and a `.wasm`. [`WasmRuntime`] compiles
//! each module once and checks it against its manifest; every call gets a fresh instance
//! ([`abi`]) with a memory cap, epoch interruption and only the WASI access its manifest asked
//! for and a person approved ([`grants`]). [`WasmToolSet`] keeps directories of such tools in
//! sync with the engine's registry, with per-file problems and hot reload.

pub mod abi;
pub mod grants;
pub mod manifest;
mod read;
pub mod runtime;
mod sandbox;
mod store;
mod tool;
pub mod toolset;

pub use grants::{DirectoryGrant, Grants};
pub use manifest::{Manifest, WasmToolSpec};
pub use read::PendingGrants;
pub use runtime::{LoadProblem, ModuleDigest, PreparedModule, RuntimeError, WasmRuntime};
pub use tool::WasmTool;
pub use toolset::{ToolSetError, WasmToolSet};
