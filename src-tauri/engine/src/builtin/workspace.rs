//! Workspace file tool (in progress).
