#!/usr/bin/env bash
# Builds the UI bundle, the debug app (UI embedded) and the example WASM tools, then runs the
# real-app end-to-end tests under a virtual X display. Prerequisites come from
# `bash scripts/setup.sh --test`.
#   bash tests/e2e/run.sh            the e2e scenarios (tests/e2e/run.mjs)
#   bash tests/e2e/run.sh --bench    the startup / memory / search bench instead (by hand)
# Screenshots land in target/e2e-screenshots/, driver logs in target/e2e-logs/.
# Knobs for diagnosis: E2E_KEEP_GOING=1 (run every scenario after a failure), E2E_SKIP_BUILD=1
# (reuse ui/dist and the built app), E2E_VERBOSE=1 (screenshot timings), TOOLSCOPE_APP=<binary>.
set -euo pipefail
cd "$(dirname "$0")/../.."

script=tests/e2e/run.mjs
if [[ "${1:-}" == "--bench" ]]; then
  script=tests/e2e/bench.mjs
  shift
fi

# cargo install puts tauri-driver here; a fresh shell may not have it on PATH yet.
export PATH="$PATH:${CARGO_HOME:-$HOME/.cargo}/bin"

log() { printf '[e2e] %s\n' "$*"; }
[[ -d tests/node_modules/webdriverio ]] || { log "tests/node_modules missing: run bash scripts/setup.sh --test"; exit 1; }

# E2E_SKIP_BUILD=1 reuses the current ui/dist and target/debug/toolscope-app (iterating on tests).
if [[ "${E2E_SKIP_BUILD:-}" != 1 ]]; then
  started=$SECONDS
  log "building the UI bundle"
  if ! out=$(npm --prefix ui run build 2>&1); then
    printf '%s\n' "$out"
    log "the UI bundle does not build (see above)"
    exit 1
  fi
  log "building the app (debug, UI embedded)"
  cargo build -p toolscope-app --locked --quiet
  log "building the MCP test server (the Sources scenario adds it)"
  cargo build -p toolscope-mcp --bin toolscope-mcp-testserver --locked --quiet
  log "building the scripted model server (the Agent scenarios talk to it)"
  cargo build -p toolscope-llm-testserver --bin toolscope-llm-testserver --locked --quiet
  log "builds done ($((SECONDS - started)) s)"
fi

# The example WASM tools, built from C (seconds): the WASM scenario adds textkit from here.
wasm_examples=$PWD/target/e2e-wasm-tools
rm -rf "$wasm_examples"
log "building the example WASM tools"
bash tests/fixtures/wasm/build.sh "$wasm_examples" 2>&1 | sed 's/^/[e2e]   /'
export TOOLSCOPE_WASM_EXAMPLES=$wasm_examples

mkdir -p target/e2e-screenshots
rm -f target/e2e-screenshots/*.png
# 1280x800 matches the app window; no window manager, so the window sits at the top left.
exec xvfb-run -a -s "-screen 0 1280x800x24 -nolisten tcp" node "$script" "$@"
