// Installs the project's CustomResourceDefinitions (every YAML file in deploy/crds/) through
// the Kubernetes API, exactly as `kubectl apply -f deploy/crds/` would create them, and waits
// until each one is Established so the resources are served before anything uses them.
import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import * as k8s from '@kubernetes/client-node';
import YAML from 'yaml';
import { fromRoot } from './root.js';

export const CRD_DIR = fromRoot('deploy', 'crds');

/** Every CustomResourceDefinition in the folder's *.yaml / *.yml files, in file order. */
export async function readCrds(dir = CRD_DIR): Promise<k8s.V1CustomResourceDefinition[]> {
  const files = (await readdir(dir)).filter((f) => /\.ya?ml$/.test(f)).sort();
  const out: k8s.V1CustomResourceDefinition[] = [];
  for (const f of files) {
    const path = join(dir, f);
    const docs = YAML.parseAllDocuments(await readFile(path, 'utf8'));
    for (const doc of docs) {
      if (doc.errors.length) throw new Error(`${path}: ${doc.errors[0].message}`);
      const o = doc.toJS();
      if (o?.kind !== 'CustomResourceDefinition') continue;
      // through client-node's model, so the typed client sends x-kubernetes-*, enum and
      // default under their wire names
      out.push(k8s.loadYaml<k8s.V1CustomResourceDefinition>(YAML.stringify(o)));
    }
  }
  return out;
}

function condition(crd: k8s.V1CustomResourceDefinition, type: string) {
  return crd.status?.conditions?.find((c) => c.type === type);
}

async function established(api: k8s.ApiextensionsV1Api, name: string, deadline: number) {
  for (;;) {
    const crd = await api.readCustomResourceDefinition({ name });
    if (condition(crd, 'Established')?.status === 'True') return;
    const names = condition(crd, 'NamesAccepted');
    if (names?.status === 'False') throw new Error(`CRD ${name}: names not accepted: ${names.message}`);
    if (Date.now() > deadline) throw new Error(`CRD ${name} not Established in time`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Create each CRD (an existing one is left as it is) and wait until all are Established. */
export async function installCrds(kc: k8s.KubeConfig, dir = CRD_DIR, timeoutMs = 30_000) {
  const api = kc.makeApiClient(k8s.ApiextensionsV1Api);
  const crds = await readCrds(dir);
  for (const body of crds) {
    try {
      await api.createCustomResourceDefinition({ body });
    } catch (e) {
      if (!(e instanceof k8s.ApiException && e.code === 409)) throw e;
    }
  }
  const deadline = Date.now() + timeoutMs;
  await Promise.all(crds.map((c) => established(api, c.metadata!.name!, deadline)));
  return crds.map((c) => c.metadata!.name!);
}
