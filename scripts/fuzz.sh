#!/usr/bin/env bash
# Fuzzes Toolscope's untrusted-input entry points (fuzz/: every format's parser, auto-detect,
# streaming, argument coercion + validation) for a fixed time each and prints a table of
# executions, exec/s and crashes per target. Exit 1 when anything crashed.
#
#   bash scripts/fuzz.sh [SECONDS_PER_TARGET] [TARGET...]     default: 60 s, every target
#
# Needs cargo-fuzz (installed with `cargo install cargo-fuzz` when missing). Its targets need
# nightly compiler flags (sanitizer coverage); they are enabled on the stable toolchain with
# RUSTC_BOOTSTRAP=1, only for this build (the fuzz crate is its own workspace, so no other
# build sees them). Should that fail, a nightly toolchain is used if one is installed; set
# FUZZ_TOOLCHAIN=nightly to use it from the start. FUZZ_SANITIZER (default `none`: the workspace
# forbids unsafe code, so what fuzzing finds is panics, hangs and broken invariants, and without
# AddressSanitizer it runs about twice as fast) may be `address`.
#
# Seeds fuzz/corpus/<target>/ from tests/fixtures/parser/ and tests/fixtures/fuzz/ (the corpus
# grows across runs and is not committed). A crash leaves its input in fuzz/artifacts/<target>/:
# minimise it with `cargo fuzz tmin <target> <file>` (from the repository root, with the same
# RUSTC_BOOTSTRAP=1), save it as tests/fixtures/fuzz/<target>/<name> and fix the code; the
# fuzz_regressions tests replay every such file (toolscope-protocol's for the format targets,
# toolscope-engine's for coerce_validate).
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=${1:-60}
shift || true
[[ $seconds =~ ^[0-9]+$ ]] || { echo "usage: $0 [SECONDS_PER_TARGET] [TARGET...]" >&2; exit 2; }
sanitizer=${FUZZ_SANITIZER:-none}
log() { printf '[fuzz] %s\n' "$*"; }

if ! command -v cargo-fuzz >/dev/null; then
  log "installing cargo-fuzz"
  cargo install cargo-fuzz --locked
fi

cargo_fuzz=(cargo fuzz)
build() { nice -n 10 "${cargo_fuzz[@]}" build --sanitizer "$sanitizer" "$@"; }
if [[ -n ${FUZZ_TOOLCHAIN:-} ]]; then
  cargo_fuzz=(cargo "+$FUZZ_TOOLCHAIN" fuzz)
  log "building the fuzz targets with the $FUZZ_TOOLCHAIN toolchain"
  build
else
  export RUSTC_BOOTSTRAP=1
  log "building the fuzz targets (stable toolchain, RUSTC_BOOTSTRAP=1 for the nightly flags)"
  if ! build; then
    rustup toolchain list 2>/dev/null | grep -q '^nightly' ||
      { log "the build failed and no nightly toolchain is installed"; exit 1; }
    log "stable failed; trying the nightly toolchain"
    unset RUSTC_BOOTSTRAP
    cargo_fuzz=(cargo +nightly fuzz)
    build
  fi
fi

