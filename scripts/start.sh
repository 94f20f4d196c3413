#!/usr/bin/env bash
# `npm start`: Palisade's console on the embedded cluster (or on --kubeconfig). Installs
# npm dependencies and builds the UI and the server (dist/server, dist/sim: compiled ahead of
# time, as the image runs it) when needed, then runs the one server process with plain node.
set -euo pipefail
cd "$(dirname "$0")/.."
# replicas started side by side (`npm start` three times) install and build once, in turn
mkdir -p .palisade
exec 9>.palisade/start.lock
if command -v flock >/dev/null; then flock 9; fi
bash scripts/ensure-deps.sh
bash scripts/ensure-build.sh
exec 9>&-
exec node dist/server/main.js "$@"
