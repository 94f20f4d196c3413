// Test helpers: the NodeFence CRD (the project's own from deploy/crds/ when it is there, else a
// schemaless stand-in with the same names) and NodeFence objects in a given phase.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as k8s from '@kubernetes/client-node';
import type { Phase } from '../../../lib/fencing/types.js';
import { installCrds } from '../../../sim/crdInstall.js';
import { FENCE_API } from '../live.js';

const STAND_IN = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: { name: nodefences.palisade.dev }
spec:
  group: palisade.dev
  scope: Cluster
  names: { plural: nodefences, singular: nodefence, kind: NodeFence, listKind: NodeFenceList }
  versions:
    - name: v1alpha1
      served: true
      storage: true
      subresources: { status: {} }
      schema:
        openAPIV3Schema: { type: object, x-kubernetes-preserve-unknown-fields: true }
`;

/** Install the stand-in unless the cluster already serves nodefences.palisade.dev. */
export async function ensureFenceCrd(kc: k8s.KubeConfig) {
  const dir = await mkdtemp(join(tmpdir(), 'palisade-fence-crd-'));
  try {
    await writeFile(join(dir, 'nodefences.yaml'), STAND_IN);
    await installCrds(kc, dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Create (or replace) the NodeFence for a node and put it in a phase through /status. */
export async function fenceInPhase(kc: k8s.KubeConfig, node: string, nodeUid: string, phase: Phase) {
  const custom = kc.makeApiClient(k8s.CustomObjectsApi);
  await custom.deleteClusterCustomObject({ ...FENCE_API, name: node }).catch(() => undefined);
  await custom.createClusterCustomObject({
    ...FENCE_API,
    body: {
      apiVersion: 'palisade.dev/v1alpha1',
      kind: 'NodeFence',
      metadata: { name: node },
      spec: { nodeName: node, policy: 'test-policy' },
    },
  });
  return setFencePhase(kc, node, nodeUid, phase);
}

export async function setFencePhase(kc: k8s.KubeConfig, node: string, nodeUid: string, phase: Phase) {
  const custom = kc.makeApiClient(k8s.CustomObjectsApi);
  return (await custom.patchClusterCustomObjectStatus(
    {
      ...FENCE_API,
      name: node,
      body: { status: { phase, nodeUid, conditions: [], attempts: [], steps: [] } },
    },
    k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
  )) as { metadata: k8s.V1ObjectMeta; spec: Record<string, unknown> };
}

export async function readFenceObject(kc: k8s.KubeConfig, name: string) {
  const custom = kc.makeApiClient(k8s.CustomObjectsApi);
  return (await custom.getClusterCustomObject({ ...FENCE_API, name })) as {
    metadata: k8s.V1ObjectMeta;
    spec: { approvedBy?: string; approvedAt?: string; cancelRequested?: { by: string; reason: string } };
  };
}

/** Install the project's Incident CRD (deploy/crds/) unless the cluster already serves it. */
export async function ensureIncidentCrd(kc: k8s.KubeConfig) {
  const dir = await mkdtemp(join(tmpdir(), 'palisade-incident-crd-'));
  try {
    const src = join(import.meta.dirname, '..', '..', '..', 'deploy', 'crds', 'palisade.dev_incidents.yaml');
    await writeFile(join(dir, 'incidents.yaml'), await readFile(src, 'utf8'));
    await installCrds(kc, dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
