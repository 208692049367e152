//! What one call's store holds: the WASI context its grants allow and the memory cap.
//!
//! Why a limiter of our own rather than wasmtime's `StoreLimits` alone: the executor must tell a
//! module that hit its memory cap (`memory_limit`) from one that trapped for another reason
//! (`tool_error`). `StoreLimits` only answers "no"; [`MemoryCap`] delegates to it and records
//! that the cap was hit, and turns the refusal into a trap so that a module which ignores a
//! failed `memory.grow` cannot go on scribbling into memory it believes it has.

use wasmtime::{ResourceLimiter, StoreLimits, StoreLimitsBuilder};
use wasmtime_wasi::p1::WasiP1Ctx;

/// The memory cap of one store, remembering whether the module ran into it.
pub(crate) struct MemoryCap {
    limits: StoreLimits,
    max_bytes: usize,
    hit: bool,
}

impl MemoryCap {
    pub(crate) fn new(max_bytes: usize) -> Self {
        Self {
            limits: StoreLimitsBuilder::new()
                .memory_size(max_bytes)
                // One instance per call: a module cannot create more behind our back.
                .instances(1)
                .memories(1)
                .tables(4)
                .build(),
            max_bytes,
            hit: false,
        }
    }

    /// Whether a memory growth (or the initial memory) was refused.
    pub(crate) fn was_hit(&self) -> bool {
        self.hit
    }

    pub(crate) fn max_bytes(&self) -> usize {
        self.max_bytes
    }
}

impl ResourceLimiter for MemoryCap {
    fn memory_growing(
        &mut self,
        current: usize,
        desired: usize,
        maximum: Option<usize>,
    ) -> wasmtime::Result<bool> {
        let allowed = self.limits.memory_growing(current, desired, maximum)?;
        if !allowed && desired > self.max_bytes {
            self.hit = true;
            return Err(wasmtime::format_err!(
                "memory would grow to {desired} bytes, past the cap of {} bytes",
                self.max_bytes
            ));
        }
        Ok(allowed)
    }

    fn table_growing(
        &mut self,
        current: usize,
        desired: usize,
        maximum: Option<usize>,
    ) -> wasmtime::Result<bool> {
        self.limits.table_growing(current, desired, maximum)
    }

    fn instances(&self) -> usize {
        self.limits.instances()
    }

    fn tables(&self) -> usize {
        self.limits.tables()
    }

    fn memories(&self) -> usize {
        self.limits.memories()
    }
}

/// The data of one call's store.
pub(crate) struct StoreState {
    /// Present for every store, so that a module importing WASI links; it only carries what
    /// the approved grants give (no preopened directory, no environment by default).
    pub(crate) wasi: WasiP1Ctx,
    pub(crate) cap: MemoryCap,
}
