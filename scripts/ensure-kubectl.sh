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

# shellcheck source=lib/deb-binary.sh
source "$repo_root/scripts/lib/deb-binary.sh"
deb_binary usr/bin/kubectl "$target"

has_wanted_version || die "$target does not report $want (got: $("$target" version --client 2>&1 | head -n 1))"
