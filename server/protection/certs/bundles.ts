// The caBundle of the webhook configurations, kept equal to the Secret's ca.crt (self-managed
// certificates). Only caBundle is written: a JSON patch of each webhook's
// clientConfig.caBundle, carrying the resourceVersion just read as its precondition (a 409 is
// read again and retried), so whatever else the chart or an operator set is left alone.
import * as k8s from '@kubernetes/client-node';
import { isConflict, isNotFound, errorText } from '../../../lib/kube/errorText.js';

/** The configurations on one cluster whose caBundle Palisade keeps. */
export interface BundleTarget {
  /** the cluster's ID, for logs */
  cluster: string;
  kc: k8s.KubeConfig;
  names: string[];
}

export interface BundleSync {
  /** every configuration that exists holds exactly this bundle in every webhook */
  current: boolean;
  /** `<cluster>/<name>` of configurations that do not exist (yet) */
  missing: string[];
  /** `<cluster>/<name>` of configurations this pass patched */
  patched: string[];
}

const jsonPatch = k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.JsonPatch);

/** The caBundle (base64) of each webhook of a configuration. */
export const bundlesOf = (c: k8s.V1ValidatingWebhookConfiguration) =>
  (c.webhooks ?? []).map((w) => w.clientConfig.caBundle ?? '');

/** Make each named configuration's caBundle this one (PEM); say what is missing and what changed. */
export async function syncBundles(targets: BundleTarget[], caPem: string): Promise<BundleSync> {
  const want = Buffer.from(caPem).toString('base64');
  const out: BundleSync = { current: true, missing: [], patched: [] };
  for (const t of targets) {
    const api = t.kc.makeApiClient(k8s.AdmissionregistrationV1Api);
    for (const name of t.names) {
      for (let attempt = 0; ; attempt++) {
        const cfg = await api.readValidatingWebhookConfiguration({ name }).catch((e) => {
          if (isNotFound(e)) return undefined;
          throw e;
        });
        if (!cfg) {
          out.missing.push(`${t.cluster}/${name}`);
          break;
        }
        const have = bundlesOf(cfg);
        if (have.every((b) => b === want)) break;
        const patch = [
          // the precondition: a write in between makes this a 409
          { op: 'replace', path: '/metadata/resourceVersion', value: cfg.metadata?.resourceVersion },
          ...have.map((_, i) => ({ op: 'add', path: `/webhooks/${i}/clientConfig/caBundle`, value: want })),
        ];
        try {
          await api.patchValidatingWebhookConfiguration({ name, body: patch }, jsonPatch);
          out.patched.push(`${t.cluster}/${name}`);
          break;
        } catch (e) {
          if (isConflict(e) && attempt < 5) continue;
          out.current = false;
          throw new Error(
            `ValidatingWebhookConfiguration ${name} on ${t.cluster}: caBundle not patched: ${errorText(e)}`,
          );
        }
      }
    }
  }
  return out;
}
