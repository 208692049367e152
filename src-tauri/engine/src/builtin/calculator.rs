//! Calculator tool (in progress).
