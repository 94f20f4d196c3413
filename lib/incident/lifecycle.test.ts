import { describe, expect, it } from 'vitest';
import type { WorkloadView } from '../console/views.js';
import { fence, input, NOW, node } from './fixtures.test-helpers.js';
import { followStatus, observe, trackerStep } from './lifecycle.js';
import { durationWords, type IncidentObject, incidentName, openIncident } from './record.js';
import type { IncidentInput } from './types.js';

const wl = (name: string, ready: number, replicas: number): WorkloadView => ({
  kind: 'StatefulSet',
  namespace: 'shop',
  name,
  uid: `uid-${name}`,
  replicas,
  readyReplicas: ready,
});

const zoneA = (ready: 'Ready' | 'Unknown') =>
  ['a1-1', 'a1-2', 'a2-1'].map((n) => node(n, ready, { zone: 'zone-a', rack: n.slice(0, 2) }));
const zoneB = () => ['b1-1', 'b1-2'].map((n) => node(n, 'Ready', { zone: 'zone-b', rack: 'b1' }));
const opts = { quietMs: 60_000, taken: new Set<string>() };
const iso = (ms: number) => new Date(ms).toISOString().replace('.000Z', 'Z');

function incident(
  more: Partial<IncidentObject['spec']> = {},
  status?: IncidentObject['status'],
): IncidentObject {
  return {
    apiVersion: 'palisade.dev/v1alpha1',
    kind: 'Incident',
    metadata: { name: incidentName(NOW - 60_000), resourceVersion: '7' },
    spec: { title: 't', severity: 'SEV2', startedAt: iso(NOW - 60_000), declaredBy: 'palisade', ...more },
    ...(status ? { status } : {}),
  };
}

describe('observe: healthy or not, and how severe', () => {
  const cases: { name: string; i: Partial<IncidentInput>; reasons: string[]; severity?: string }[] = [
    { name: 'all Ready, nothing short: healthy', i: { nodes: [...zoneA('Ready'), ...zoneB()] }, reasons: [] },
    {
      name: 'a workload short alone (a rollout) is not an incident',
      i: { nodes: zoneB(), workloads: [wl('web', 1, 3)] },
      reasons: [],
    },
    {
      name: 'a whole zone down: SEV1',
      i: { nodes: [...zoneA('Unknown'), ...zoneB()], workloads: [wl('orders-db', 1, 3)] },
      reasons: ['node-down'],
      severity: 'SEV1',
    },
    {
      name: 'one node down, a workload short: SEV2',
      i: {
        nodes: [
          node('b1-1', 'Unknown', { zone: 'zone-b' }),
          node('b1-2', 'Ready', { zone: 'zone-b' }),
          ...zoneA('Ready'),
        ],
        workloads: [wl('db', 2, 3)],
      },
      reasons: ['node-down'],
      severity: 'SEV2',
    },
    {
      name: 'a workload with no ready replica: SEV1',
      i: {
        nodes: [
          node('b1-1', 'Unknown', { zone: 'zone-b' }),
          node('b1-2', 'Ready', { zone: 'zone-b' }),
          ...zoneA('Ready'),
        ],
        workloads: [wl('db', 0, 1)],
      },
      reasons: ['node-down'],
      severity: 'SEV1',
    },
    {
      name: 'one node down, nobody short: SEV3',
      i: {
        nodes: [
          node('b1-1', 'NotReady', { zone: 'zone-b' }),
          node('b1-2', 'Ready', { zone: 'zone-b' }),
          ...zoneA('Ready'),
        ],
      },
      reasons: ['node-down'],
      severity: 'SEV3',
    },
    {
      name: 'the one node without a zone label down is not a zone outage',
      i: { nodes: [node('x', 'Unknown', { zone: '' }), ...zoneB()] },
      reasons: ['node-down'],
      severity: 'SEV3',
    },
    {
      name: 'a fence under way on a node back to Ready still counts',
      i: {
        nodes: zoneB(),
        fencing: {
          enabled: true,
          covered: new Set(),
          fences: [fence('b1-1', 'Releasing')],
          held: [],
          upcoming: [],
        },
      },
      reasons: ['fence-under-way'],
      severity: 'SEV3',
    },
  ];
  it.each(cases)('$name', ({ i, reasons, severity }) => {
    const o = observe(input(i));
    expect(o.reasons).toEqual(reasons);
    if (severity) expect(o.severity).toBe(severity);
  });

  it('the onset is the earliest failed node’s Ready change; the title is the headline', () => {
    const nodes = zoneA('Unknown').map((n, k) => ({ ...n, readySince: NOW - 30_000 + k * 1_000 }));
    const o = observe(input({ nodes: [...nodes, ...zoneB()], workloads: [wl('orders-db', 1, 3)] }));
    expect(o.onset).toBe(NOW - 30_000);
    expect(o.title).toBe('zone-a down: 3/3 nodes; orders-db 1/3');
  });
});

