//! Seed 002's tool ABI, implemented exactly, with every way a module can break it classified.
//!
//! A method is `(args_ptr, args_len, out_ptr, out_len_ptr) -> i32`. Per call the host makes a
//! fresh instance (no state leaks between calls), allocates the arguments, the output buffer
//! and a 4-byte length cell with the module's `alloc`, and calls the method:
//!
//! - `0`: success; `*out_len_ptr` holds the result's length, at most the buffer's capacity.
//! - `-ENOSPC`: the buffer is too small and `*out_len_ptr` holds the length needed; the host
//!   frees the buffer, allocates one of that size and calls again, at most [`MAX_RETRIES`] times
//!   and never past the manifest's `max_output_bytes`.
//! - any other negative code: the tool failed; a UTF-8 message it wrote to the buffer (with its
//!   length in the cell) is shown with the code.
//! - positive codes are not defined by the seed and are reported as a broken module.
//!
//! The points where the seed is silent, and what was chosen, are in `docs/wasm-tools.md`: the
//! cell holds the capacity on entry (the seed only says what it holds on return), both Linux's
//! `ENOSPC` (28) and WASI's (51) are accepted, and the result must be UTF-8 (JSON when it
//! parses, text otherwise).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use toolscope_engine::ToolFailure;
use wasmtime::{Instance, Memory, Store, Trap, TypedFunc, UpdateDeadline, Val};

use crate::grants::Grants;
use crate::manifest::{Entry, WasmToolSpec};
use crate::runtime::{is_method_signature, PreparedModule};
use crate::sandbox::{MemoryCap, StoreState};

/// Linux's `ENOSPC`, as in seed 002's host (`-ENOSPC` = -28).
pub const ENOSPC: i32 = 28;
/// WASI's `ENOSPC` (wasi-libc's `errno` value), which a module built on wasi-libc may return.
pub const WASI_ENOSPC: i32 = 51;
/// How many times a method may ask for a larger buffer in one call.
pub const MAX_RETRIES: usize = 2;

/// A method's function, `(args_ptr, args_len, out_ptr, out_len_ptr) -> rc`.
type MethodFunc = TypedFunc<(i32, i32, i32, i32), i32>;

/// Calls one method of a fresh instance with `args` (UTF-8 JSON). `abandoned` is set by the
/// caller when the call no longer matters (timeout, cancel); the module is then interrupted at
/// its next epoch check.
pub(crate) fn invoke(
    module: &PreparedModule,
    spec: &WasmToolSpec,
    entry: &Entry,
    args: &[u8],
    abandoned: &Arc<AtomicBool>,
) -> Result<String, ToolFailure> {
    let wasi = Grants::wasi_ctx(&spec.grants).map_err(ToolFailure::Failed)?;
    let state = StoreState {
        wasi,
        cap: MemoryCap::new(spec.limits.max_memory_bytes),
    };
    let mut store = Store::new(module.runtime.engine(), state);
    store.limiter(|state| &mut state.cap);
    store.set_epoch_deadline(1);
    let flag = Arc::clone(abandoned);
    store.epoch_deadline_callback(move |_| {
        if flag.load(Ordering::Relaxed) {
            Ok(UpdateDeadline::Interrupt)
        } else {
            Ok(UpdateDeadline::Continue(1))
        }
    });
    let _running = module.runtime.running();
    let result = run(&mut store, module, spec, entry, args);
    result.map_err(|failure| classify(failure, &store, abandoned))
}

/// What went wrong inside [`run`], before it is classified for the executor.
enum Broken {
    /// wasmtime reported an error (trap, interrupt, refused growth).
    Wasm(wasmtime::Error),
    /// The module broke the ABI or reported a failure; the message says how.
    Tool(ToolFailure),
}

impl From<wasmtime::Error> for Broken {
    fn from(error: wasmtime::Error) -> Self {
        Self::Wasm(error)
    }
}

fn failed(message: String) -> Broken {
    Broken::Tool(ToolFailure::Failed(message))
}

fn classify(broken: Broken, store: &Store<StoreState>, abandoned: &AtomicBool) -> ToolFailure {
    let cap = &store.data().cap;
    if cap.was_hit() {
        return ToolFailure::MemoryLimit(format!(
            "the module tried to use more than its memory cap of {} MiB",
            cap.max_bytes() / (1024 * 1024)
        ));
    }
    match broken {
        Broken::Tool(failure) => failure,
        Broken::Wasm(error) => match error.downcast_ref::<Trap>() {
            Some(Trap::Interrupt) if abandoned.load(Ordering::Relaxed) => {
                ToolFailure::Failed("the module was stopped: the call was abandoned".to_owned())
            }
            Some(trap) => ToolFailure::Failed(format!("the module trapped: {trap} ({error})")),
            None => ToolFailure::Failed(format!("the module failed: {error:#}")),
        },
    }
}

