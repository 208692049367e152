#!/usr/bin/env bash
# Sets up (if needed), builds and starts the Toolscope desktop app.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
echo "[run] building and starting the app (the first build takes a few minutes)"
exec cargo run --quiet -p toolscope-app
