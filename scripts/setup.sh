#!/usr/bin/env bash
# Installs everything Toolscope needs to build on Debian 12 and builds the UI bundle.
# Idempotent: packages already present are not reinstalled, npm installs the locked versions.
#   bash scripts/setup.sh          build prerequisites
#   bash scripts/setup.sh --test   plus what the test suite needs (virtual display, screenshots)
set -euo pipefail
cd "$(dirname "$0")/.."

log() { printf '[setup] %s\n' "$*"; }

packages=(build-essential pkg-config libwebkit2gtk-4.1-dev)
if [[ "${1:-}" == "--test" ]]; then
  packages+=(xvfb xauth xdotool imagemagick)
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

# The app crate embeds ui/dist at compile time, so it must exist before any cargo build.
log "building the UI bundle"
npm --prefix ui run build --silent
log "ready"
