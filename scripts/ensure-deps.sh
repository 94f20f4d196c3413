#!/usr/bin/env bash
# Install the project's npm dependencies when they are missing or older than the lockfile,
# so that a fresh clone needs nothing but Node 20 and npm.
set -euo pipefail
cd "$(dirname "$0")/.."
marker=node_modules/.package-lock.json
if [ ! -f "$marker" ] || [ package-lock.json -nt "$marker" ]; then
  echo "installing npm dependencies (npm ci)..." >&2
  npm ci --no-audit --no-fund --loglevel=error >&2
fi
