#!/usr/bin/env bash
# The whole test suite: static checks, unit tests, integration tests against the
# embedded cluster (client-node and Debian's kubectl 1.20), then Playwright end-to-end
# tests of the built console in Debian's Chromium, and the demo flows (scripted incidents that
# check their own outcome). The integration suites of the simulated data plane and
# controllers, the console and deletion protection run twice: on the embedded cluster and
# on a real etcd + kube-apiserver + kube-controller-manager (testenv/, built once into a
# cache outside the repo: ~10 min on a cold 2-core machine). Installs what it needs.
set -euo pipefail
cd "$(dirname "$0")/.."
# the suites run a second time on the real control plane (vitest filters are path substrings:
# "server/" alone would also pick sim/apiserver/, whose own suite the sim/diff tests cover)
REAL_SUITES=(sim/test/ sim/cli.int sim/controllers/test/ server/cells.int server/console.int
  server/kube/attach.int server/kube/informer.int server/realtime/ server/protection/test/)
bash scripts/ensure-deps.sh
bash scripts/ensure-kubectl.sh
echo "== real control plane binaries (testenv/build.sh)"
eval "$(bash testenv/build.sh etcd kube-apiserver kube-controller-manager)"
export ETCD_BIN_DIR KUBE_BIN_DIR
echo "== typecheck" && npx tsc --noEmit -p .
echo "== lint" && npx biome check --diagnostic-level=error .
echo "== unit and integration tests (embedded cluster; sim/diff compares it with the real one)" && npx vitest run
echo "== integration suites on the real control plane (PALISADE_CLUSTER=real)" &&
  PALISADE_CLUSTER=real npx vitest run --project integration "${REAL_SUITES[@]}"
echo "== end-to-end tests" && bash scripts/e2e.sh
echo "== demo flows" && bash scripts/demo.sh storm
