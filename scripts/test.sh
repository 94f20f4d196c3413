#!/usr/bin/env bash
# The whole test suite: static checks, unit tests, and integration tests against the
# embedded cluster (client-node and Debian's kubectl 1.20). Installs what it needs.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/ensure-deps.sh
bash scripts/ensure-kubectl.sh
echo "== typecheck" && npx tsc --noEmit -p .
echo "== lint" && npx biome check --diagnostic-level=error .
echo "== unit and integration tests" && npx vitest run
