//! Toolscope desktop app entry point; everything lives in the `toolscope_app` library.

// Keeps a console window from opening next to the app in release builds on Windows.
#![cfg_attr(not(debug_assertions), windows_subsystem = "windows")]

fn main() {
    toolscope_app::run();
}
