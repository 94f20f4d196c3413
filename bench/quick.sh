#!/usr/bin/env bash
# `npm run bench:quick`: every benchmark's quick mode, one after another, so that a change that
# breaks a benchmark fails `npm test` (scripts/test.sh runs this in its browser lane) instead of
# being found when someone next measures. A quick run is a smaller version of the same phases; it
# prints (bench/RESULTS.md is left as it is; auth, ha and history rewrite their own RESULTS.md,
# whose recorded runs are quick ones too) and exits non-zero only when the benchmark
# itself fails (a phase that throws, a child that dies), never on a figure: the machine running
# the suite is loaded, and speed targets belong to the full runs. The container image benchmark
# (`npm run bench:image`) is left out: it builds the image, which `npm run test:image` covers.
set -uo pipefail
cd "$(dirname "$0")/.."
BENCHES=(
  "apiserver|npx tsx bench/run.ts --quick"
  "cluster|npx tsx bench/cluster/run.ts --quick"
  "console|npx tsx bench/console/run.ts --quick"
  "protection|npx tsx bench/protection/run.ts --quick"
  "mttr|npx tsx bench/mttr/run.ts --quick"
  "auth|npx tsx bench/auth/run.ts --quick"
  "ha|npx tsx bench/ha/run.ts --quick"
  "history|npx tsx bench/history/run.ts --quick"
  "incident|npx tsx bench/incident/run.ts --quick"
  "memory|npx tsx bench/memory/run.ts --quick"
)
status=0
summary=()
for entry in "${BENCHES[@]}"; do
  name=${entry%%|*}
  cmd=${entry#*|}
  echo "== bench:quick $name: $cmd"
  t0=$SECONDS
  rc=0
  $cmd || rc=$?
  summary+=("$name: $([ "$rc" -eq 0 ] && echo ok || echo "FAILED (exit $rc)"), $((SECONDS - t0)) s")
  [ "$rc" -eq 0 ] || status=1
done
echo "== bench:quick summary"
printf '  %s\n' "${summary[@]}"
exit "$status"
