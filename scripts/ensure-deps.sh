#!/usr/bin/env bash
# Install the project's npm dependencies when they are missing or older than the lockfile,
# so that a fresh clone needs nothing but Node 20 and npm.
set -euo pipefail
cd "$(dirname "$0")/.."
marker=node_modules/.package-lock.json
if [ ! -f "$marker" ] || [ package-lock.json -nt "$marker" ]; then
  if [ -L node_modules ]; then
    # a node_modules linked from another checkout (a git worktree sharing it): npm ci would
    # empty and refill the other checkout's tree under its feet; install there instead
    echo "node_modules is a link to $(readlink node_modules) and older than package-lock.json:" \
      "run npm ci where it points to; not installing here" >&2
    exit 0
  fi
  echo "installing npm dependencies (npm ci)..." >&2
  # `npm ci`: exactly the lockfile, every time. The lockfile carries every platform's native
  # binaries (Linux and macOS, x64 and arm64; scripts/test/lockfile.test.ts checks it), so the
  # same lockfile installs everywhere and nothing rewrites it.
  if ! npm ci --no-audit --no-fund --loglevel=error >&2; then
    echo "npm ci failed; if package.json changed, update the lockfile with npm install first" >&2
    exit 1
  fi
fi
