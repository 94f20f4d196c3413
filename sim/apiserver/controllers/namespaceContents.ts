// What kube-controller-manager puts into every active namespace, which clients rely on even
// against an API-only cluster: the `default` ServiceAccount (serviceaccount-controller; the
// ServiceAccount admission refuses pods until it exists) and the `kube-root-ca.crt`
// ConfigMap (root-ca-cert-publisher; mounted by every pod's kube-api-access volume). Both are
// recreated when deleted, and the ConfigMap is put back when edited, as the real loops do.
import type { ApiCore } from '../core/api.js';
import type { WriteOptions } from '../core/context.js';
import type { KubeObject } from '../resources/types.js';
import { Reconciler } from './reconciler.js';
import { codeOf } from '../../../lib/kube/errorText.js';

export const ROOT_CA_CONFIGMAP = 'kube-root-ca.crt';
const ROOT_CA_DESCRIPTION =
  'Contains a CA bundle that can be used to verify the kube-apiserver when using internal endpoints such as the internal service IP or kubernetes.default.svc. No other usage is guaranteed across distributions of Kubernetes clusters.';

const asController = (name: string): WriteOptions => ({
  dryRun: false,
  user: {
    username: `system:serviceaccount:kube-system:${name}`,
    groups: ['system:serviceaccounts', 'system:serviceaccounts:kube-system', 'system:authenticated'],
  },
});

export class NamespaceContents {
  private readonly loop = new Reconciler('namespace-contents', (ns) => this.sync(ns));
  private readonly unsubscribe: () => void;

  constructor(
    private readonly core: ApiCore,
    private readonly caPem: string,
  ) {
    this.unsubscribe = core.store.onEvent((key, e) => {
      const m = e.current.obj.metadata;
      if (key === '/namespaces' && e.type !== 'DELETED' && !m.deletionTimestamp) this.loop.enqueue(m.name!);
      else if (key === '/serviceaccounts' && e.type === 'DELETED' && m.name === 'default')
        this.loop.enqueue(m.namespace!);
      else if (key === '/configmaps' && m.name === ROOT_CA_CONFIGMAP) this.loop.enqueue(m.namespace!);
    });
    for (const s of core.store.collection('/namespaces').items.values())
      this.loop.enqueue(s.obj.metadata.name!);
  }

  stop() {
    this.unsubscribe();
    this.loop.stop();
  }

  private resource(plural: string) {
    return this.core.registry.lookup('', 'v1', plural)!;
  }

  private async sync(ns: string) {
    const nsObj = this.core.store.get('/namespaces', undefined, ns)?.obj;
    if (!nsObj || nsObj.metadata.deletionTimestamp) return;
    if (!this.core.store.get('/serviceaccounts', ns, 'default'))
      await this.createIgnoringConflicts(
        'serviceaccounts',
        ns,
        { metadata: { name: 'default' } },
        'serviceaccount-controller',
      );
    const cm = this.core.store.get('/configmaps', ns, ROOT_CA_CONFIGMAP)?.obj as
      | (KubeObject & { data?: Record<string, string> })
      | undefined;
    const want = {
      metadata: {
        name: ROOT_CA_CONFIGMAP,
        annotations: { 'kubernetes.io/description': ROOT_CA_DESCRIPTION },
      },
      data: { 'ca.crt': this.caPem },
    };
    if (!cm) return this.createIgnoringConflicts('configmaps', ns, want, 'root-ca-cert-publisher');
    const described = !!cm.metadata.annotations?.['kubernetes.io/description'];
    if (cm.metadata.deletionTimestamp || (sameData(cm.data, want.data) && described)) return;
    // someone edited it: the publisher writes its data and description back, keeping the rest
    await this.core.writeLoop(
      this.resource('configmaps'),
      ns,
      ROOT_CA_CONFIGMAP,
      asController('root-ca-cert-publisher'),
      '',
      (cur) => {
        const { binaryData: _b, ...rest } = cur as KubeObject & { binaryData?: unknown };
        const annotations = { ...(cur.metadata.annotations ?? {}), ...want.metadata.annotations };
        return { ...rest, metadata: { ...cur.metadata, annotations }, data: want.data } as KubeObject;
      },
      undefined,
    );
  }

  private async createIgnoringConflicts(plural: string, ns: string, body: object, controller: string) {
    try {
      await this.core.create(this.resource(plural), ns, body as KubeObject, asController(controller));
    } catch (e) {
      // AlreadyExists: another writer won; Forbidden: the namespace began terminating
      const code = codeOf(e);
      if (code !== 409 && code !== 403) throw e;
    }
  }
}

function sameData(a: Record<string, string> | undefined, b: Record<string, string>): boolean {
  const ka = Object.keys(a ?? {});
  return ka.length === Object.keys(b).length && ka.every((k) => a?.[k] === b[k]);
}
