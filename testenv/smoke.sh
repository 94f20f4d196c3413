#!/usr/bin/env bash
# Starts etcd + kube-apiserver + kube-controller-manager on 127.0.0.1 free
# ports with throwaway state, waits for /readyz, prints it, then stops them.
# Proves the binaries from build.sh work and documents flags that do.
#
#   testenv/smoke.sh          # uses ETCD_BIN_DIR/KUBE_BIN_DIR or runs build.sh
#   KEEP=1 testenv/smoke.sh   # keep running until Ctrl-C, state dir kept
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
if [[ -z ${ETCD_BIN_DIR:-} || -z ${KUBE_BIN_DIR:-} ]]; then
  eval "$("$here/build.sh" etcd kube-apiserver kube-controller-manager)"
fi

state=$(mktemp -d "${TMPDIR:-/tmp}/palisade-testenv.XXXXXX")
pids=()
# Stop in reverse start order so the apiserver never outlives etcd (it
# would sit retrying etcd during its own shutdown).
cleanup() {
  local i
  for ((i = ${#pids[@]} - 1; i >= 0; i--)); do
    kill "${pids[i]}" 2>/dev/null || true
    wait "${pids[i]}" 2>/dev/null || true
  done
  [[ -n ${KEEP:-} ]] || rm -rf "$state"
}
trap cleanup EXIT
trap 'exit 130' INT TERM # so Ctrl-C also runs cleanup

log() { printf '[smoke] %s\n' "$*" >&2; }

free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# wait_for NAME CMD... -> retries CMD for up to 60s.
wait_for() {
  local name=$1 start=$SECONDS
  shift
  until "$@" >/dev/null 2>&1; do
    if ((SECONDS - start > 60)); then
      log "$name not ready after 60s; logs in $state"
      tail -n 30 "$state/$name.log" >&2 || true
      return 1
    fi
    sleep 0.5
  done
  log "$name ready after $((SECONDS - start))s"
}

etcd_port=$(free_port)
peer_port=$(free_port)
api_port=$(free_port)
kcm_port=$(free_port)
token=$(openssl rand -hex 16)

# Service-account signing key pair and a static admin token (system:masters
# bypasses RBAC, so no bootstrap policy wait is needed for the first calls).
openssl genrsa -out "$state/sa.key" 2048 2>/dev/null
openssl rsa -in "$state/sa.key" -pubout -out "$state/sa.pub" 2>/dev/null
printf '%s,admin,admin-uid,"system:masters"\n' "$token" >"$state/tokens.csv"

log "etcd on 127.0.0.1:$etcd_port"
"$ETCD_BIN_DIR/etcd" \
  --name=default \
  --data-dir="$state/etcd" \
  --listen-client-urls="http://127.0.0.1:$etcd_port" \
  --advertise-client-urls="http://127.0.0.1:$etcd_port" \
  --listen-peer-urls="http://127.0.0.1:$peer_port" \
  --initial-advertise-peer-urls="http://127.0.0.1:$peer_port" \
  --initial-cluster="default=http://127.0.0.1:$peer_port" \
  --unsafe-no-fsync \
  >"$state/etcd.log" 2>&1 &
pids+=($!)
wait_for etcd curl -fsS "http://127.0.0.1:$etcd_port/health"

log "kube-apiserver on https://127.0.0.1:$api_port"
"$KUBE_BIN_DIR/kube-apiserver" \
  --etcd-servers="http://127.0.0.1:$etcd_port" \
  --bind-address=127.0.0.1 \
  --advertise-address=127.0.0.1 \
  --secure-port="$api_port" \
  --cert-dir="$state/apiserver-certs" \
  --token-auth-file="$state/tokens.csv" \
  --authorization-mode=Node,RBAC \
  --service-account-issuer=https://kubernetes.default.svc.cluster.local \
  --service-account-key-file="$state/sa.pub" \
  --service-account-signing-key-file="$state/sa.key" \
  --service-cluster-ip-range=10.0.0.0/24 \
  >"$state/kube-apiserver.log" 2>&1 &
pids+=($!)
api="https://127.0.0.1:$api_port"
wait_for kube-apiserver curl -kfsS "$api/readyz"

cat >"$state/kubeconfig" <<EOF
apiVersion: v1
kind: Config
clusters:
- name: testenv
  cluster: {server: "$api", insecure-skip-tls-verify: true}
users:
- name: admin
  user: {token: "$token"}
contexts:
- name: testenv
  context: {cluster: testenv, user: admin}
current-context: testenv
EOF

log "kube-controller-manager on https://127.0.0.1:$kcm_port"
# --flex-volume-plugin-dir defaults to a path under /usr and is created at
# start-up, so keep it in the state dir.
"$KUBE_BIN_DIR/kube-controller-manager" \
  --kubeconfig="$state/kubeconfig" \
  --authentication-kubeconfig="$state/kubeconfig" \
  --authorization-kubeconfig="$state/kubeconfig" \
  --bind-address=127.0.0.1 \
  --secure-port="$kcm_port" \
  --cert-dir="$state/kcm-certs" \
  --leader-elect=false \
  --service-account-private-key-file="$state/sa.key" \
  --use-service-account-credentials=true \
  --flex-volume-plugin-dir="$state/flexvolume" \
  >"$state/kube-controller-manager.log" 2>&1 &
pids+=($!)
wait_for kube-controller-manager curl -kfsS "https://127.0.0.1:$kcm_port/healthz"

curl -kfsS "$api/readyz?verbose" | tail -n 3
curl -kfsS -H "Authorization: Bearer $token" "$api/version"
echo
if [[ -n ${KEEP:-} ]]; then
  log "running; KUBECONFIG=$state/kubeconfig; Ctrl-C to stop"
  wait
fi