describe('trackerStep', () => {
  const down = observe(
    input({ nodes: [...zoneA('Unknown'), ...zoneB()], workloads: [wl('orders-db', 1, 3)] }),
  );
  const calm = observe(input({ nodes: [...zoneA('Ready'), ...zoneB()], workloads: [wl('orders-db', 3, 3)] }));

  it('declares when unhealthy and nothing is open: named after the onset, every node and workload followed', () => {
    const step = trackerStep(undefined, down, opts);
    expect(step.kind).toBe('declare');
    if (step.kind !== 'declare') return;
    expect(step.name).toBe(incidentName(NOW - 60_000));
    expect(step.spec).toMatchObject({
      severity: 'SEV1',
      declaredBy: 'palisade',
      startedAt: iso(NOW - 60_000),
    });
    expect(step.spec.updates?.[0]).toMatchObject({
      kind: 'Declared',
      text: 'a node is down',
    });
    expect(step.status.nodes?.map((n) => n.name)).toEqual(['a1-1', 'a1-2', 'a2-1']);
    expect(step.status.workloads?.[0]).toMatchObject({ name: 'orders-db', lowest: 1, desired: 3 });
  });

  it('does nothing when healthy and nothing is open', () => {
    expect(trackerStep(undefined, calm, opts)).toEqual({ kind: 'none' });
  });

  it('a name a resolved incident holds: declared from now instead', () => {
    const step = trackerStep(undefined, down, { ...opts, taken: new Set([incidentName(NOW - 60_000)]) });
    expect(step).toMatchObject({ kind: 'declare', name: incidentName(NOW) });
  });

  it('healthy again: healthySince set, then resolved once quiet for quietMs', () => {
    const open = incident({}, followStatus(undefined, down));
    const first = trackerStep(open, calm, opts);
    expect(first.kind).toBe('status');
    if (first.kind !== 'status') return;
    expect(first.status.healthySince).toBe(iso(NOW));
    expect(first.status.nodes?.every((n) => n.upAt === iso(NOW))).toBe(true);
    expect(first.status.workloads?.[0].restoredAt).toBe(iso(NOW));
    const later = { ...calm, now: NOW + 60_000 };
    const step = trackerStep(incident({}, first.status), later, opts);
    expect(step.kind).toBe('resolve');
    if (step.kind !== 'resolve') return;
    expect(step.spec).toMatchObject({ resolvedAt: iso(NOW + 60_000), resolvedBy: 'palisade' });
    expect(step.spec.updates?.at(-1)).toMatchObject({
      kind: 'Resolved',
      text: 'healthy for 1 min',
    });
  });

  it('unhealthy again before the quiet period ends: healthySince cleared, no resolution', () => {
    const open = incident(
      { severity: 'SEV1' },
      { ...followStatus(undefined, down), healthySince: iso(NOW - 30_000) },
    );
    const step = trackerStep(open, { ...down, now: NOW + 5_000 }, opts);
    expect(step.kind).toBe('status');
    if (step.kind === 'status') expect(step.status.healthySince).toBeUndefined();
  });

  it('an incident a person commands or declared is never resolved by the tracker', () => {
    const quiet = { ...followStatus(undefined, calm), healthySince: iso(NOW - 600_000) };
    for (const spec of [{ commander: 'alice' }, { declaredBy: 'alice' }])
      expect(trackerStep(incident(spec, quiet), calm, opts).kind).toBe('none');
  });

  it('raises its own severity, never one a person set, never lowers it', () => {
    const open = incident({ severity: 'SEV3' }, followStatus(undefined, down));
    const step = trackerStep(open, down, opts);
    expect(step).toMatchObject({ kind: 'escalate', spec: { severity: 'SEV1' } });
    const set = incident(
      { severity: 'SEV3', updates: [{ at: iso(NOW), by: 'alice', kind: 'Severity', text: 'SEV3' }] },
      followStatus(undefined, down),
    );
    expect(trackerStep(set, down, opts).kind).toBe('none');
    expect(
      trackerStep(incident({ severity: 'SEV1' }, followStatus(undefined, calm)), down, opts).kind,
    ).not.toBe('escalate');
  });

  it('the same observation twice writes nothing', () => {
    const open = incident({ severity: 'SEV1' }, followStatus(undefined, down));
    expect(trackerStep(open, down, opts)).toEqual({ kind: 'none' });
  });
});

