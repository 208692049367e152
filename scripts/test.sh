#!/usr/bin/env bash
# Sets up (if needed) and runs every check CI runs: formatting, lints, all Rust tests, the UI
# typecheck, lint and unit tests. Fails on the first failing step.
set -euo pipefail
cd "$(dirname "$0")/.."

step() {
  local name=$1; shift
  printf '\n[test] %s\n' "$name"
  local started=$SECONDS
  "$@"
  printf '[test] %s: ok (%ss)\n' "$name" $((SECONDS - started))
}

step "setup" bash scripts/setup.sh --test
step "cargo fmt" cargo fmt --all --check
step "cargo clippy" cargo clippy --workspace --all-targets --locked -- -D warnings
step "cargo test" cargo test --workspace --locked
step "ui typecheck" npm --prefix ui run --silent typecheck
step "ui lint" npm --prefix ui run --silent lint
step "ui unit tests" npm --prefix ui test --silent
printf '\n[test] all checks passed\n'
