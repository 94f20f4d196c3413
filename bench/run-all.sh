#!/usr/bin/env bash
# `npm run bench [-- --quick]`: the API server benchmark, then the embedded cluster at
# scale, then the console (map render and live latency in Chromium), then the deletion storm
# (bench/protection), then fencing's MTTR (bench/mttr, about 13 min), sign-in (bench/auth),
# high availability (bench/ha), the history store (bench/history), the incident tracker (bench/incident), then all into bench/RESULTS.md (a --quick run prints only).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/ensure-deps.sh
npx tsx bench/run.ts "$@"
npx tsx bench/cluster/run.ts "$@"
npx tsx bench/console/run.ts "$@"
npx tsx bench/protection/run.ts "$@"
npx tsx bench/mttr/run.ts "$@"
npx tsx bench/auth/run.ts "$@"
npx tsx bench/ha/run.ts "$@"
npx tsx bench/history/run.ts "$@"
npx tsx bench/incident/run.ts "$@"
case " $* " in *" --quick "*) ;; *) npx tsx bench/combine.ts ;; esac
