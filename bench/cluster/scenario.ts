// The scenarios the cluster bench runs: the scale profile as shipped, and a tenth-size
// copy of its shape (same durations, same node and pod sizes, 10 zones of 5 racks, 500
// replicas per Deployment) for --quick, built here so it cannot drift from a file.
import { loadScenario, parseScenario } from '../../sim/scenario/load.js';
import type { Scenario } from '../../sim/scenario/schema.js';

export interface Shape {
  zones: number;
  racksPerZone: number;
  nodesPerRack: number;
  deployments: number;
  replicas: number;
}

export const QUICK_SHAPE: Shape = {
  zones: 10,
  racksPerZone: 5,
  nodesPerRack: 10,
  deployments: 10,
  replicas: 500,
};

export function shapedScenario(name: string, s: Shape): Scenario {
  const zones = Array.from({ length: s.zones }, (_, z) => {
    const racks = Array.from(
      { length: s.racksPerZone },
      (_, r) => `{ name: r${z}${r}, count: ${s.nodesPerRack} }`,
    );
    return `    - { name: zone-${z}, racks: [${racks.join(', ')}] }`;
  });
  const workloads = Array.from({ length: s.deployments }, (_, i) => {
    const n = String(i).padStart(3, '0');
    return `  - { kind: Deployment, name: svc-${n}, namespace: scale-${i % 10}, replicas: ${s.replicas}, cpu: 10m, memory: 16Mi }`;
  });
  const yaml = [
    `name: ${name}`,
    'description: the scale profile shape, smaller',
    'durations:',
    '  leaseRenewInterval: 10s',
    '  nodeStatusUpdate: 60s',
    '  containerStart: 1s',
    '  podReadyDelay: 2s',
    'nodes:',
    '  cpu: "64"',
    '  memory: 256Gi',
    '  pods: 110',
    '  zones:',
    ...zones,
    'storageClasses: []',
    'workloads:',
    ...workloads,
  ].join('\n');
  return parseScenario(yaml, `bench/cluster (${name})`);
}

export async function benchScenario(quick: boolean): Promise<Scenario> {
  return quick ? shapedScenario('scale-quick', QUICK_SHAPE) : loadScenario('scale');
}

export function nodeCount(s: Scenario): number {
  return s.nodes.zones.reduce((n, z) => n + z.racks.reduce((m, r) => m + r.count, 0), 0);
}

export function podCount(s: Scenario): number {
  return s.workloads.reduce((n, w) => n + w.replicas, 0);
}
