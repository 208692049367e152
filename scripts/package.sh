#!/usr/bin/env bash
# Builds an installable Debian package (.deb) of the desktop app with the Tauri bundler, from the
# same sources and lockfiles as `scripts/run.sh`. The package also carries the headless CLI as
# /usr/bin/toolscope, so one install gives both faces.
#   bash scripts/package.sh            release build (what you would hand to someone)
#   bash scripts/package.sh --debug    debug build (what the test run checks: it reuses the
#                                      e2e's debug artifacts instead of a second, release build)
# Prints the path of the .deb on its last line.
set -euo pipefail
cd "$(dirname "$0")/.."

profile=release
tauri_flags=()
cargo_flags=(--release)
if [[ "${1:-}" == "--debug" ]]; then
  profile=debug
  tauri_flags=(--debug)
  cargo_flags=()
elif [[ $# -gt 0 ]]; then
  echo "usage: bash scripts/package.sh [--debug]" >&2
  exit 2
fi

log() { printf '[package] %s\n' "$*" >&2; }

bash scripts/setup.sh >&2

log "building the UI bundle"
npm --prefix ui run --silent build >&2

log "building the CLI ($profile)"
cargo build -p toolscope-cli --bin toolscope --locked --quiet "${cargo_flags[@]}"
cli="$PWD/target/$profile/toolscope"
[[ -x "$cli" ]] || { log "the CLI was not built at $cli"; exit 1; }

# The UI is built above, so the bundler's own beforeBuildCommand (which assumes a package.json
# beside tauri.conf.json) is switched off; the CLI joins the package as an extra file.
overrides=$(printf '{"build":{"beforeBuildCommand":""},"bundle":{"linux":{"deb":{"files":{"/usr/bin/toolscope":"%s"}}}}}' "$cli")

deb_dir="target/$profile/bundle/deb"
rm -rf "$deb_dir"
log "bundling the app ($profile) as a .deb"
CI=true ui/node_modules/.bin/tauri build "${tauri_flags[@]}" --bundles deb --ci \
  --config "$overrides" -- --locked >&2

shopt -s nullglob
debs=("$deb_dir"/*.deb)
[[ ${#debs[@]} -eq 1 ]] || { log "expected one .deb in $deb_dir, found ${#debs[@]}"; exit 1; }
log "built ${debs[0]} ($(du -h "${debs[0]}" | cut -f1))"
printf '%s\n' "$PWD/${debs[0]}"
