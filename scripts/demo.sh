#!/usr/bin/env bash
# `npm run demo -- NAME [--docs]`: a scripted incident on an embedded cluster of its own,
# driven and recorded by Playwright in Debian's Chromium (demo/NAME.spec.ts). Artifacts go
# to demo-results/NAME/: screenshots, summary.txt/.json and trace.zip. --docs also
# refreshes the README's screenshot (docs/demo-NAME.png) when the demo passes.
set -euo pipefail
cd "$(dirname "$0")/.."

demos() { for f in demo/*.spec.ts; do basename "$f" .spec.ts; done; }
usage() {
  echo "usage: npm run demo -- NAME [--docs]" >&2
  echo "demos:" >&2
  demos | sed 's/^/  /' >&2
}

name="${1:-}"
if [ -z "$name" ]; then usage; exit 0; fi
if [ "$name" = "-h" ] || [ "$name" = "--help" ]; then usage; exit 0; fi
if ! demos | grep -x -- "$name" >/dev/null; then  # not -q: an early exit would SIGPIPE demos under pipefail
  echo "demo: unknown demo '$name'" >&2
  usage
  exit 2
fi
docs=0
for arg in "${@:2}"; do
  case "$arg" in
    --docs) docs=1 ;;
    *) echo "demo: unknown option '$arg'" >&2; usage; exit 2 ;;
  esac
done

bash scripts/ensure-deps.sh
bash scripts/ensure-build.sh
if [ ! -x "${CHROMIUM_PATH:-/usr/bin/chromium}" ]; then
  echo "demo: Chromium not found at ${CHROMIUM_PATH:-/usr/bin/chromium}; install Debian's chromium (apt-get install -y chromium)" >&2
  exit 1
fi

results="demo-results/$name"
# a fresh cluster and fresh artifacts every run (the cluster lives in the server process)
rm -rf ".palisade/demo-$name" "$results"
mkdir -p "$results"
status=0
# a demo with a topology of its own (failover: three replicas, no webServer) has its own config
config=demo/playwright.config.ts
[ -f "demo/$name.config.ts" ] && config="demo/$name.config.ts"
PALISADE_DEMO="$name" PALISADE_DEMO_DOCS="$docs" npx playwright test -c "$config" || status=$?

# Playwright writes the trace under a per-test folder: keep it at a stable path
trace=$(find "$results/playwright" -name trace.zip -print -quit 2>/dev/null || true)
if [ -n "$trace" ]; then
  mv "$trace" "$results/trace.zip"
  # on failure Playwright's error context stays beside it
  [ "$status" = 0 ] && rm -rf "$results/playwright"
  echo "trace: $results/trace.zip (npx playwright show-trace $results/trace.zip)"
fi
[ -f "$results/summary.txt" ] && echo "summary: $results/summary.txt"
[ "$docs" = 1 ] && [ "$status" = 0 ] && echo "README screenshot: docs/demo-$name.png"
exit "$status"
