//! placeholder
pub fn run() {}
