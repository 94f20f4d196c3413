// Kubernetes clients that act as a person. A token credential replaces the kubeconfig's user
// with the person's token; an impersonation adds Impersonate-* headers to Palisade's own
// credentials. client-node keeps request headers in a name -> value record, which cannot hold
// a header twice, so impersonated clients get their own HTTP library: it hands node-fetch a
// list of pairs instead, which node-fetch sends as repeated header lines.
import { createHash } from 'node:crypto';
import * as k8s from '@kubernetes/client-node';
import { type HeaderPairs, impersonationHeaders } from '../../lib/auth/impersonation.js';
import type { Credential } from './identity.js';

type ApiType<T extends k8s.ApiType> = new (config: k8s.Configuration) => T;

/** client-node's own fetch library, with extra header lines added to every request. */
class HeaderLinesHttp implements k8s.HttpLibrary {
  private readonly inner = new k8s.IsomorphicFetchHttpLibrary();

  constructor(private readonly lines: HeaderPairs) {}

  send(request: k8s.RequestContext) {
    const own = request.getHeaders() as Record<string, string>;
    const pairs: HeaderPairs = [
      // a client may never choose whom Palisade impersonates
      ...Object.entries(own).filter(([k]) => !/^impersonate-/i.test(k)),
      ...this.lines,
    ];
    // node-fetch's Headers takes an iterable of pairs and appends each one
    (request as unknown as { getHeaders: () => unknown }).getHeaders = () => pairs;
    return this.inner.send(request);
  }
}

/** The kubeconfig acting with a person's token: same cluster and CA, the token as the only credential. */
export function kubeConfigWithToken(kc: k8s.KubeConfig, token: string): k8s.KubeConfig {
  const cluster = kc.getCurrentCluster();
  if (!cluster) throw new Error('the kubeconfig has no current cluster');
  const out = new k8s.KubeConfig();
  out.loadFromOptions({
    clusters: [cluster],
    users: [{ name: 'palisade-signed-in-user', token }],
    contexts: [{ name: 'as-user', cluster: cluster.name, user: 'palisade-signed-in-user' }],
    currentContext: 'as-user',
  });
  return out;
}

export function makeClientAs<T extends k8s.ApiType>(
  kc: k8s.KubeConfig,
  credential: Credential,
  api: ApiType<T>,
): T {
  if (credential.kind === 'console') return kc.makeApiClient(api);
  if (credential.kind === 'token') return kubeConfigWithToken(kc, credential.token).makeApiClient(api);
  const cluster = kc.getCurrentCluster();
  if (!cluster) throw new Error('the kubeconfig has no current cluster');
  const config = k8s.createConfiguration({
    baseServer: new k8s.ServerConfiguration(cluster.server, {}),
    authMethods: { default: kc },
    httpApi: new HeaderLinesHttp(impersonationHeaders(credential.as)),
  });
  return new api(config);
}

/** A key for caches of clients and decisions: never the token itself. */
export function credentialKey(c: Credential): string {
  if (c.kind === 'console') return 'console';
  if (c.kind === 'token') return `token:${createHash('sha256').update(c.token).digest('base64url')}`;
  return `as:${JSON.stringify([c.as.username, c.as.uid ?? '', [...c.as.groups].sort(), c.as.extra ?? {}])}`;
}
