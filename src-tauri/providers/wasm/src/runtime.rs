//! The WebAssembly engine shared by every WASM tool: compiling, checking and caching modules.
//!
//! Why one runtime: compiling a module is the expensive part (milliseconds to seconds), so it
//! happens once per distinct module (cached by content) and yields an `InstancePre` whose
//! imports are already resolved; a call then only instantiates (microseconds). Interruption is
//! by epochs, not fuel: fuel slows every instruction down, while an epoch check is a load and
//! a compare at loop heads. A ticker thread advances the epoch every [`TICK`] while at least one
//! call runs, and each store's deadline callback stops its module once the call was abandoned
//! (the executor's timeout or a cancel).

use std::collections::hash_map::DefaultHasher;
use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::sync::{Arc, Condvar, Mutex, Weak};
use std::time::Duration;

use wasmtime::{Config, Engine, ExternType, InstancePre, Linker, Module, ValType};

use crate::manifest::{Entry, WasmToolSpec};
use crate::sandbox::StoreState;

/// How often the epoch advances while calls run: the longest a cancelled module keeps running.
pub const TICK: Duration = Duration::from_millis(10);

/// The runtime could not be created (the host's CPU or OS is not supported by the compiler).
#[derive(Debug, thiserror::Error)]
#[error("cannot set up the WebAssembly runtime: {0}")]
pub struct RuntimeError(String);

/// Why a module cannot be loaded for a manifest. `field` names the manifest field at fault.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoadProblem {
    pub field: Option<String>,
    pub message: String,
}

impl LoadProblem {
    fn module(message: impl Into<String>) -> Self {
        Self {
            field: Some("module".to_owned()),
            message: message.into(),
        }
    }

    fn at(field: impl Into<String>, message: impl Into<String>) -> Self {
        Self {
            field: Some(field.into()),
            message: message.into(),
        }
    }
}

/// Identifies a module's bytes in the cache. SipHash of the content plus its length; a
/// collision would need two different modules of the same length with the same 64-bit hash.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ModuleDigest {
    hash: u64,
    len: usize,
}

impl ModuleDigest {
    pub fn of(bytes: &[u8]) -> Self {
        let mut hasher = DefaultHasher::new();
        bytes.hash(&mut hasher);
        Self {
            hash: hasher.finish(),
            len: bytes.len(),
        }
    }

    /// Bytes that change when the module does (part of a file's revision in the tool set).
    pub fn to_bytes(self) -> [u8; 16] {
        let mut out = [0u8; 16];
        out[..8].copy_from_slice(&self.hash.to_le_bytes());
        out[8..].copy_from_slice(&(self.len as u64).to_le_bytes());
        out
    }
}

/// A module checked against a manifest, ready to instantiate once per call.
pub struct PreparedModule {
    pub(crate) runtime: WasmRuntime,
    pub(crate) pre: InstancePre<StoreState>,
    /// Whether `free` takes the size too (`(ptr, size)`) or only the pointer.
    pub(crate) free_takes_size: Option<bool>,
}

impl std::fmt::Debug for PreparedModule {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PreparedModule")
            .field("free_takes_size", &self.free_takes_size)
            .finish_non_exhaustive()
    }
}

struct Shared {
    engine: Engine,
    linker: Linker<StoreState>,
    modules: Mutex<HashMap<ModuleDigest, Module>>,
    ticker: Arc<Ticker>,
}

/// The engine, the WASI linker and the module cache; cheap to clone.
#[derive(Clone)]
pub struct WasmRuntime {
    shared: Arc<Shared>,
}

impl std::fmt::Debug for WasmRuntime {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WasmRuntime").finish_non_exhaustive()
    }
}

impl WasmRuntime {
    pub fn new() -> Result<Self, RuntimeError> {
        let mut config = Config::new();
        config.epoch_interruption(true);
        let engine = Engine::new(&config).map_err(|e| RuntimeError(e.to_string()))?;
        let mut linker: Linker<StoreState> = Linker::new(&engine);
        wasmtime_wasi::p1::add_to_linker_sync(&mut linker, |state: &mut StoreState| {
            &mut state.wasi
        })
        .map_err(|e| RuntimeError(e.to_string()))?;
        let ticker = Ticker::start(engine.clone());
        Ok(Self {
            shared: Arc::new(Shared {
                engine,
                linker,
                modules: Mutex::new(HashMap::new()),
                ticker,
            }),
        })
    }

