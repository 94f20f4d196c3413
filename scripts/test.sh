#!/usr/bin/env bash
# The whole test suite: static checks, unit tests, integration tests against the
# embedded cluster (client-node and Debian's kubectl 1.20), then Playwright end-to-end
# tests of the built console in Debian's Chromium, and the demo flows (scripted incidents that
# check their own outcome). Installs what it needs.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/ensure-deps.sh
bash scripts/ensure-kubectl.sh
echo "== typecheck" && npx tsc --noEmit -p .
echo "== lint" && npx biome check --diagnostic-level=error .
echo "== unit and integration tests" && npx vitest run
echo "== end-to-end tests" && bash scripts/e2e.sh
echo "== demo flows" && bash scripts/demo.sh storm
