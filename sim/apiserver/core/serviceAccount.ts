// kube-apiserver's ServiceAccount admission plugin (on by default), for pod creation: the pod
// runs as `default` unless it names a ServiceAccount, which must exist (403 otherwise; the
// `default` one is waited for briefly, since a controller creates it just after the
// namespace), and every container mounts a projected kube-api-access-xxxxx volume with a
// bound token, the cluster CA and the namespace unless automounting is turned off.
import { errors } from '../http/errors.js';
import type { KubeObject } from '../resources/types.js';
import { generateName } from './names.js';

type Obj = Record<string, any>;

export const TOKEN_MOUNT_PATH = '/var/run/secrets/kubernetes.io/serviceaccount';
const VOLUME_PREFIX = 'kube-api-access-';

/** the plugin's live lookup: 10 tries 100-200 ms apart for `default`, one for any other */
async function lookup(get: () => KubeObject | undefined, name: string): Promise<KubeObject | undefined> {
  const attempts = name === 'default' ? 10 : 1;
  const interval = 100 + Math.floor(Math.random() * 100);
  for (let i = 0; i < attempts; i++) {
    if (i) await new Promise((r) => setTimeout(r, interval));
    const sa = get();
    if (sa) return sa;
  }
  return undefined;
}

export function tokenVolumeSource(): Obj {
  return {
    defaultMode: 420,
    sources: [
      { serviceAccountToken: { expirationSeconds: 3607, path: 'token' } },
      { configMap: { name: 'kube-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
      {
        downwardAPI: {
          items: [{ path: 'namespace', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' } }],
        },
      },
    ],
  };
}

function mountToken(spec: Obj) {
  const volumes: Obj[] = spec.volumes ?? [];
  const existing = volumes.find((v) => typeof v?.name === 'string' && v.name.startsWith(VOLUME_PREFIX));
  const name: string = existing?.name ?? generateName(VOLUME_PREFIX);
  let needed = false;
  for (const c of [...(spec.initContainers ?? []), ...(spec.containers ?? [])]) {
    if (!c || typeof c !== 'object') continue;
    // a container that mounts something at the token path keeps its own
    if ((c.volumeMounts ?? []).some((m: Obj) => m?.mountPath === TOKEN_MOUNT_PATH)) continue;
    c.volumeMounts = [...(c.volumeMounts ?? []), { name, readOnly: true, mountPath: TOKEN_MOUNT_PATH }];
    needed = true;
  }
  if (!existing && needed) spec.volumes = [...volumes, { name, projected: tokenVolumeSource() }];
}

export async function admitServiceAccount(
  pod: KubeObject,
  getServiceAccount: (ns: string, name: string) => KubeObject | undefined,
) {
  const p = pod as Obj;
  if (p.metadata.annotations?.['kubernetes.io/config.mirror'] !== undefined) return;
  const spec: Obj = (p.spec ??= {});
  if (!spec.serviceAccountName) spec.serviceAccountName = 'default';
  const ns: string = p.metadata.namespace;
  const name: string = spec.serviceAccountName;
  const sa = (await lookup(() => getServiceAccount(ns, name), name)) as Obj | undefined;
  if (!sa)
    throw errors.forbidden(
      `pods "${p.metadata.name ?? ''}" is forbidden: error looking up service account ${ns}/${name}: serviceaccount "${name}" not found`,
      { group: '', plural: 'pods' },
      p.metadata.name,
    );
  spec.serviceAccount = name;
  const automount = spec.automountServiceAccountToken ?? sa.automountServiceAccountToken ?? true;
  if (automount) mountToken(spec);
  if (!(spec.imagePullSecrets ?? []).length && (sa.imagePullSecrets ?? []).length)
    spec.imagePullSecrets = structuredClone(sa.imagePullSecrets);
}
