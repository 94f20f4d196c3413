// Builders for the incident tests: a small cluster in a few lines.
import type { NodeView, PodView } from '../console/protocol.js';
import type { FenceGlance, FencingInput, IncidentInput } from './types.js';

export const NOW = 1_800_000_000_000;

export function node(
  name: string,
  ready: NodeView['ready'] = 'Ready',
  more: Partial<NodeView> = {},
): NodeView {
  return {
    name,
    zone: 'z',
    rack: 'r',
    ready,
    readySince: NOW - 60_000,
    lastHeartbeat: ready === 'Ready' ? NOW - 1_000 : NOW - 60_000,
    unschedulable: false,
    taints: [],
    conditions: [],
    capacity: {},
    resourceVersion: '1',
    ...more,
  };
}

export function pod(name: string, nodeName: string, more: Partial<PodView> = {}): PodView {
  return {
    uid: `uid-${name}`,
    namespace: 'shop',
    name,
    node: nodeName,
    state: 'Ready',
    phase: 'Running',
    ready: true,
    claims: [],
    resourceVersion: '1',
    ...more,
  };
}

export function fence(
  nodeName: string,
  phase: FenceGlance['phase'],
  more: Partial<FenceGlance> = {},
): FenceGlance {
  return { name: nodeName, node: nodeName, policy: 'p', phase, manual: false, ...more };
}

export const noFencing: FencingInput = {
  enabled: false,
  covered: new Set(),
  fences: [],
  held: [],
  upcoming: [],
};

export function input(more: Partial<IncidentInput> = {}): IncidentInput {
  return {
    now: NOW,
    nodes: [],
    pods: [],
    workloads: [],
    protectors: [],
    fencing: noFencing,
    volumes: [],
    watches: [{ kind: 'leases', synced: true, lastEventAt: NOW - 500 }],
    ...more,
  };
}
