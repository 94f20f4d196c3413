// Who acts. Until sign-in exists every request comes from "a console user" and the console acts
// with its own credentials — and says so in every record. Sign-in plugs in here and nowhere
// else: the request context carries an Actor, and apisFor() gives the actions clients that act
// as that person (Kubernetes impersonation), so the cluster's own RBAC decides.
import * as k8s from '@kubernetes/client-node';
import type { ClusterConnection } from '../kube/connection.js';

export interface Actor {
  /** a Kubernetes user name when impersonating; a description otherwise */
  name: string;
  via: 'console-credentials' | 'impersonation';
}

export const CONSOLE_ACTOR: Actor = {
  name: 'a console user (the console acts with its own credentials)',
  via: 'console-credentials',
};

/** The request's actor: the signed-in person once sign-in sets ctx.actor, else the console. */
export function actorOf(ctx: { actor?: Actor }): Actor {
  return ctx.actor ?? CONSOLE_ACTOR;
}

/** The clients an action uses: every read before deciding, and the write itself. */
export interface ActionApis {
  core: k8s.CoreV1Api;
  storage: k8s.StorageV1Api;
  custom: k8s.CustomObjectsApi;
}

/** The connection's kubeconfig, impersonating the actor when there is a person to act as. */
export function kubeConfigFor(kc: k8s.KubeConfig, actor: Actor): k8s.KubeConfig {
  if (actor.via !== 'impersonation') return kc;
  const user = kc.getCurrentUser();
  if (!user) throw new Error('the kubeconfig has no current user to impersonate with');
  const as = new k8s.KubeConfig();
  as.loadFromOptions({
    clusters: kc.clusters,
    contexts: kc.contexts,
    currentContext: kc.currentContext,
    // client-node sends Impersonate-User for a user with impersonateUser (kubeconfig "as:")
    users: kc.users.map((u) => (u.name === user.name ? { ...u, impersonateUser: actor.name } : u)),
  });
  return as;
}

const cache = new WeakMap<ClusterConnection, Map<string, ActionApis>>();

export function apisFor(conn: ClusterConnection, actor: Actor): ActionApis {
  let byActor = cache.get(conn);
  if (!byActor) cache.set(conn, (byActor = new Map()));
  const key = `${actor.via}:${actor.name}`;
  let apis = byActor.get(key);
  if (!apis) {
    const kc = kubeConfigFor(conn.spec.kc, actor);
    apis = {
      core: kc.makeApiClient(k8s.CoreV1Api),
      storage: kc.makeApiClient(k8s.StorageV1Api),
      custom: kc.makeApiClient(k8s.CustomObjectsApi),
    };
    byActor.set(key, apis);
  }
  return apis;
}