    pub(crate) fn engine(&self) -> &Engine {
        &self.shared.engine
    }

    /// Marks a call as running, so the epoch advances until the guard is dropped.
    pub(crate) fn running(&self) -> RunningCall {
        self.shared.ticker.enter();
        RunningCall {
            ticker: Arc::clone(&self.shared.ticker),
        }
    }

    /// How many distinct modules are compiled and cached.
    pub fn cached_modules(&self) -> usize {
        self.lock_modules().len()
    }

    /// Compiles `bytes` (or takes the cached module with the same digest), checks that it has
    /// what `spec` needs (memory, allocator, each method's function with the ABI's signature,
    /// imports only from WASI preview 1) and resolves its imports.
    pub fn prepare(
        &self,
        spec: &WasmToolSpec,
        bytes: &[u8],
        digest: ModuleDigest,
    ) -> Result<PreparedModule, LoadProblem> {
        let module = self.compile(bytes, digest)?;
        let free_takes_size = check_exports(&module, spec)?;
        check_memory(&module, spec)?;
        let pre = self.shared.linker.instantiate_pre(&module).map_err(|e| {
            LoadProblem::module(format!(
                "{e}; a module may import only WASI preview 1 (wasi_snapshot_preview1)"
            ))
        })?;
        Ok(PreparedModule {
            runtime: self.clone(),
            pre,
            free_takes_size,
        })
    }

    fn compile(&self, bytes: &[u8], digest: ModuleDigest) -> Result<Module, LoadProblem> {
        if let Some(module) = self.lock_modules().get(&digest) {
            return Ok(module.clone());
        }
        // Compiled outside the lock: other tools' loads need not wait for this one.
        let module = Module::new(&self.shared.engine, bytes)
            .map_err(|e| LoadProblem::module(format!("not a valid WebAssembly module: {e:#}")))?;
        let mut modules = self.lock_modules();
        // Keep the cache to what is loaded now plus this one: old versions are not reused.
        if modules.len() >= 256 {
            modules.clear();
        }
        modules.insert(digest, module.clone());
        Ok(module)
    }

    fn lock_modules(&self) -> std::sync::MutexGuard<'_, HashMap<ModuleDigest, Module>> {
        self.shared
            .modules
            .lock()
            .unwrap_or_else(|e| e.into_inner())
    }
}

fn is_i32s(types: impl ExactSizeIterator<Item = ValType>, count: usize) -> bool {
    types.len() == count && types.into_iter().all(|t| matches!(t, ValType::I32))
}

/// The ABI's method signature, `(i32, i32, i32, i32) -> i32`.
pub(crate) fn is_method_signature(ty: &wasmtime::FuncType) -> bool {
    is_i32s(ty.params(), 4) && is_i32s(ty.results(), 1)
}

