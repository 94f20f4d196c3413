// Nodes: STATUS from the Ready condition plus cordoning, ROLES from role labels.
import type { KubeObject } from '../../resources/types.js';
import { formatAge } from '../age.js';
import { ageColumn, col, nameColumn } from '../columns.js';
import { type Rec, dig, rec, recs, str } from '../fields.js';
import type { Printer } from '../types.js';

const ROLE_PREFIX = 'node-role.kubernetes.io/';
const LEGACY_ROLE_LABEL = 'kubernetes.io/role';
const ADDRESSES = 'List of addresses reachable to the node.';

export const nodePrinter: Printer = {
  columns: [
    nameColumn(),
    col('Status', 'string', 'The status of the node'),
    col('Roles', 'string', 'The roles of the node'),
    ageColumn(),
    col('Version', 'string', 'Kubelet Version reported by the node.'),
    col('Internal-IP', 'string', ADDRESSES, 1),
    col('External-IP', 'string', ADDRESSES, 1),
    col(
      'OS-Image',
      'string',
      'OS Image reported by the node from /etc/os-release (e.g. Debian GNU/Linux 7 (wheezy)).',
      1,
    ),
    col(
      'Kernel-Version',
      'string',
      "Kernel Version reported by the node from 'uname -r' (e.g. 3.16.0-0.bpo.4-amd64).",
      1,
    ),
    col(
      'Container-Runtime',
      'string',
      'ContainerRuntime Version reported by the node through runtime remote API (e.g. containerd://1.4.2).',
      1,
    ),
  ],
  print: (node, now) => {
    const info = rec(dig(node, 'status', 'nodeInfo'));
    const roles = nodeRoles(node).join(',');
    return {
      cells: [
        node.metadata.name ?? '',
        nodeStatus(node),
        roles || '<none>',
        formatAge(node.metadata.creationTimestamp, now),
        str(info.kubeletVersion),
        address(node, 'InternalIP'),
        address(node, 'ExternalIP'),
        str(info.osImage) || '<unknown>',
        str(info.kernelVersion) || '<unknown>',
        str(info.containerRuntimeVersion) || '<unknown>',
      ],
    };
  },
};

/** "Ready", "NotReady" (False or Unknown), "Unknown" (never reported), then ",SchedulingDisabled". */
export function nodeStatus(node: KubeObject): string {
  // The last Ready entry wins, as the real printer indexes conditions by type.
  const ready = recs(dig(node, 'status', 'conditions'))
    .filter((c) => c.type === 'Ready')
    .pop();
  const parts = [ready === undefined ? 'Unknown' : ready.status === 'True' ? 'Ready' : 'NotReady'];
  if (dig(node, 'spec', 'unschedulable') === true) parts.push('SchedulingDisabled');
  return parts.join(',');
}

/** Roles from node-role.kubernetes.io/<role> keys and the legacy kubernetes.io/role value, sorted. */
export function nodeRoles(node: KubeObject): string[] {
  const roles = new Set<string>();
  for (const [key, value] of Object.entries(node.metadata.labels ?? {})) {
    if (key.startsWith(ROLE_PREFIX) && key.length > ROLE_PREFIX.length)
      roles.add(key.slice(ROLE_PREFIX.length));
    else if (key === LEGACY_ROLE_LABEL && value !== '') roles.add(value);
  }
  return [...roles].sort();
}

function address(node: KubeObject, type: string): string {
  const found = recs(dig(node, 'status', 'addresses')).find((a: Rec) => a.type === type);
  return found ? str(found.address) : '<none>';
}
