// Status fields that kube-apiserver drops when they are zero or empty: they are `omitempty`
// in the Go types, so a controller's `unavailableReplicas: 0` does not survive the decode and
// re-encode of a typed write. The embedded store keeps JSON as written, so it drops them
// itself, for the kinds Palisade's controllers write (measured on v1.34.10 by
// sim/diff/writes.int.test.ts). Fields without omitempty (StatefulSet replicas and
// availableReplicas, ReplicaSet replicas, the PDB counters) stay.
import type { KubeObject } from '../resources/types.js';

const OMIT_EMPTY_STATUS: Record<string, string[]> = {
  'apps/Deployment': [
    'observedGeneration',
    'replicas',
    'updatedReplicas',
    'readyReplicas',
    'availableReplicas',
    'unavailableReplicas',
    'conditions',
  ],
  'apps/ReplicaSet': [
    'fullyLabeledReplicas',
    'readyReplicas',
    'availableReplicas',
    'observedGeneration',
    'conditions',
  ],
  'apps/StatefulSet': [
    'observedGeneration',
    'readyReplicas',
    'currentReplicas',
    'updatedReplicas',
    'currentRevision',
    'updateRevision',
    'conditions',
  ],
  'policy/PodDisruptionBudget': ['observedGeneration', 'disruptedPods', 'conditions'],
};

const empty = (v: unknown) =>
  v === 0 ||
  v === '' ||
  v === false ||
  v === null ||
  (Array.isArray(v) && v.length === 0) ||
  (typeof v === 'object' && v !== null && Object.keys(v).length === 0);

export function dropEmptyStatus(o: KubeObject) {
  const group = o.apiVersion?.includes('/') ? o.apiVersion.split('/')[0] : '';
  const fields = OMIT_EMPTY_STATUS[`${group}/${o.kind}`];
  const status = (o as { status?: Record<string, unknown> }).status;
  if (!fields || !status || typeof status !== 'object') return;
  for (const f of fields) if (f in status && empty(status[f])) delete status[f];
}
