#!/usr/bin/env bash
# Make Prometheus's promtool available at <repo>/.palisade/bin/promtool for the chart's alert
# tests (deploy/test/alerts.test.ts: `promtool check rules` and `promtool test rules`).
# Downloaded from Debian's `prometheus` package and unpacked by hand (only promtool is kept; the
# server is not installed). Idempotent and quiet on success; errors go to stderr.
set -euo pipefail

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bin_dir="$repo_root/.palisade/bin"
target="$bin_dir/promtool"
package='prometheus'

die() {
  echo "ensure-promtool: $*" >&2
  exit 1
}

[[ -x $target ]] && "$target" --version >/dev/null 2>&1 && exit 0

# shellcheck source=lib/deb-binary.sh
source "$repo_root/scripts/lib/deb-binary.sh"
deb_binary usr/bin/promtool "$target"
"$target" --version >/dev/null 2>&1 || die "$target does not run"
