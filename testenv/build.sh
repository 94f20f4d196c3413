#!/usr/bin/env bash
# Builds the real control-plane binaries (etcd, kube-apiserver,
# kube-controller-manager, kube-scheduler) and the real nodes' kubelet and kube-proxy
# (testenv/nodes/) from the wrapper modules in testenv/etcd and testenv/kube into a cache
# outside the repo.
#
#   testenv/build.sh                     # everything
#   testenv/build.sh etcd kube-apiserver # only these
#   eval "$(testenv/build.sh)"           # sets ETCD_BIN_DIR, KUBE_BIN_DIR and HELM_BIN_DIR
#
# Progress goes to stderr; stdout carries only the final VAR=dir lines.
# A binary that already exists and answers --version with the pinned
# version is reused, so a warm run costs a few hundred milliseconds.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cache=${PALISADE_TESTENV_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/palisade/testenv}
mkdir -p "$cache" && cache=$(cd "$cache" && pwd) # builds run in other dirs

# The committed go.mod/go.sum are the only source of truth: no toolchain
# download, no workspace, no go.mod edits (-mod=readonly beats GOFLAGS).
export GOTOOLCHAIN=local GOWORK=off CGO_ENABLED=0
# a go new enough for the wrappers: the one on PATH, or the toolchain from the module proxy
PATH="$("$here/../scripts/ensure-go.sh"):$PATH"
export PATH
go_build_flags=(-mod=readonly -trimpath)

log() { printf '[testenv] %s\n' "$*" >&2; }

# module_version DIR MODULE -> version the wrapper pins (read from go.mod).
module_version() {
  (cd "$here/$1" && go list -m -f '{{.Version}}' "$2")
}

etcd_version=$(module_version etcd go.etcd.io/etcd/server/v3)
kube_version=$(module_version kube k8s.io/kubernetes)
helm_version=$(module_version helm helm.sh/helm/v3)
etcd_bin="$cache/etcd-$etcd_version/bin"
kube_bin="$cache/kubernetes-$kube_version/bin"
# helm's default Kubernetes version (what `helm template` and `helm lint` assume without a cluster)
# is stamped as upstream's Makefile does: client-go v0.X.Y -> 1.X. Without it helm assumes v1.20
# and refuses every chart with kubeVersion >= 1.21. The directory names it, so an unstamped
# binary cached before is never reused.
helm_kube_minor=$(cd "$here/helm" && go list -m -f '{{.Version}}' k8s.io/client-go)
helm_kube_minor=${helm_kube_minor#v0.}
helm_kube_minor=${helm_kube_minor%%.*}
helm_bin="$cache/helm-$helm_version-kube1.$helm_kube_minor/bin"

# Same variables Kubernetes' hack/lib/version.sh stamps, minus the git
# commit (the module zip carries none); without them the binaries report
# v0.0.0-master and compatibility-version checks misbehave.
kube_ldflags() {
  local minor=${kube_version#v*.} ldflags="-s -w" pkg
  minor=${minor%%.*}
  local major=${kube_version#v}
  major=${major%%.*}
  for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
    ldflags+=" -X $pkg.gitVersion=$kube_version"
    ldflags+=" -X $pkg.gitMajor=$major -X $pkg.gitMinor=$minor"
  done
  printf '%s' "$ldflags"
}

# version_ok BIN WANT -> true when BIN --version mentions WANT.
# (output captured first: `| grep -q` under pipefail would fail when grep quits early and
# the binary is killed writing the rest of its version text)
version_ok() {
  local out
  local ask=(--version)
  [[ ${1##*/} == helm ]] && ask=(version --short) # helm has no --version flag
  [[ -x $1 ]] && out=$(timeout 30 "$1" "${ask[@]}" 2>/dev/null) && [[ $out == *"$2"* ]]
}

# build NAME MODULE_DIR PACKAGE OUT_DIR WANT_VERSION LDFLAGS
build() {
  local name=$1 dir=$2 pkg=$3 out=$4 want=$5 ldflags=$6
  if version_ok "$out/$name" "$want"; then
    log "$name: cached ($out/$name)"
    return
  fi
  mkdir -p "$out"
  log "$name: building $pkg ..."
  local start=$SECONDS tmp="$out/.$name.tmp.$$"
  # Build next to the target and rename, so an interrupted build never
  # leaves a half-written binary that a later run would trust.
  (cd "$here/$dir" && go build "${go_build_flags[@]}" -ldflags "$ldflags" \
    -o "$tmp" "$pkg") || { rm -f "$tmp"; return 1; }
  mv -f "$tmp" "$out/$name"
  version_ok "$out/$name" "$want" || {
    log "$name: built, but --version does not report $want"
    return 1
  }
  log "$name: done in $((SECONDS - start))s"
}

build_one() {
  case $1 in
  etcd)
    build etcd etcd go.etcd.io/etcd/server/v3 "$etcd_bin" \
      "${etcd_version#v}" "-s -w"
    ;;
  kube-apiserver | kube-controller-manager | kube-scheduler | kubelet | kube-proxy)
    build "$1" kube "k8s.io/kubernetes/cmd/$1" "$kube_bin" \
      "$kube_version" "$(kube_ldflags)"
    ;;
  helm)
    # helm stamps its version into an internal package; without it `helm version` says v3.0+unreleased
    local hf="-s -w -X helm.sh/helm/v3/internal/version.version=$helm_version" p
    for p in helm.sh/helm/v3/pkg/chartutil helm.sh/helm/v3/pkg/lint/rules; do
      hf+=" -X $p.k8sVersionMajor=1 -X $p.k8sVersionMinor=$helm_kube_minor"
    done
    build helm helm helm.sh/helm/v3/cmd/helm "$helm_bin" "$helm_version" "$hf"
    ;;
  *)
    log "unknown binary: $1"
    return 2
    ;;
  esac
}

main() {
  local targets=("$@") t total=$SECONDS
  # one build at a time per cache: parallel test processes may all ask at once
  exec 9>"$cache/.build.lock"
  flock 9
  if ((${#targets[@]} == 0)); then
    targets=(etcd kube-apiserver kube-controller-manager kube-scheduler helm)
  fi
  log "$(go version); cache $cache"
  for t in "${targets[@]}"; do build_one "$t"; done
  log "all done in $((SECONDS - total))s"
  printf 'ETCD_BIN_DIR=%q\nKUBE_BIN_DIR=%q\nHELM_BIN_DIR=%q\n' "$etcd_bin" "$kube_bin" "$helm_bin"
}

main "$@"
