// Who acts. Every console mutation is done as the signed-in person on that cluster: with their
// own token (token sign-in, bearer scripts), by impersonating them with the console's
// credentials (OIDC), or, for the one-time link on loopback, with the console's kubeconfig
// credentials (whose owner started it). apisFor() gives the guarded actions clients that act
// that way, so the cluster's own RBAC decides and its audit log names the person.
import * as k8s from '@kubernetes/client-node';
import type { ClusterId } from '../../lib/console/protocol.js';
import { type Credential, type Identity, nameOn } from '../auth/identity.js';
import { credentialKey, makeClientAs } from '../auth/kubeAs.js';
import type { ClusterConnection } from '../kube/connection.js';

export type ActorVia = 'console-credentials' | 'token' | 'impersonation';

export interface Actor {
  /** the Kubernetes user name the cluster knows the person by */
  name: string;
  via: ActorVia;
  credential: Credential;
}

const VIA: Record<Credential['kind'], ActorVia> = {
  console: 'console-credentials',
  token: 'token',
  impersonate: 'impersonation',
};

/** The person behind a request, as they act on one cluster. */
export function actorOf(identity: Identity, cluster: ClusterId): Actor {
  return {
    name: nameOn(identity, cluster),
    via: VIA[identity.credential.kind],
    credential: identity.credential,
  };
}

/** The clients an action uses: every read before deciding, and the write itself. */
export interface ActionApis {
  core: k8s.CoreV1Api;
  storage: k8s.StorageV1Api;
  custom: k8s.CustomObjectsApi;
  /** node Leases, for whether a fence is coming (server/actions/outlook.ts) */
  coordination: k8s.CoordinationV1Api;
  /** a pod's controller, for how many replicas it has ready (server/actions/evict.ts) */
  apps: k8s.AppsV1Api;
}

const cache = new WeakMap<ClusterConnection, Map<string, ActionApis>>();

export function apisFor(conn: ClusterConnection, actor: Actor): ActionApis {
  let byActor = cache.get(conn);
  if (!byActor) cache.set(conn, (byActor = new Map()));
  const key = credentialKey(actor.credential);
  let apis = byActor.get(key);
  if (!apis) {
    const kc = conn.spec.kc;
    apis = {
      core: makeClientAs(kc, actor.credential, k8s.CoreV1Api),
      storage: makeClientAs(kc, actor.credential, k8s.StorageV1Api),
      custom: makeClientAs(kc, actor.credential, k8s.CustomObjectsApi),
      coordination: makeClientAs(kc, actor.credential, k8s.CoordinationV1Api),
      apps: makeClientAs(kc, actor.credential, k8s.AppsV1Api),
    };
    byActor.set(key, apis);
  }
  return apis;
}
