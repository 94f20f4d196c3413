#!/usr/bin/env bash
# Build what is stale: the Next.js UI when there is no build or its sources changed since the
# last one, and the compiled server (dist/server, dist/sim: scripts/build-server.mjs) likewise.
set -euo pipefail
cd "$(dirname "$0")/.."
# one build at a time: npm test's browser lane and the real-node tier's image build (scripts/image/
# build.sh takes the same lock) may both find the UI stale; two next builds in one .next break both
mkdir -p .palisade
exec 9>.palisade/build.lock
flock 9
server=dist/server/main.js
if [ ! -f "$server" ] || [ -n "$(find server lib sim scripts/build-server.mjs package-lock.json -newer "$server" \( -name '*.ts' -o -name '*.mjs' -o -name '*.json' \) ! -name '*.test.ts' -print -quit 2>/dev/null)" ]; then
  echo "building the server (npm run build:server)..." >&2
  node scripts/build-server.mjs >&2
fi
stamp=.next/BUILD_ID
if [ -f "$stamp" ] && [ -z "$(find app components lib next.config.mjs postcss.config.mjs -newer "$stamp" -print -quit 2>/dev/null)" ]; then
  exit 0
fi
echo "building the console UI (next build)..." >&2
# a worktree shares node_modules through a symlink, which Turbopack refuses to follow
flags=()
[ -L node_modules ] && flags=(--webpack)
npx next build "${flags[@]}" >&2
