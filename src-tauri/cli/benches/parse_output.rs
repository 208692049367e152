//! `toolscope parse` over reply size, text and JSON output (figures, not assertions): the
//! text report once recounted lines from the start for every call, so its time grew with the
//! square of the reply. Run: `cargo bench -p toolscope-cli --bench parse_output`; without
//! `--bench` (CI's `cargo test --bench`) it runs once on small replies.

use std::process::{Command, Stdio};
use std::time::Instant;

/// A Hermes reply of about `bytes` bytes: prose lines and one call per ~120 bytes.
fn reply(bytes: usize) -> String {
    let mut text = String::with_capacity(bytes + 256);
    let mut i = 0usize;
    while text.len() < bytes {
        text.push_str(&format!(
            "Step {i}: checking.\n<tool_call>{{\"name\": \"calculator_evaluate\", \"arguments\": {{\"expression\": \"{i} * 2\"}}}}</tool_call>\n"
        ));
        i += 1;
    }
    text
}

fn time_parse(home: &std::path::Path, file: &std::path::Path, json: bool) -> f64 {
    let mut command = Command::new(env!("CARGO_BIN_EXE_toolscope"));
    command.env("TOOLSCOPE_HOME", home).arg("parse");
    if json {
        command.arg("--json");
    }
    let started = Instant::now();
    let status = command
        .arg(file)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .expect("toolscope runs");
    let elapsed = started.elapsed().as_secs_f64();
    assert!(status.success(), "toolscope parse failed: {status}");
    elapsed
}

fn main() {
    let full = std::env::args().any(|a| a == "--bench");
    let sizes: &[usize] = if full {
        &[1 << 20, 5 << 20, 10 << 20, 50 << 20]
    } else {
        &[64 << 10]
    };
    let home = std::env::temp_dir().join(format!("toolscope-parse-bench-{}", std::process::id()));
    std::fs::create_dir_all(&home).expect("temp dir");
    for &size in sizes {
        let text = reply(size);
        let calls = text.matches("<tool_call>").count();
        let file = home.join("reply.txt");
        std::fs::write(&file, &text).expect("writes the reply");
        let runs = if full { 3 } else { 1 };
        let best = |json: bool| {
            (0..runs)
                .map(|_| time_parse(&home, &file, json))
                .fold(f64::INFINITY, f64::min)
        };
        let (text_s, json_s) = (best(false), best(true));
        println!(
            "parse {:>6.1} MB, {calls:>7} calls: text {:>7.3} s, --json {:>7.3} s (best of {runs})",
            size as f64 / (1 << 20) as f64,
            text_s,
            json_s
        );
    }
    let _ = std::fs::remove_dir_all(&home);
}
