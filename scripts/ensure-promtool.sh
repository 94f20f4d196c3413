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

for tool in apt-get dpkg-deb; do
  command -v "$tool" >/dev/null 2>&1 || die "$tool not found; this script needs a Debian-based system (package $package)"
done

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
download() { (cd "$tmp" && apt-get download -q "$package") >"$tmp/download.log" 2>&1; }
if ! download; then
  apt-get update -q >"$tmp/update.log" 2>&1 || {
    cat "$tmp/update.log" >&2
    die "apt-get update failed"
  }
  download || {
    cat "$tmp/download.log" >&2
    die "apt-get download $package failed"
  }
fi

shopt -s nullglob
debs=("$tmp"/"$package"_*.deb)
((${#debs[@]} == 1)) || die "expected one $package .deb after download, found ${#debs[@]}"
dpkg-deb -x "${debs[0]}" "$tmp/root" || die "dpkg-deb -x ${debs[0]} failed"
[[ -f $tmp/root/usr/bin/promtool ]] || die "${debs[0]} does not contain usr/bin/promtool"
mkdir -p "$bin_dir"
install -m 0755 "$tmp/root/usr/bin/promtool" "$target.tmp.$$"
mv -f "$target.tmp.$$" "$target"
"$target" --version >/dev/null 2>&1 || die "$target does not run"
