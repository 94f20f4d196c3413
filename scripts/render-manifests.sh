#!/usr/bin/env bash
# Renders deploy/manifests/palisade.yaml from the Helm chart with its default values, for
# people who install with `kubectl apply` instead of Helm:
#
#   helm template palisade deploy/helm/palisade
#
# The helm binary is $HELM_BIN_DIR/helm, else the one testenv/build.sh builds (pinned, so the
# output never depends on whichever helm is on PATH). `--check` renders to a temporary file and
# fails if the committed one differs (deploy/test/chart.test.ts runs the same comparison).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="$root/deploy/manifests/palisade.yaml"

if [[ -z ${HELM_BIN_DIR:-} || ! -x ${HELM_BIN_DIR:-}/helm ]]; then
  eval "$(bash "$root/testenv/build.sh" helm)"
fi
helm="$HELM_BIN_DIR/helm"

tmp="$(mktemp)"
trap 'rm -f "$tmp"' EXIT
(cd "$root" && "$helm" template palisade deploy/helm/palisade) >"$tmp"

if [[ ${1:-} == --check ]]; then
  if ! diff -u "$out" "$tmp"; then
    echo "render-manifests: $out is stale: run npm run manifests" >&2
    exit 1
  fi
  exit 0
fi
mv -f "$tmp" "$out"
trap - EXIT
echo "wrote $out ($(grep -c '^kind:' "$out") objects)"
