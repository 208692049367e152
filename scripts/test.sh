#!/usr/bin/env bash
# Sets up (if needed) and runs every check CI runs: formatting, lints, all Rust tests, the UI
# typecheck, lint and unit tests, the MCP conformance suite's client scenarios against the CLI
# (tests/conformance/run.sh), then the end-to-end tests of the built app under Xvfb
# (tests/e2e/run.sh). Fails on the first failing step.
set -euo pipefail
cd "$(dirname "$0")/.."

# A CI run builds from scratch once: incremental caches would only cost disk (gigabytes).
if [[ "${CI:-}" == "true" ]]; then
  export CARGO_INCREMENTAL=0
fi

disk_free() { df -h --output=avail . 2>/dev/null | tail -1 | tr -d ' '; }

step() {
  local name=$1; shift
  printf '\n[test] %s\n' "$name"
  local started=$SECONDS
  "$@"
  printf '[test] %s: ok (%ss, %s free on disk)\n' "$name" $((SECONDS - started)) "$(disk_free)"
}

step "setup" bash scripts/setup.sh --test
step "cargo fmt" cargo fmt --all --check
step "cargo clippy" cargo clippy --workspace --all-targets --locked -- -D warnings
step "cargo test" cargo test --workspace --locked
# The MCP conformance suite's client scenarios against the CLI; the ones it still fails are
# named with the reason in tests/conformance/baseline.txt.
step "MCP conformance (client scenarios)" bash tests/conformance/run.sh
# Every benchmark once, in criterion's quick test mode, so none rots; the figures come from
# `cargo bench` by hand.
step "benches (each once)" cargo test --workspace --bench '*' --locked
# cargo test regenerates ui/src/bindings.ts from the Rust commands; it must match the commit.
bindings_drift() {
  if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    git diff --exit-code -- ui/src/bindings.ts ||
      { echo "ui/src/bindings.ts is out of date: run cargo test and commit it"; return 1; }
  fi
}
step "bindings drift" bindings_drift
step "ui typecheck" npm --prefix ui run --silent typecheck
step "ui lint" npm --prefix ui run --silent lint
step "ui unit tests" npm --prefix ui test --silent
# Builds the UI and the debug app, then drives the real app through tauri-driver + WebKitWebDriver.
step "e2e (real app under Xvfb)" bash tests/e2e/run.sh
# The .deb from scripts/package.sh (debug profile: the e2e's build is reused), installed into a
# throwaway root and started under Xvfb.
step "package (.deb installed and started)" bash tests/package/run.sh
printf '\n[test] all checks passed\n'