fn run(
    store: &mut Store<StoreState>,
    module: &PreparedModule,
    spec: &WasmToolSpec,
    entry: &Entry,
    args: &[u8],
) -> Result<String, Broken> {
    let instance = module.pre.instantiate(&mut *store)?;
    // A reactor module (wasi-libc's `-mexec-model=reactor`) runs its constructors here.
    if let Ok(initialize) = instance.get_typed_func::<(), ()>(&mut *store, "_initialize") {
        initialize.call(&mut *store, ())?;
    }
    let memory = instance
        .get_memory(&mut *store, "memory")
        .ok_or_else(|| failed("the module has no memory export".to_owned()))?;
    let alloc: TypedFunc<i32, i32> = instance.get_typed_func(&mut *store, &spec.allocator.alloc)?;
    let method = method_function(&instance, store, entry)?;
    let heap = Heap {
        alloc,
        free: free_function(&instance, store, module, &spec.allocator.free),
        memory,
    };

    let args_len = i32::try_from(args.len()).map_err(|_| {
        failed(format!(
            "the arguments ({} bytes) do not fit in wasm32",
            args.len()
        ))
    })?;
    // An empty allocation may legitimately return 0; always ask for at least one byte.
    let args_ptr = heap.alloc(store, args.len().max(1) as u32, "the arguments")?;
    heap.write(store, args_ptr, args, "the arguments")?;
    let cell = heap.alloc(store, 4, "the output length cell")?;
    let max_output = spec.limits.max_output_bytes;
    let mut capacity = spec.limits.initial_output_bytes;
    let mut out_ptr = heap.alloc(store, capacity, "the output buffer")?;

    for attempt in 0..=MAX_RETRIES {
        heap.write(
            store,
            cell,
            &capacity.to_le_bytes(),
            "the output length cell",
        )?;
        let rc = method.call(
            &mut *store,
            (args_ptr as i32, args_len, out_ptr as i32, cell as i32),
        )?;
        let length = heap.read_u32(store, cell)?;
        match rc {
            0 if length > capacity => {
                return Err(failed(format!(
                    "the module returned 0 but says it wrote {length} bytes into a buffer of \
                     {capacity} bytes"
                )))
            }
            0 => {
                let bytes = heap.read(store, out_ptr, length, "the result")?;
                return String::from_utf8(bytes).map_err(|e| {
                    failed(format!(
                        "the result is not UTF-8 text (invalid byte at offset {})",
                        e.utf8_error().valid_up_to()
                    ))
                });
            }
            rc if rc == -ENOSPC || rc == -WASI_ENOSPC => {
                if length <= capacity {
                    return Err(failed(format!(
                        "the module returned -ENOSPC ({rc}) but asks for {length} bytes, no \
                         more than the {capacity} it was given"
                    )));
                }
                if length > max_output {
                    return Err(Broken::Tool(ToolFailure::OutputTooLarge(format!(
                        "the result needs {length} bytes, more than the tool's \
                         max_output_bytes of {max_output}"
                    ))));
                }
                if attempt == MAX_RETRIES {
                    break;
                }
                heap.free(store, out_ptr, capacity)?;
                capacity = length;
                out_ptr = heap.alloc(store, capacity, "the output buffer")?;
            }
            rc if rc < 0 => {
                return Err(failed(error_text(
                    store, &heap, rc, out_ptr, length, capacity,
                )))
            }
            rc => {
                return Err(failed(format!(
                    "the module returned {rc}; the ABI defines only 0 (success) and negative \
                     error codes"
                )))
            }
        }
    }
    Err(failed(format!(
        "the module still asked for a larger buffer after {MAX_RETRIES} retries"
    )))
}

/// A failing method's code, its errno name when it has one, and the message it wrote.
fn error_text(
    store: &mut Store<StoreState>,
    heap: &Heap,
    rc: i32,
    out_ptr: u32,
    length: u32,
    capacity: u32,
) -> String {
    let name = errno_name(rc.unsigned_abs());
    let code = match name {
        Some(name) => format!("{rc} ({name})"),
        None => rc.to_string(),
    };
    let message = (length > 0 && length <= capacity)
        .then(|| heap.read(store, out_ptr, length, "the error message").ok())
        .flatten()
        .map(|bytes| String::from_utf8_lossy(&bytes).trim().to_owned())
        .filter(|m| !m.is_empty());
    match message {
        Some(message) => format!("the tool failed with {code}: {message}"),
        None => format!("the tool failed with {code}"),
    }
}

