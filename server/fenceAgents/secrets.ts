// The credentials of an exec fence agent, read from the Secrets its FencePolicy names. Read
// just before each run (not cached): a rotated BMC password is used on the next attempt.
import * as k8s from '@kubernetes/client-node';
import { codeOf, errorText } from '../../lib/kube/errorText.js';

export interface SecretRef {
  name: string;
  key: string;
  parameter: string;
}

export class SecretParamError extends Error {}

async function readSecret(core: k8s.CoreV1Api, namespace: string, name: string, forParams: string) {
  try {
    return await core.readNamespacedSecret({ name, namespace });
  } catch (e) {
    const code = codeOf(e);
    const why = code === 404 ? 'not found' : errorText(e);
    throw new SecretParamError(`Secret ${namespace}/${name} (for ${forParams}): ${why}`);
  }
}

/** parameter -> value for every secretRef; each Secret is read once */
export async function readSecretParams(
  kc: k8s.KubeConfig,
  namespace: string,
  refs: readonly SecretRef[],
): Promise<Record<string, string>> {
  const core = kc.makeApiClient(k8s.CoreV1Api);
  const names = [...new Set(refs.map((r) => r.name))];
  const secrets = new Map<string, k8s.V1Secret>();
  await Promise.all(
    names.map(async (name) => {
      const params = refs.filter((r) => r.name === name).map((r) => r.parameter);
      secrets.set(name, await readSecret(core, namespace, name, params.join(', ')));
    }),
  );
  const out: Record<string, string> = {};
  for (const r of refs) {
    const data = secrets.get(r.name)?.data ?? {};
    const v = data[r.key];
    if (v === undefined) {
      const keys = Object.keys(data).sort().join(', ') || 'none';
      throw new SecretParamError(
        `Secret ${namespace}/${r.name} has no key "${r.key}" (for ${r.parameter}); its keys: ${keys}`,
      );
    }
    out[r.parameter] = Buffer.from(v, 'base64').toString('utf8');
  }
  return out;
}
