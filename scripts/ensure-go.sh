#!/usr/bin/env bash
# Prints a directory holding a `go` >= the version testenv/ needs (etcd 3.6.16's go.mod asks
# for 1.26). Uses the go on PATH when it is new enough; otherwise fetches the Go toolchain
# from the Go module proxy (golang.org/toolchain, the same zip `GOTOOLCHAIN` switching
# downloads) into ~/.cache/palisade/, once. Progress goes to stderr.
set -euo pipefail
want=1.26.8
need_minor=26
cache=${PALISADE_TESTENV_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/palisade/testenv}/go$want

new_enough() {
  local v
  v=$("$1" env GOVERSION 2>/dev/null) || return 1 # go1.26.8
  v=${v#go}
  [[ ${v%%.*} == 1 ]] || return 1
  v=${v#1.}
  ((${v%%.*} >= need_minor))
}

if command -v go >/dev/null 2>&1 && new_enough "$(command -v go)"; then
  dirname "$(command -v go)"
  exit 0
fi
if [[ -x $cache/bin/go ]] && new_enough "$cache/bin/go"; then
  echo "$cache/bin"
  exit 0
fi

proxy=${GOPROXY:-https://proxy.golang.org}
proxy=${proxy%%,*}
[[ $proxy == direct || $proxy == off ]] && proxy=https://proxy.golang.org
arch=$(uname -m)
case $arch in x86_64) arch=amd64 ;; aarch64) arch=arm64 ;; esac
url="$proxy/golang.org/toolchain/@v/v0.0.1-go$want.linux-$arch.zip"
echo "[go] no go >= 1.$need_minor on PATH; fetching go$want from $url (~70 MB)" >&2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
curl -fsSL --retry 3 -o "$tmp/go.zip" "$url"
python3 - "$tmp/go.zip" "$tmp/x" <<'PY'
import sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as z:
    for info in z.infolist():
        path = z.extract(info, sys.argv[2])
        mode = info.external_attr >> 16
        if mode:
            import os
            os.chmod(path, mode & 0o777)
PY
root=$(echo "$tmp"/x/golang.org/toolchain@*)
chmod +x "$root"/bin/* "$root"/pkg/tool/*/* 2>/dev/null || true
mkdir -p "$(dirname "$cache")"
rm -rf "$cache" && mv "$root" "$cache"
new_enough "$cache/bin/go" || { echo "[go] fetched toolchain does not run" >&2; exit 1; }
echo "[go] go$want ready in $cache" >&2
echo "$cache/bin"
