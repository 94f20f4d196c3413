// Acting below the API, as `etcdctl del` or a restore from an older backup would: the object
// goes without a deletionTimestamp and no finalizer is honoured. On the embedded cluster
// its store; on the real one etcd's JSON gateway (kube-apiserver keys objects as
// /registry/<plural>/<namespace>/<name>, custom resources under /registry/<group>/<plural>/...).
import type { EmbeddedCluster } from '../cluster.js';

export async function removeFromStorage(
  cluster: Pick<EmbeddedCluster, 'apiserver'>,
  group: string,
  version: string,
  plural: string,
  namespace: string,
  name: string,
): Promise<boolean> {
  const server = cluster.apiserver;
  if ('core' in server) {
    const core = server.core;
    const r = core.registry.lookup(group, version, plural);
    if (!r) throw new Error(`no resource ${plural}.${group}/${version}`);
    return core.store.remove(core.key(r), namespace, name) !== undefined;
  }
  // built-in resources are keyed by resource alone, custom resources by group and resource
  const builtIn = !group.includes('.') || group.endsWith('.k8s.io');
  const key = `/registry/${builtIn ? '' : `${group}/`}${plural}/${namespace}/${name}`;
  const res = await fetch(`${server.etcdUrl}/v3/kv/deleterange`, {
    method: 'POST',
    body: JSON.stringify({ key: Buffer.from(key).toString('base64') }),
  });
  if (!res.ok) throw new Error(`etcd deleterange ${key}: ${res.status} ${await res.text()}`);
  const body = (await res.json()) as { deleted?: string };
  return Number(body.deleted ?? 0) > 0;
}
