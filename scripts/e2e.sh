#!/usr/bin/env bash
# Playwright end-to-end tests against the built console and an embedded cluster, in
# Debian's Chromium. Playwright starts and stops the server (see e2e/playwright.config.ts).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/ensure-build.sh
if [ ! -x "${CHROMIUM_PATH:-/usr/bin/chromium}" ]; then
  echo "e2e: Chromium not found at ${CHROMIUM_PATH:-/usr/bin/chromium}; install Debian's chromium (apt-get install -y chromium)" >&2
  exit 1
fi
npx playwright test -c e2e/playwright.config.ts
