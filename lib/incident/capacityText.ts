// The capacity section's sentences, made from capacity.ts's typed results. Pure.
import type { Replacement, UnfitCode, ZoneCapacity } from './types.js';

const GiB = 2 ** 30;
const MiB = 2 ** 20;

/** 500 -> "0.5 CPU", 12000 -> "12 CPU" */
export function cpuText(milli: number): string {
  return `${Number((milli / 1000).toFixed(milli % 1000 === 0 ? 0 : milli < 10_000 ? 2 : 1))} CPU`;
}

/** bytes -> "1 GiB", "512 MiB" */
export function memoryText(bytes: number): string {
  if (bytes >= GiB) return `${Number((bytes / GiB).toFixed(1))} GiB`;
  return `${Math.round(bytes / MiB)} MiB`;
}

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** "zone-a: 4 of 4 nodes up; free 26 of 32 CPU, 120 of 128 GiB memory, 420 of 440 pod slots" */
export function zoneText(z: ZoneCapacity): string {
  const head = `${z.zone || 'no zone'}: ${z.up} of ${plural(z.nodes, 'node')} up`;
  if (z.up === 0) return `${head}: no room`;
  const parts = [
    z.milliCpu && `${cpuText(z.milliCpu.free).replace(' CPU', '')} of ${cpuText(z.milliCpu.total)}`,
    z.memory && `${memoryText(z.memory.free)} of ${memoryText(z.memory.total)} memory`,
    z.pods && `${z.pods.free} of ${z.pods.total} pod slots`,
  ].filter(Boolean);
  return parts.length ? `${head}; free ${parts.join(', ')}` : head;
}

const UNFIT: Record<UnfitCode, [string, string]> = {
  'node-affinity': [
    "didn't match its node selector or affinity",
    "didn't match its node selector or affinity",
  ],
  taint: ['has a taint it does not tolerate', 'have taints it does not tolerate'],
  'volume-node-affinity': ['cannot reach its volume', 'cannot reach its volume'],
  'insufficient-resources': [
    'has too little CPU, memory or pod slots left',
    'have too little CPU, memory or pod slots left',
  ],
};

/** What replaces the stuck pods, and whether they can start anywhere now. */
export function replacementText(r: Replacement): string {
  if (r.fits.length)
    return `can start again in ${r.fits.map((f) => `${f.zone || 'no zone'} (${plural(f.nodes, 'node')})`).join(', ')}`;
  const zones = r.volumeZones;
  if (zones && (r.unfit['volume-node-affinity'] ?? 0) > 0)
    return zones.length
      ? `cannot start anywhere now: its volume is reachable only from ${zones.join(', ')}, where no node with room is up (fencing releases the pod, not the volume's zone)`
      : 'cannot start anywhere now: no node can reach its volume';
  const counts = Object.entries(r.unfit) as [UnfitCode, number][];
  if (!counts.length) return 'cannot start anywhere now: no node is up';
  return `cannot start anywhere now: ${counts
    .map(([code, n]) => `${plural(n, 'node')} up ${UNFIT[code][n === 1 ? 0 : 1]}`)
    .join('; ')}`;
}

/** "shop/orders-db-1 (StatefulSet orders-db; 0.5 CPU, 1 GiB)" */
export function replacementSubject(r: Replacement): string {
  const who =
    r.workload.kind === 'StatefulSet'
      ? `${r.workload.namespace}/${r.stuck[0]} (StatefulSet ${r.workload.name}`
      : `${r.workload.namespace}/${r.workload.name} (${plural(r.stuck.length, 'pod')} of its Deployment`;
  const each = r.workload.kind === 'StatefulSet' || r.stuck.length === 1 ? '' : ' each';
  const amounts = r.requests
    ? [
        r.requests.milliCpu && cpuText(r.requests.milliCpu),
        r.requests.memory && memoryText(r.requests.memory),
      ]
    : [];
  const req = amounts.some(Boolean) ? `; ${amounts.filter(Boolean).join(', ')}${each}` : '';
  return `${who}${req})`;
}
