//! Shared by the engine's fault-injection and soak tests (each test file uses part of it).

#![allow(dead_code)]

pub mod fault_tool;
