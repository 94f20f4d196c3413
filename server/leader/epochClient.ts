// Kubernetes clients for the leader's writes: every create, update and patch carries the
// epoch this process leads with as its fieldManager (lib/leader/epoch.ts), where Palisade's
// webhook can compare it with the Lease read live. A client asked to write while this process
// does not lead refuses before anything is sent: no lame-duck work. Deletes carry no options a
// webhook could read, so Palisade-owned objects are deleted through their finalizer's removal,
// which is an update and is fenced.
import * as k8s from '@kubernetes/client-node';
import { epochFieldManager } from '../../lib/leader/epoch.js';

export class NotLeading extends Error {
  constructor(what: string) {
    super(`not the leader: refusing to ${what} (another Palisade leads the controllers now)`);
    this.name = 'NotLeading';
  }
}

const WRITES = new Set(['POST', 'PUT', 'PATCH']);

/** client-node's own HTTP library, with the epoch stamped on every write (or the write refused). */
class EpochStampingHttp implements k8s.HttpLibrary {
  private readonly inner = new k8s.IsomorphicFetchHttpLibrary();

  constructor(private readonly epoch: () => number | undefined) {}

  send(request: k8s.RequestContext) {
    const method = String(request.getHttpMethod()).toUpperCase();
    if (WRITES.has(method) || method === 'DELETE') {
      const epoch = this.epoch();
      if (epoch === undefined) throw new NotLeading(`${method} ${new URL(request.getUrl()).pathname}`);
      if (WRITES.has(method)) {
        const url = new URL(request.getUrl());
        url.searchParams.set('fieldManager', epochFieldManager(epoch));
        request.setUrl(url.toString());
      }
    }
    return this.inner.send(request);
  }
}

type ApiType<T extends k8s.ApiType> = new (config: k8s.Configuration) => T;

/** An API client whose writes carry the leader's epoch; `epoch()` answers undefined when not leading. */
export function leaderClient<T extends k8s.ApiType>(
  kc: k8s.KubeConfig,
  api: ApiType<T>,
  epoch: () => number | undefined,
): T {
  const cluster = kc.getCurrentCluster();
  if (!cluster) throw new Error('the kubeconfig has no current cluster');
  return new api(
    k8s.createConfiguration({
      baseServer: new k8s.ServerConfiguration(cluster.server, {}),
      authMethods: { default: kc },
      httpApi: new EpochStampingHttp(epoch),
    }),
  );
}
