#!/usr/bin/env bash
# `npm start`: Palisade's console on the embedded cluster (or on --kubeconfig). Installs
# npm dependencies and builds the UI when needed, then runs the one server process.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/ensure-deps.sh
bash scripts/ensure-build.sh
exec node --import tsx server/main.ts "$@"