if (($# == 0)); then
  mapfile -t targets < <("${cargo_fuzz[@]}" list)
else
  targets=("$@")
fi

# Where cargo-fuzz put the binaries (the host triple's release directory).
host=$(rustc -vV | sed -n 's/^host: //p')
bin_dir=fuzz/target/$host/release

# The dictionary of every format's markers, from the formats crate's own list.
dict=fuzz/formats.dict
TOOLSCOPE_FUZZ_DICT=$dict "$bin_dir/parse_format" >/dev/null 2>&1 || true
[[ -s $dict ]] || { log "could not write the dictionary $dict"; exit 1; }

seed() {
  local target=$1 dir=fuzz/corpus/$1
  mkdir -p "$dir"
  local fixture format case
  for fixture in tests/fixtures/parser/*/*.txt; do
    format=$(basename "$(dirname "$fixture")")
    case=$(basename "$fixture" .txt)
    case $target in
      parse_format | large_reply) { printf '%s\n' "$format"; cat "$fixture"; } >"$dir/seed-$format-$case" ;;
      detect) cp "$fixture" "$dir/seed-$format-$case" ;;
      stream)
        # No delta sizes: 1-byte deltas; then sizes 3, 5, 2, 11 in turn.
        { printf '%s\n\000' "$format"; cat "$fixture"; } >"$dir/seed-$format-$case-1"
        { printf '%s\n\004\003\005\002\013' "$format"; cat "$fixture"; } >"$dir/seed-$format-$case-n"
        ;;
    esac
  done
  if [[ $target == coerce_validate ]]; then
    # Mode 0: a raw JSON schema, NUL, JSON arguments. Modes 1 and 2: built-in or built schemas.
    printf '\000{"type":"object","properties":{"n":{"type":["integer","null"]},"e":{"enum":[1,"a",true]},"o":{"type":"object","default":{}}},"required":["n"]}\000{"n":"3.0","e":"1","o":"{\\"k\\":[1]}"}' >"$dir/seed-raw"
    printf '\000{"properties":{"b":{"type":"boolean"},"x":{"type":"number","minimum":0}}}\000{"b":" TRUE ","x":"-1e400"}' >"$dir/seed-raw-2"
    local i
    for i in 0 1 2 3 4 5 6 7 8 9; do
      printf "\\001\\00$((i % 8))\\003\\001\\001\\0012\\001\\000\\0013" >"$dir/seed-builtin-$i"
    done
    printf '\002\003\001\000\000\001\000\000\002\002\001x\001\001\0017' >"$dir/seed-built"
  fi
  if [[ -d tests/fixtures/fuzz/$target ]]; then
    cp tests/fixtures/fuzz/"$target"/* "$dir"/ 2>/dev/null || true
  fi
}

mkdir -p fuzz/logs
declare -A executions crashes rates found
for target in "${targets[@]}"; do
  seed "$target"
  # A 512 KiB reply parses in well under a second: 5 s means super-linear work.
  timeout=10
  [[ $target == large_reply ]] && timeout=5
  flags=(-timeout=$timeout -rss_limit_mb=2048 -print_final_stats=1)
  [[ $target == coerce_validate ]] || flags+=("-dict=$dict")
  artifacts=fuzz/artifacts/$target
  mkdir -p "$artifacts"
  total=0 crashed=0 restarts=0 list=""
  started=$SECONDS
  deadline=$((SECONDS + seconds))
  # libFuzzer stops at a crash: fuzz again for the time left (a few times at most), so one
  # shallow crash does not hide the rest of the target.
  while remaining=$((deadline - SECONDS)); ((remaining > 0 && restarts < 5)); do
    log "$target: fuzzing for ${remaining}s"
    status=0
    nice -n 10 "${cargo_fuzz[@]}" run --sanitizer "$sanitizer" "$target" -- \
      -max_total_time="$remaining" "${flags[@]}" >"fuzz/logs/$target.log" 2>&1 || status=$?
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "fuzz/logs/$target.log" | tail -1)
    total=$((total + ${runs:-0}))
    ((status == 0)) && break
    artifact=$(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "fuzz/logs/$target.log" | tail -1)
    if [[ -z $artifact || ! -f $artifact ]]; then
      log "$target: libFuzzer exited with $status and left no input; see fuzz/logs/$target.log"
      tail -20 "fuzz/logs/$target.log"
      exit 1
    fi
    artifact=${artifact#"$PWD/"}
    crashed=$((crashed + 1))
    list+="$artifact"$'\n'
    cp "fuzz/logs/$target.log" "fuzz/logs/$target.crash-$crashed.log"
    log "$target: found $artifact (log: fuzz/logs/$target.crash-$crashed.log)"
    # A corpus input that fails (a seed, or one that was only just under the time limit) would
    # stop every restart at once: it is kept as the artifact instead.
    rm -f "fuzz/corpus/$target/${artifact##*-}"
    for input in fuzz/corpus/"$target"/seed-*; do
      if cmp -s "$input" "$artifact"; then rm -f "$input"; fi
    done
    restarts=$((restarts + 1))
  done
  elapsed=$((SECONDS - started))
  executions[$target]=$total
  crashes[$target]=$crashed
  rates[$target]=$((total / (elapsed > 0 ? elapsed : 1)))
  found[$target]=$list
done

printf '\n%-16s %12s %8s %8s\n' target executions exec/s crashes
any=0
for target in "${targets[@]}"; do
  printf '%-16s %12s %8s %8s\n' "$target" "${executions[$target]}" "${rates[$target]}" \
    "${crashes[$target]}"
  ((${crashes[$target]} == 0)) || any=1
done
if ((any)); then
  printf '\ncrashing inputs:\n'
  for target in "${targets[@]}"; do
    [[ -n ${found[$target]} ]] && printf '%s' "${found[$target]}"
  done
  exit 1
fi