fn check_exports(module: &Module, spec: &WasmToolSpec) -> Result<Option<bool>, LoadProblem> {
    let export = |name: &str| module.exports().find(|e| e.name() == name).map(|e| e.ty());
    match export("memory") {
        Some(ExternType::Memory(_)) => {}
        _ => {
            return Err(LoadProblem::module(
                "the module does not export its memory as 'memory'",
            ))
        }
    }
    let alloc = &spec.allocator.alloc;
    match export(alloc) {
        Some(ExternType::Func(ty)) if is_i32s(ty.params(), 1) && is_i32s(ty.results(), 1) => {}
        Some(_) => {
            return Err(LoadProblem::at(
                "allocator.alloc",
                format!("'{alloc}' must be a function (size: i32) -> i32"),
            ))
        }
        None => {
            return Err(LoadProblem::at(
                "allocator.alloc",
                format!("the module does not export the allocator function '{alloc}'"),
            ))
        }
    }
    let free = &spec.allocator.free;
    let free_takes_size = match export(free) {
        None => None,
        Some(ExternType::Func(ty)) if is_i32s(ty.params(), 2) && ty.results().len() == 0 => {
            Some(true)
        }
        Some(ExternType::Func(ty)) if is_i32s(ty.params(), 1) && ty.results().len() == 0 => {
            Some(false)
        }
        Some(_) => {
            return Err(LoadProblem::at(
                "allocator.free",
                format!("'{free}' must be a function (ptr: i32, size: i32) or (ptr: i32)"),
            ))
        }
    };
    let has_table = module
        .exports()
        .any(|e| matches!(e.ty(), ExternType::Table(_)));
    for (index, (_, entry)) in spec.entries.iter().enumerate() {
        let field = format!("methods[{index}].export");
        match entry {
            Entry::Export(name) => match export(name) {
                Some(ExternType::Func(ty)) if is_method_signature(&ty) => {}
                Some(ExternType::Func(_)) => {
                    return Err(LoadProblem::at(
                        field,
                        format!(
                            "'{name}' must have the signature (args_ptr: i32, args_len: i32, \
                             out_ptr: i32, out_len_ptr: i32) -> i32"
                        ),
                    ))
                }
                _ => {
                    return Err(LoadProblem::at(
                        field,
                        format!("the module does not export a function named '{name}'"),
                    ))
                }
            },
            // The entry itself is only known once instantiated: checked at each call.
            Entry::TableIndex(_) if !has_table => {
                return Err(LoadProblem::at(
                    format!("methods[{index}].table_index"),
                    "the module exports no function table",
                ))
            }
            Entry::TableIndex(_) => {}
        }
    }
    Ok(free_takes_size)
}

fn check_memory(module: &Module, spec: &WasmToolSpec) -> Result<(), LoadProblem> {
    let minimum = module.exports().find_map(|e| match e.ty() {
        ExternType::Memory(memory) if e.name() == "memory" => {
            Some(memory.minimum().saturating_mul(memory.page_size()))
        }
        _ => None,
    });
    match minimum {
        Some(bytes) if bytes > spec.limits.max_memory_bytes as u64 => Err(LoadProblem::at(
            "limits.max_memory_mib",
            format!(
                "the module starts with {} MiB of memory, more than the cap of {} MiB",
                bytes.div_ceil(1024 * 1024),
                spec.limits.max_memory_bytes / (1024 * 1024)
            ),
        )),
        _ => Ok(()),
    }
}

/// Held while a call runs; the epoch keeps advancing until every guard is gone.
pub(crate) struct RunningCall {
    ticker: Arc<Ticker>,
}

impl Drop for RunningCall {
    fn drop(&mut self) {
        self.ticker.leave();
    }
}

/// Advances the engine's epoch every [`TICK`] while calls run, and sleeps otherwise.
struct Ticker {
    running: Mutex<usize>,
    wake: Condvar,
}

impl Ticker {
    fn start(engine: Engine) -> Arc<Self> {
        let ticker = Arc::new(Self {
            running: Mutex::new(0),
            wake: Condvar::new(),
        });
        let weak = Arc::downgrade(&ticker);
        // The thread holds only a weak reference: it ends soon after the runtime is dropped.
        let spawned = std::thread::Builder::new()
            .name("wasm-epoch".to_owned())
            .spawn(move || tick(&weak, &engine));
        if spawned.is_err() {
            // Without the thread no call could ever be interrupted; loads still work, and each
            // call's own deadline callback notices a cancel at the next epoch it sees.
            eprintln!(
                "toolscope: cannot start the WASM epoch thread; runaway modules cannot be stopped"
            );
        }
        ticker
    }

    fn enter(&self) {
        *self.lock() += 1;
        self.wake.notify_one();
    }

    fn leave(&self) {
        let mut running = self.lock();
        *running = running.saturating_sub(1);
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, usize> {
        self.running.lock().unwrap_or_else(|e| e.into_inner())
    }
}

fn tick(ticker: &Weak<Ticker>, engine: &Engine) {
    loop {
        let Some(strong) = ticker.upgrade() else {
            return;
        };
        {
            let running = strong.lock();
            if *running == 0 {
                // Re-check the weak reference at least once a second.
                let _ = strong
                    .wake
                    .wait_timeout(running, Duration::from_secs(1))
                    .unwrap_or_else(|e| e.into_inner());
                continue;
            }
        }
        drop(strong);
        std::thread::sleep(TICK);
        engine.increment_epoch();
    }
}
