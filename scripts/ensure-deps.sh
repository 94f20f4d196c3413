#!/usr/bin/env bash
# Install the project's npm dependencies when they are missing or older than the lockfile,
# so that a fresh clone needs nothing but Node 20 and npm.
set -euo pipefail
cd "$(dirname "$0")/.."
marker=node_modules/.package-lock.json
if [ ! -f "$marker" ] || [ package-lock.json -nt "$marker" ]; then
  echo "installing npm dependencies..." >&2
  # `npm install`, not `npm ci`: npm 11 records only this platform's optional binaries
  # (biome, next's swc, tailwind's oxide) in the lockfile and `npm ci` then refuses it.
  # With an up-to-date lockfile, `npm install` installs exactly the locked versions.
  npm install --no-audit --no-fund --loglevel=error >&2
fi