describe('followStatus', () => {
  it('a node down again after it came back opens a second span; a workload keeps its lowest count', () => {
    const one = observe(
      input({ nodes: [node('n1', 'Unknown', { readySince: NOW - 10_000 })], workloads: [wl('db', 1, 3)] }),
    );
    let s = followStatus(undefined, one);
    s = followStatus(s, {
      ...observe(input({ nodes: [node('n1')], workloads: [wl('db', 3, 3)] })),
      now: NOW + 10_000,
    });
    s = followStatus(s, {
      ...observe(
        input({
          now: NOW + 20_000,
          nodes: [node('n1', 'Unknown', { readySince: NOW + 15_000 })],
          workloads: [wl('db', 0, 3)],
        }),
      ),
    });
    expect(s.nodes).toEqual([
      { name: 'n1', zone: 'z', rack: 'r', downAt: iso(NOW - 10_000), upAt: iso(NOW + 10_000) },
      { name: 'n1', zone: 'z', rack: 'r', downAt: iso(NOW + 15_000) },
    ]);
    expect(s.workloads).toEqual([
      {
        kind: 'StatefulSet',
        namespace: 'shop',
        name: 'db',
        desired: 3,
        lowest: 1,
        degradedAt: iso(NOW),
        restoredAt: iso(NOW + 10_000),
      },
      {
        kind: 'StatefulSet',
        namespace: 'shop',
        name: 'db',
        desired: 3,
        lowest: 0,
        degradedAt: iso(NOW + 20_000),
      },
    ]);
  });
});

describe('followStatus at the caps', () => {
  it('keeps the first 1000 nodes and 500 workloads, and a second look changes nothing', () => {
    const nodes = Array.from({ length: 1200 }, (_, k) => node(`n${k}`, 'Unknown', { zone: `z${k % 2}` }));
    const workloads = Array.from({ length: 700 }, (_, k) => wl(`w${k}`, 1, 3));
    const o = observe(input({ nodes, workloads }));
    const first = followStatus(undefined, o);
    expect(first.nodes).toHaveLength(1000);
    expect(first.workloads).toHaveLength(500);
    expect(followStatus(first, o)).toEqual(first);
  });
});

describe('record', () => {
  it.each([
    [0, '0 s'],
    [38_400, '38 s'],
    [60_000, '1 min'],
    [251_000, '4 min 11 s'],
    [3_720_000, '1 h 2 min'],
    [7_200_000, '2 h'],
  ])('durationWords(%i) = %s', (ms, words) => expect(durationWords(ms)).toBe(words));

  it('names an incident after its start in UTC, to the second', () => {
    expect(incidentName(Date.parse('2026-11-30T04:54:08.731Z'))).toBe('inc-20261130-045408');
  });

  it('the open incident is the newest unresolved one', () => {
    const a = incident({ startedAt: iso(NOW - 100_000) });
    const b = { ...incident({ startedAt: iso(NOW - 50_000) }), metadata: { name: 'b' } };
    const c = { ...incident({ startedAt: iso(NOW), resolvedAt: iso(NOW) }), metadata: { name: 'c' } };
    expect(openIncident([a, b, c])?.metadata.name).toBe('b');
    expect(openIncident([c])).toBeUndefined();
  });
});
