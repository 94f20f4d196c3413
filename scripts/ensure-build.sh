#!/usr/bin/env bash
# Build the Next.js UI when there is no build or the sources changed since the last one.
set -euo pipefail
cd "$(dirname "$0")/.."
stamp=.next/BUILD_ID
if [ -f "$stamp" ] && [ -z "$(find app components lib next.config.mjs postcss.config.mjs -newer "$stamp" -print -quit 2>/dev/null)" ]; then
  exit 0
fi
echo "building the console UI (next build)..." >&2
npx next build >&2
