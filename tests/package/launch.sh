#!/usr/bin/env bash
# Run inside a virtual X display by tests/package/run.sh: starts the installed app, waits for its
# window, then for the webview to paint (a blank window is one flat colour; the UI has text,
# borders and a list). Usage: launch.sh APP SCREENSHOT APP_LOG
set -uo pipefail
app=$1 shot=$2 app_log=$3
wid="" spread=0

"$app" >"$app_log" 2>&1 &
pid=$!
for _ in $(seq 1 120); do
  kill -0 "$pid" 2>/dev/null || { echo "the app exited early:"; cat "$app_log"; exit 1; }
  wid=$(xdotool search --onlyvisible --name '^Toolscope$' 2>/dev/null | head -n1)
  [[ -n "$wid" ]] && break
  sleep 0.5
done
[[ -n "$wid" ]] || { echo "no Toolscope window within 60 s"; cat "$app_log"; kill "$pid"; exit 1; }
for _ in $(seq 1 60); do
  import -window root "$shot"
  spread=$(convert "$shot" -colorspace gray -format '%[fx:int(standard_deviation*1000)]' info:)
  [[ "$spread" -ge 50 ]] && break
  sleep 0.5
done
kill "$pid" 2>/dev/null
wait "$pid" 2>/dev/null
[[ "$spread" -ge 50 ]] || { echo "the window stayed blank (grey spread $spread/1000)"; cat "$app_log"; exit 1; }
echo "window $wid painted (grey spread $spread/1000)"
