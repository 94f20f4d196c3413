#!/usr/bin/env bash
# Make Debian's kubectl 1.20 (package kubernetes-client) available at
# <repo>/.palisade/bin/kubectl for the kubectl conformance tests.
#
# Why not `apt-get install`: on machines where /usr/bin/kubectl comes from
# google-cloud-sdk the install fails with a file conflict, so the package is
# downloaded and unpacked by hand and only its kubectl binary is kept.
# Idempotent and quiet on success; errors go to stderr with a non-zero exit.
set -euo pipefail

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bin_dir="$repo_root/.palisade/bin"
target="$bin_dir/kubectl"
package='kubernetes-client'
want='v1.20'

die() {
  echo "ensure-kubectl: $*" >&2
  exit 1
}

# The client version line looks like: Client Version: version.Info{... GitVersion:"v1.20.2", ...}
has_wanted_version() {
  [[ -x "$target" ]] || return 1
  local out
  out="$("$target" version --client 2>/dev/null)" || return 1
  [[ "$out" == *"GitVersion:\"$want."* ]]
}

has_wanted_version && exit 0

for tool in apt-get dpkg-deb; do
  command -v "$tool" >/dev/null 2>&1 || die "$tool not found; this script needs a Debian-based system (package $package)"
done

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

# apt-get download writes into the current directory; only refresh the package
# lists when the first attempt fails (stale or missing lists), to stay quick.
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
[[ -f "$tmp/root/usr/bin/kubectl" ]] || die "${debs[0]} does not contain usr/bin/kubectl"

mkdir -p "$bin_dir"
# Copy beside the target and rename, so a half-written binary is never left at the path.
install -m 0755 "$tmp/root/usr/bin/kubectl" "$target.tmp.$$"
mv -f "$target.tmp.$$" "$target"

has_wanted_version || die "$target does not report $want (got: $("$target" version --client 2>&1 | head -n 1))"
