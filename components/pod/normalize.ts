// Defensive readers for the looser parts of pods.get (conditions, container statuses, claims),
// so the page renders whatever reasonable shape the server sends.

type Rec = Record<string, unknown>;
const isRec = (v: unknown): v is Rec => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string | undefined =>
  typeof v === 'string' ? v : typeof v === 'number' || typeof v === 'boolean' ? String(v) : undefined;

export interface Condition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
  time?: string | number;
}

export function conditionsOf(v: unknown): Condition[] {
  if (!Array.isArray(v)) return [];
  return v.filter(isRec).map((c) => ({
    type: str(c.type) ?? '?',
    status: str(c.status) ?? '?',
    reason: str(c.reason),
    message: str(c.message),
    time: (c.lastTransitionTime as string | number | undefined) ?? undefined,
  }));
}

export interface ContainerStatus {
  name: string;
  ready?: boolean;
  restarts?: number;
  state: string;
  detail?: string;
}

export function containersOf(v: unknown): ContainerStatus[] {
  if (!Array.isArray(v)) return [];
  return v.filter(isRec).map((c) => {
    const st = isRec(c.state) ? c.state : undefined;
    const key = st ? Object.keys(st)[0] : undefined;
    const inner = key && isRec(st?.[key]) ? (st?.[key] as Rec) : undefined;
    return {
      name: str(c.name) ?? '?',
      ready: typeof c.ready === 'boolean' ? c.ready : undefined,
      restarts: typeof c.restartCount === 'number' ? c.restartCount : undefined,
      state: key ?? str(c.state) ?? '—',
      detail: inner
        ? [str(inner.reason), str(inner.exitCode) && `exit ${str(inner.exitCode)}`, str(inner.message)]
            .filter(Boolean)
            .join(' · ')
        : undefined,
    };
  });
}

export interface Claim {
  name: string;
  detail: string;
}

export function claimsOf(v: unknown, fallback: readonly string[]): Claim[] {
  if (!Array.isArray(v)) return fallback.map((name) => ({ name, detail: '' }));
  return v.map((c) => {
    if (!isRec(c)) return { name: str(c) ?? '?', detail: '' };
    const name = str(c.name) ?? str(c.claim) ?? '?';
    const rest = Object.entries(c)
      .filter(
        ([k, val]) =>
          k !== 'name' && (typeof val === 'string' || typeof val === 'number' || typeof val === 'boolean'),
      )
      .map(([k, val]) => `${k}: ${String(val)}`);
    const arrays = Object.entries(c)
      .filter(([, val]) => Array.isArray(val))
      .map(([k, val]) => `${k}: ${(val as unknown[]).map((x) => str(x) ?? '').join(', ')}`);
    return { name, detail: [...rest, ...arrays].join(' · ') };
  });
}

export function timeOf(v: string | number | undefined): number | undefined {
  if (v === undefined) return undefined;
  if (typeof v === 'number') return v;
  const t = Date.parse(v);
  return Number.isNaN(t) ? undefined : t;
}

export interface EventRow {
  type: string;
  reason: string;
  message: string;
  count: number;
  last?: number;
}

export function eventsOf(v: unknown): EventRow[] {
  if (!Array.isArray(v)) return [];
  return v.filter(isRec).map((e) => ({
    type: str(e.type) ?? '',
    reason: str(e.reason) ?? '',
    message: str(e.message) ?? '',
    count: typeof e.count === 'number' ? e.count : 1,
    last: timeOf((e.lastSeen ?? e.lastTimestamp ?? e.eventTime) as string | number | undefined),
  }));
}

export interface StepRow {
  step: string;
  at: number;
  detail?: string;
}

/** Kubelet termination steps: `steps`, or `termination.steps`, with any error reading them. */
export function stepsOf(data: unknown): { steps?: StepRow[]; error?: string } {
  if (!isRec(data)) return {};
  const term = isRec(data.termination) ? data.termination : undefined;
  const raw = Array.isArray(data.steps) ? data.steps : Array.isArray(term?.steps) ? term.steps : undefined;
  const steps = raw
    ?.filter(isRec)
    .filter((s) => typeof s.at === 'number')
    .map((s) => ({ step: str(s.step) ?? '?', at: s.at as number, detail: str(s.detail) }));
  return { steps, error: str(term?.error) };
}
