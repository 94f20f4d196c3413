#!/usr/bin/env bash
# Regenerates docs/embedded-cluster.png: a real kubectl session against the embedded
# cluster, rendered as a terminal in headless Chromium. Needs Debian's chromium.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/ensure-deps.sh
bash scripts/ensure-kubectl.sh
work=$(mktemp -d)
trap 'kill $pid 2>/dev/null || true; rm -rf "$work"' EXIT
npx tsx sim/cli.ts --port 0 --kubeconfig "$work/kubeconfig" > "$work/cluster.log" 2>&1 &
pid=$!
for _ in $(seq 1 100); do grep -q '^kubeconfig:' "$work/cluster.log" && break; sleep 0.2; done
k() { .palisade/bin/kubectl --kubeconfig "$work/kubeconfig" --cache-dir "$work/cache" "$@" 2>&1; }
cat > "$work/web.yaml" <<'YAML'
apiVersion: v1
kind: Pod
metadata: {name: web-0, labels: {app: web}}
spec:
  nodeName: node-a
  containers: [{name: nginx, image: "nginx:1.25"}]
YAML
{
  echo '$ kubectl get namespaces'; k get namespaces
  echo '$ kubectl create -f web.yaml'; k create -f "$work/web.yaml"
  echo '$ kubectl delete pod web-0 --wait=false'; k delete pod web-0 --wait=false
  echo '$ kubectl get pods'; k get pods
  echo '$ kubectl delete pod web-0 --force --grace-period=0'; k delete pod web-0 --force --grace-period=0
  echo '$ kubectl get pods'; k get pods
} > "$work/session.txt"
python3 - "$work/session.txt" "$work/page.html" <<'PY'
import html, sys
text = open(sys.argv[1]).read()
lines = []
for line in text.splitlines():
    esc = html.escape(line)
    if line.startswith('$ '):
        esc = '<span class="p">$</span> <span class="c">' + html.escape(line[2:]) + '</span>'
    elif line.startswith('warning:'):
        esc = '<span class="w">' + esc + '</span>'
    lines.append(esc)
open(sys.argv[2], 'w').write('''<!doctype html><meta charset="utf-8"><style>
body{margin:0;background:#1e1e2e}
.t{font:14px/1.45 "DejaVu Sans Mono",monospace;color:#cdd6f4;padding:18px 22px;white-space:pre-wrap;width:1060px}
.bar{background:#313244;color:#a6adc8;font:12px sans-serif;padding:6px 12px}
.p{color:#a6e3a1}.c{color:#f9e2af}.w{color:#fab387}
</style><div class="bar">kubectl 1.20 → Palisade embedded cluster (https://127.0.0.1, context palisade-embedded)</div><div class="t">''' + '\n'.join(lines) + '</div>')
PY
chromium --headless --no-sandbox --disable-gpu --disable-background-networking --disable-component-update --disable-sync \
  --hide-scrollbars --window-size=1100,560 --screenshot="$PWD/docs/embedded-cluster.png" "file://$work/page.html" >/dev/null 2>&1
echo "wrote docs/embedded-cluster.png"
