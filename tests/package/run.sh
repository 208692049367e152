#!/usr/bin/env bash
# The installable package, checked as a person installing it would meet it: builds the .deb with
# scripts/package.sh (debug profile, reusing the e2e's build), unpacks it into a throwaway root the
# way dpkg lays it out, checks its metadata and files, runs the packaged CLI, then starts the
# packaged app under Xvfb with empty data dirs and waits for its window to paint the UI.
# Prerequisites come from `bash scripts/setup.sh --test` (xvfb, xdotool, imagemagick).
# The screenshot lands in target/e2e-screenshots/package-installed.png.
set -euo pipefail
cd "$(dirname "$0")/../.."

log() { printf '[package-test] %s\n' "$*"; }
fail() { log "FAILED: $*"; exit 1; }

# PACKAGE_DEB=<file> checks an existing .deb instead of building one (diagnosis).
deb=${PACKAGE_DEB:-$(bash scripts/package.sh --debug | tail -n1)}
[[ -f "$deb" ]] || fail "scripts/package.sh printed no .deb path (got '$deb')"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
root=$work/root
dpkg-deb -x "$deb" "$root"
log "unpacked $(basename "$deb") into a throwaway root"

# Metadata a package manager reads: the name, and the libraries the webview needs.
package=$(dpkg-deb -f "$deb" Package)
depends=$(dpkg-deb -f "$deb" Depends)
log "package $package $(dpkg-deb -f "$deb" Version), depends: $depends"
[[ "$package" == toolscope ]] || fail "package name is '$package', expected toolscope"
[[ "$depends" == *libwebkit2gtk-4.1* ]] || fail "Depends does not name libwebkit2gtk-4.1"
[[ "$depends" == *libgtk-3* ]] || fail "Depends does not name libgtk-3"

# Files: the app, the CLI, a desktop entry that starts the app, icons.
app=$root/usr/bin/toolscope-app
cli=$root/usr/bin/toolscope
[[ -x "$app" ]] || fail "no executable /usr/bin/toolscope-app in the package"
[[ -x "$cli" ]] || fail "no executable /usr/bin/toolscope (the CLI) in the package"
desktop=$(find "$root/usr/share/applications" -name '*.desktop' | head -n1)
[[ -n "$desktop" ]] || fail "no desktop entry under /usr/share/applications"
grep -q '^Exec=toolscope-app' "$desktop" || fail "the desktop entry does not start toolscope-app: $(cat "$desktop")"
icons=$(find "$root/usr/share/icons" -name '*.png' | wc -l)
[[ "$icons" -gt 0 ]] || fail "no icons under /usr/share/icons"
log "files: app, CLI, $(basename "$desktop"), $icons icon(s)"

# Fresh data dirs, as on a machine that never ran Toolscope.
export HOME=$work/home XDG_DATA_HOME=$work/home/.local/share XDG_CONFIG_HOME=$work/home/.config
export XDG_CACHE_HOME=$work/home/.cache
mkdir -p "$XDG_DATA_HOME" "$XDG_CONFIG_HOME" "$XDG_CACHE_HOME"

# The packaged CLI runs on its own and lists the built-in tools.
listed=$("$cli" --json list | grep -c '"calculator' || true)
[[ "$listed" -gt 0 ]] || fail "the packaged CLI does not list the built-in calculator: $("$cli" --json list 2>&1 | head -c 400)"
log "the packaged CLI lists the built-in tools"

shot_dir=$PWD/target/e2e-screenshots
mkdir -p "$shot_dir"
shot=$shot_dir/package-installed.png
app_log=$work/app.log

result=$(xvfb-run -a -s "-screen 0 1280x800x24 -nolisten tcp" bash tests/package/launch.sh "$app" "$shot" "$app_log") ||
  fail "the installed app did not start: $result"
log "$result; screenshot $shot"
log "ok"
