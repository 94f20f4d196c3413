#!/usr/bin/env bash
# The nightly-sized fuzz (`npm run fuzz`): every fuzz file of the repo — the pure property tests
# (*fuzz*.test.ts) and the integration ones (*fuzz*.int.test.ts: tRPC, socket.io, HTTP routes,
# the webhooks, the controllers' objects) — with at least FUZZ_CASES cases per boundary (default
# 10 000; npm test runs the same files with their small defaults). FUZZ_SEED=<n> replays a run;
# PALISADE_CLUSTER=real runs the integration files against the real control plane. Prints one
# row per boundary (cases, seconds) and the wall time; the whole output is in .palisade/fuzz.log.
# A run of the nightly size (FUZZ_CASES >= 10000) writes its table to bench/fuzz/RESULTS.md and
# merges it into bench/RESULTS.md. `npm run fuzz -- <text>` runs only the files whose path contains
# <text> (and writes no results).
set -uo pipefail
cd "$(dirname "$0")/.."
export FUZZ_CASES="${FUZZ_CASES:-10000}"
mkdir -p .palisade
log=.palisade/fuzz.log
: >"$log"
started=$SECONDS
began=$(date -u +%FT%TZ)
load=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo '?')
only="${1:-}"
mapfile -t unit < <(git ls-files '*fuzz*.test.ts' | grep -v '\.int\.test\.ts$' | grep -F -- "$only")
mapfile -t integration < <(git ls-files '*fuzz*.int.test.ts' | grep -F -- "$only")
echo "fuzz: FUZZ_CASES=$FUZZ_CASES${FUZZ_SEED:+ FUZZ_SEED=$FUZZ_SEED}, ${#unit[@]} pure and ${#integration[@]} integration files (log: $log)"
status=0
# the progress on the terminal: each boundary's line, the failures, each file's count
progress() { sed -u 's/\x1b\[[0-9;]*m//g' | grep --line-buffered -E '^ *(×|FAIL)|fuzz-boundary:|vitest:|Counterexample|seed:' || true; }
if [ "${#unit[@]}" -gt 0 ]; then
  npx vitest run --project unit "${unit[@]}" 2>&1 | tee -a "$log" | progress
  [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
fi
for f in "${integration[@]}"; do
  npx vitest run --project integration "$f" 2>&1 | tee -a "$log" | progress
  [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
done
rows=$(sed 's/\x1b\[[0-9;]*m//g' "$log" | grep -o 'fuzz-boundary: .*' | sed 's/^fuzz-boundary: //')
failed=$(sed 's/\x1b\[[0-9;]*m//g' "$log" | grep -oE 'vitest: [0-9]+ passed, [0-9]+ failed' | awk '{ f += $4 } END { print f + 0 }')
wall=$((SECONDS - started))
machine="$(hostname), $(nproc) cores, $(awk '/MemTotal/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo), Node $(node --version), load average $load at the start"
echo
echo "== cases per boundary"
echo "$rows" | awk -F' [|] ' '{ printf "%-72s %8s %10s\n", $1, $2, $3 }'
echo "== $failed failed tests; wall time $wall s; began $began on $machine"
if [ "$FUZZ_CASES" -ge 10000 ] && [ -z "$only" ]; then
  mkdir -p bench/fuzz
  {
    echo "# Fuzzing"
    echo
    echo "\`npm run fuzz\` (scripts/fuzz.sh): every fuzz file with at least $FUZZ_CASES cases per boundary${FUZZ_SEED:+, FUZZ_SEED=$FUZZ_SEED}${PALISADE_CLUSTER:+, PALISADE_CLUSTER=$PALISADE_CLUSTER}. The boundaries and their properties: [docs/security.md](../docs/security.md#fuzzing)."
    echo
    echo "- began $began on $machine"
    echo "- $failed failed tests (exit status $status), wall time $wall s ($((wall / 60)) min)"
    echo
    echo "| Boundary | Cases | Time | Notes |"
    echo "| --- | ---: | ---: | --- |"
    echo "$rows" | awk -F' [|] ' '{ gsub(/ cases/, "", $2); n = $4; gsub(/\|/, "/", n); printf "| %s | %s | %s | %s |\n", $1, $2, $3, n }'
  } >bench/fuzz/RESULTS.md
  npx tsx bench/combine.ts
fi
exit "$status"
