// Seeded fault schedules for the randomized fault run (issue 23, 8): from one seed, the same
// incidents every time — partitions of one node and of many at once, power cuts, kubelet
// crashes, partitions healed in the middle of the node's fence, Palisade replicas killed — each
// with when it starts and when it is undone. A node is in at most one incident at a time; the
// runner (server/faults/run.ts) carries the schedule out and heals everything at its end. Pure.

export type Incident =
  /** cut from the API server (its processes run on); healed after `forMs`, or once its fence is under way */
  | { kind: 'partition'; nodes: string[]; atMs: number; forMs: number; healMidFence: boolean }
  /** power off (every process dies), on again after `forMs` */
  | { kind: 'power'; nodes: string[]; atMs: number; forMs: number }
  /** the kubelet stops (its pods run on, unwatched), restarted after `forMs` */
  | { kind: 'kubelet'; nodes: string[]; atMs: number; forMs: number }
  /** a Palisade replica SIGKILLed, started again after `forMs` */
  | { kind: 'replica'; replica: number; atMs: number; forMs: number };

export interface ScheduleOptions {
  nodes: readonly string[];
  /** Palisade replicas (one at most is down at a time, so one always answers) */
  replicas: number;
  /** incidents start within this window (ms) */
  windowMs: number;
  /** how many incidents (default 3..6) */
  incidents?: { min: number; max: number };
  /** how long one lasts (default 2..20 s) */
  durationMs?: { min: number; max: number };
  /** the most nodes one partition takes (default 6) */
  maxPartition?: number;
}

export interface Schedule {
  seed: number;
  incidents: Incident[];
  /** when the last incident is undone at the latest (the runner heals everything then) */
  endMs: number;
}

/** mulberry32: a small, well-mixed 32-bit PRNG; the same seed gives the same sequence everywhere. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

const KINDS = [
  'partition-one',
  'partition-many',
  'partition-mid-fence',
  'power',
  'kubelet',
  'replica',
] as const;

export function generateSchedule(seed: number, o: ScheduleOptions): Schedule {
  const rnd = prng(seed);
  const int = (lo: number, hi: number) => lo + Math.floor(rnd() * (hi - lo + 1));
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rnd() * xs.length)];
  const count = int(o.incidents?.min ?? 3, o.incidents?.max ?? 6);
  const dur = () => int(o.durationMs?.min ?? 2_000, o.durationMs?.max ?? 20_000);
  const starts = Array.from({ length: count }, () => int(0, o.windowMs)).sort((a, b) => a - b);
  /** node or replica -> when it is free again */
  const busyUntil = new Map<string, number>();
  const free = (key: string, at: number) => (busyUntil.get(key) ?? -1) < at;
  const incidents: Incident[] = [];
  for (const atMs of starts) {
    const kind = pick(KINDS);
    const forMs = dur();
    if (kind === 'replica') {
      // never two replicas down at once: one always serves the webhook and the pods
      const anyDown = [...Array(o.replicas).keys()].some((r) => !free(`replica-${r}`, atMs));
      if (o.replicas < 2 || anyDown) continue;
      const replica = int(0, o.replicas - 1);
      busyUntil.set(`replica-${replica}`, atMs + forMs);
      incidents.push({ kind, replica, atMs, forMs });
      continue;
    }
    const available = o.nodes.filter((n) => free(n, atMs));
    if (!available.length) continue;
    const size =
      kind === 'partition-many'
        ? Math.min(available.length, int(2, o.maxPartition ?? 6))
        : kind === 'power'
          ? Math.min(available.length, int(1, 2))
          : 1;
    const nodes = shuffle(available, rnd).slice(0, size).sort();
    // a partition healed mid-fence may wait for its fence: keep the node for the longest case
    for (const n of nodes) busyUntil.set(n, atMs + forMs);
    if (kind === 'power' || kind === 'kubelet') incidents.push({ kind, nodes, atMs, forMs });
    else
      incidents.push({ kind: 'partition', nodes, atMs, forMs, healMidFence: kind === 'partition-mid-fence' });
  }
  const endMs = Math.max(o.windowMs, ...incidents.map((i) => i.atMs + i.forMs));
  return { seed, incidents, endMs };
}

function shuffle<T>(xs: readonly T[], rnd: () => number): T[] {
  const a = [...xs];
  for (let i = a.length - 1; i > 0; i--) {
    const j = Math.floor(rnd() * (i + 1));
    [a[i], a[j]] = [a[j], a[i]];
  }
  return a;
}

/** "partition c2-2 at 3.2 s for 8.0 s (healed mid-fence)": one line per incident, for logs and reports. */
export function describeIncident(i: Incident): string {
  const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
  const when = `at ${s(i.atMs)} for ${s(i.forMs)}`;
  switch (i.kind) {
    case 'partition':
      return `partition ${i.nodes.join(', ')} ${when}${i.healMidFence ? ' (healed mid-fence)' : ''}`;
    case 'power':
      return `power cut ${i.nodes.join(', ')} ${when}`;
    case 'kubelet':
      return `kubelet crash ${i.nodes.join(', ')} ${when}`;
    case 'replica':
      return `kill Palisade replica ${i.replica} ${when}`;
  }
}