/// Names of the Linux errno values a tool is likely to return.
fn errno_name(code: u32) -> Option<&'static str> {
    Some(match code {
        1 => "EPERM",
        2 => "ENOENT",
        5 => "EIO",
        7 => "E2BIG",
        12 => "ENOMEM",
        13 => "EACCES",
        14 => "EFAULT",
        16 => "EBUSY",
        22 => "EINVAL",
        28 => "ENOSPC",
        34 => "ERANGE",
        38 => "ENOSYS",
        61 => "ENODATA",
        74 => "EBADMSG",
        75 => "EOVERFLOW",
        95 => "EOPNOTSUPP",
        110 => "ETIMEDOUT",
        _ => return None,
    })
}

fn method_function(
    instance: &Instance,
    store: &mut Store<StoreState>,
    entry: &Entry,
) -> Result<MethodFunc, Broken> {
    match entry {
        Entry::Export(name) => Ok(instance.get_typed_func(&mut *store, name)?),
        Entry::TableIndex(index) => {
            // Seed 002: `__indirect_function_table` first, then `table`, then any table.
            let table = ["__indirect_function_table", "table"]
                .iter()
                .find_map(|name| instance.get_table(&mut *store, name))
                .or_else(|| {
                    let exports: Vec<_> = instance
                        .exports(&mut *store)
                        .filter_map(|e| e.into_table())
                        .collect();
                    exports.into_iter().next()
                })
                .ok_or_else(|| failed("the module exports no function table".to_owned()))?;
            let element = table.get(&mut *store, u64::from(*index)).ok_or_else(|| {
                failed(format!("table entry {index} is out of the table's bounds"))
            })?;
            let function = element
                .as_func()
                .flatten()
                .copied()
                .ok_or_else(|| failed(format!("table entry {index} holds no function")))?;
            if !is_method_signature(&function.ty(&*store)) {
                return Err(failed(format!(
                    "table entry {index} does not have the signature (i32, i32, i32, i32) -> i32"
                )));
            }
            Ok(function.typed(&*store)?)
        }
    }
}

fn free_function(
    instance: &Instance,
    store: &mut Store<StoreState>,
    module: &PreparedModule,
    name: &str,
) -> Option<wasmtime::Func> {
    module.free_takes_size?;
    instance.get_func(&mut *store, name)
}

/// The module's allocator and memory, with every pointer it hands back checked.
struct Heap {
    alloc: TypedFunc<i32, i32>,
    free: Option<wasmtime::Func>,
    memory: Memory,
}

impl Heap {
    fn alloc(&self, store: &mut Store<StoreState>, size: u32, what: &str) -> Result<u32, Broken> {
        let size_arg = i32::try_from(size)
            .map_err(|_| failed(format!("{what} ({size} bytes) do not fit in wasm32")))?;
        let ptr = self.alloc.call(&mut *store, size_arg)? as u32;
        if ptr == 0 {
            return Err(failed(format!(
                "alloc({size}) for {what} returned 0 (out of memory)"
            )));
        }
        let end = u64::from(ptr) + u64::from(size);
        if end > self.memory.data_size(&*store) as u64 {
            return Err(failed(format!(
                "alloc({size}) for {what} returned {ptr}, outside the module's memory"
            )));
        }
        Ok(ptr)
    }

    fn free(&self, store: &mut Store<StoreState>, ptr: u32, size: u32) -> Result<(), Broken> {
        let Some(free) = &self.free else {
            return Ok(());
        };
        let params: Vec<Val> = if free.ty(&*store).params().len() == 2 {
            vec![Val::I32(ptr as i32), Val::I32(size as i32)]
        } else {
            vec![Val::I32(ptr as i32)]
        };
        free.call(&mut *store, &params, &mut [])?;
        Ok(())
    }

    fn write(
        &self,
        store: &mut Store<StoreState>,
        ptr: u32,
        bytes: &[u8],
        what: &str,
    ) -> Result<(), Broken> {
        self.memory
            .write(&mut *store, ptr as usize, bytes)
            .map_err(|_| {
                failed(format!(
                    "{what} at {ptr} (+{} bytes) fall outside the module's memory",
                    bytes.len()
                ))
            })
    }

    fn read(
        &self,
        store: &Store<StoreState>,
        ptr: u32,
        length: u32,
        what: &str,
    ) -> Result<Vec<u8>, Broken> {
        let mut bytes = vec![0u8; length as usize];
        self.memory
            .read(store, ptr as usize, &mut bytes)
            .map_err(|_| {
                failed(format!(
                    "{what} at {ptr} (+{length} bytes) falls outside the module's memory"
                ))
            })?;
        Ok(bytes)
    }

    fn read_u32(&self, store: &Store<StoreState>, ptr: u32) -> Result<u32, Broken> {
        let bytes = self.read(store, ptr, 4, "the output length cell")?;
        let mut cell = [0u8; 4];
        cell.copy_from_slice(&bytes);
        Ok(u32::from_le_bytes(cell))
    }
}
