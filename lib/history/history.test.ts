import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { EventView } from '../console/views.js';
import { sealAudit } from '../guard/auditSeal.js';
import { auditRowOfEntry, mergeAuditRows, releasedText } from './audit.js';
import { denialEntry, eventEntry, fenceEntries, nodeConditionEntry, workloadEntry } from './entries.js';
import { matches, selectTimeline, timelineFilter } from './filter.js';
import { decodeTimelineLink, encodeTimelineLink } from './link.js';
import { replayNodes } from './replay.js';
import { retentionCutoff, retentionSchema } from './retention.js';
import { type HistoryEntry, historyEntry } from './types.js';

const T0 = Date.parse('2026-11-27T10:00:00Z');
const at = (s: number) => new Date(T0 + s * 1000).toISOString();

function entry(over: Partial<HistoryEntry> & { id: string }): HistoryEntry {
  return {
    cluster: 'c1',
    at: at(0),
    kind: 'warning-event',
    severity: 'warning',
    subject: { kind: 'Pod', namespace: 'shop', name: 'web-1' },
    reason: 'BackOff',
    message: 'Back-off restarting failed container',
    ...over,
  };
}

describe('historyEntry', () => {
  it.each([
    ['a whole entry', entry({ id: 'a' }), true],
    ['an unknown kind', { ...entry({ id: 'a' }), kind: 'gossip' }, false],
    ['a time that is no ISO time', { ...entry({ id: 'a' }), at: 'yesterday' }, false],
    ['an extra key', { ...entry({ id: 'a' }), extra: 1 }, false],
  ])('%s: valid %s', (_, value, ok) => {
    expect(historyEntry.safeParse(value).success).toBe(ok);
  });

  it('names the field of an error', () => {
    const r = historyEntry.safeParse({ ...entry({ id: 'a' }), kind: 'gossip' });
    expect(r.success).toBe(false);
    expect(r.error?.issues[0].path).toEqual(['kind']);
    expect(r.error?.issues[0].message).toContain('must be one of node-condition');
  });
});

describe('timeline filter', () => {
  const entries = [
    entry({ id: 'w', at: at(10) }),
    entry({
      id: 'f',
      at: at(20),
      kind: 'fault',
      reason: 'SimulatedPartition',
      message: 'partition',
      subject: { kind: 'Node', name: 'a2-1' },
    }),
    entry({
      id: 'n',
      at: at(30),
      kind: 'node-condition',
      reason: 'Unknown',
      message: 'node a2-1 is Unknown',
      subject: { kind: 'Node', name: 'a2-1' },
    }),
    entry({ id: 'other', at: at(30), cluster: 'c2' }),
  ];
  const base = { cluster: 'c1', from: at(0), to: at(60) };
  it.each([
    ['the window, newest first', base, ['n', 'f', 'w']],
    ['one kind', { ...base, kinds: ['fault' as const] }, ['f']],
    ['two kinds', { ...base, kinds: ['fault' as const, 'node-condition' as const] }, ['n', 'f']],
    ['text in the subject, any case', { ...base, q: 'A2-1' }, ['n', 'f']],
    ['text in the message', { ...base, q: 'back-off' }, ['w']],
    ['a window that ends before the fault', { ...base, to: at(15) }, ['w']],
    ['bounds included', { ...base, from: at(20), to: at(20) }, ['f']],
    ['a limit', { ...base, limit: 1 }, ['n']],
  ])('%s', (_, f, ids) => {
    expect(selectTimeline(entries, f).map((e) => e.id)).toEqual(ids);
  });

  it('refuses a window that ends before it starts, naming to', () => {
    const r = timelineFilter.safeParse({ ...base, from: at(60), to: at(0) });
    expect(r.error?.issues[0].path).toEqual(['to']);
  });

  it('refuses a NUL in q, naming q (PostgreSQL text cannot hold one: the store answered 500)', () => {
    const r = timelineFilter.safeParse({ ...base, q: 'a\u0000b' });
    expect(r.error?.issues.map((i) => [i.path, i.message])).toEqual([
      [['q'], 'must not contain a NUL character'],
    ]);
    expect(timelineFilter.safeParse({ ...base, q: 'web-0' }).success).toBe(true);
  });

  it('matches only its cluster', () => {
    expect(matches(entries[3], { ...base })).toBe(false);
  });
});

describe('retention', () => {
  it.each([
    ['14d', 14 * 86_400_000],
    ['36h', 36 * 3_600_000],
    ['90m', 90 * 60_000],
    ['1.5d', 36 * 3_600_000],
  ])('%s is %d ms', (text, ms) => {
    expect(retentionSchema.parse(text)).toBe(ms);
  });

  it.each([['14'], ['2w'], ['10m'], ['-1d']])('refuses %s', (text) => {
    expect(retentionSchema.safeParse(text).success).toBe(false);
  });

  it('deletes what is older than now minus the retention', () => {
    expect(retentionCutoff(T0, 86_400_000).toISOString()).toBe('2026-11-26T10:00:00.000Z');
  });
});

describe('replay', () => {
  const cond = (s: number, node: string, ready: 'Ready' | 'NotReady' | 'Unknown') =>
    nodeConditionEntry('c1', { name: node, ready, readySince: T0 + s * 1000 }, T0 + s * 1000 + 5);
  const history = [
    cond(0, 'a2-1', 'Ready'),
    cond(0, 'a2-2', 'Ready'),
    entry({
      id: 'p',
      at: at(10),
      kind: 'fault',
      reason: 'SimulatedPartition',
      subject: { kind: 'Node', name: 'a2-1' },
      details: { verb: 'partition' },
    }),
    cond(19, 'a2-1', 'Unknown'),
    entry({
      id: 'fs',
      at: at(30),
      kind: 'fence-step',
      reason: 'Fencing',
      subject: { kind: 'NodeFence', name: 'a2-1-x' },
      details: { node: 'a2-1' },
    }),
    entry({
      id: 'h',
      at: at(60),
      kind: 'fault',
      reason: 'SimulatedHeal',
      subject: { kind: 'Node', name: 'a2-1' },
      details: { verb: 'heal' },
    }),
    cond(65, 'a2-1', 'Ready'),
    cond(70, 'b1-1', 'NotReady'),
  ];
  const state = (s: number, nodes?: string[]) =>
    Object.fromEntries(replayNodes('c1', history, at(s), nodes).nodes.map((n) => [n.node, n]));
  it.each([
    [5, 'a2-1', 'Ready', undefined, undefined],
    [15, 'a2-1', 'Ready', undefined, 'partition'],
    [19, 'a2-1', 'Unknown', undefined, 'partition'],
    [45, 'a2-1', 'Unknown', 'Fencing', 'partition'],
    [66, 'a2-1', 'Ready', 'Fencing', 'heal'],
    [45, 'a2-2', 'Ready', undefined, undefined],
  ])('at +%ds %s is %s (fence %s, fault %s)', (s, node, ready, fence, fault) => {
    const n = state(s)[node];
    expect(n.ready).toBe(ready);
    expect(n.fence?.phase).toBe(fence);
    expect(n.fault?.verb).toBe(fault);
  });

  it('says unrecorded for a node with no entry by then, never Ready', () => {
    expect(state(30, ['b1-1'])['b1-1'].ready).toBe('unrecorded');
    expect(state(75)['b1-1'].ready).toBe('NotReady');
  });

  it('reads entries in any order', () => {
    const r = replayNodes('c1', [...history].reverse(), at(20));
    expect(r.nodes.find((n) => n.node === 'a2-1')?.ready).toBe('Unknown');
  });
});

describe('shareable link', () => {
  const view = {
    cluster: 'kind-a',
    from: at(0),
    to: at(600),
    kinds: ['fault' as const, 'fence-step' as const],
    q: 'a2-1 power',
    at: at(300),
    incident: 'inc-20261130-045408',
  };
  it('round-trips', () => {
    const link = encodeTimelineLink(view);
    expect(link).toMatch(/^\/timeline\?cluster=kind-a&from=/);
    expect(decodeTimelineLink(link, T0)).toEqual({ ok: true, view });
  });
  it('opens on the hour before now without a window', () => {
    const d = decodeTimelineLink('', T0);
    expect(d).toEqual({ ok: true, view: { from: at(-3600), to: at(0), kinds: [], q: '' } });
  });
  it.each([
    ['from=monday', 'from'],
    ['to=2026-13-45T00:00:00Z', 'to'],
    ['kinds=fault,gossip', 'kinds'],
    ['at=noon', 'at'],
    ['incident=../../etc', 'incident'],
    [`from=${at(60)}&to=${at(0)}`, 'to'],
  ])('%s: an error naming %s', (q, field) => {
    const d = decodeTimelineLink(q, T0);
    expect(d.ok).toBe(false);
    if (!d.ok) expect(d.errors[0].field).toBe(field);
  });
});

describe('entries from facts', () => {
  it('a Ready transition has one id whoever observes it, whenever', () => {
    const n = { name: 'a2-1', ready: 'Unknown' as const, readySince: T0, reason: 'NodeStatusUnknown' };
    const a = nodeConditionEntry('c1', n, T0 + 100);
    const b = nodeConditionEntry('c1', n, T0 + 9000);
    expect(a).toEqual(b);
    expect(a).toMatchObject({ at: at(0), severity: 'critical', reason: 'Unknown' });
  });

  const KEY = randomBytes(32);
  /** as Palisade writes its records: named, and sealed under the install's audit key */
  const sealed = <E extends EventView>(e: E, key = KEY): E => {
    const name = `${e.involved.name}.palisade-x`;
    return { ...e, name, seal: sealAudit({ ...e, name }, e.lastSeen ?? 0, key) };
  };
  const ev = (over: object): EventView => ({
    uid: 'u1',
    namespace: 'default',
    involved: { kind: 'Node', name: 'a2-1' },
    type: 'Warning',
    reason: 'SimulatedPartition',
    message: 'Palisade console (simulation): network partition from the API server; requested by admin',
    count: 1,
    source: 'palisade-console',
    lastSeen: T0,
    ...over,
  });
  it.each([
    [
      'a simulated fault',
      ev({}),
      { kind: 'fault', actor: 'admin', details: expect.objectContaining({ verb: 'partition' }) },
    ],
    [
      'a guarded action',
      ev({
        reason: 'PalisadeForceDelete',
        type: 'Warning',
        involved: { kind: 'Pod', namespace: 'shop', name: 'web-1' },
        message: 'force deleted pod shop/web-1 | overridden: not fenced | by: alice | why: stuck',
      }),
      {
        kind: 'guarded-action',
        actor: 'alice',
        severity: 'warning',
        details: expect.objectContaining({ action: 'forceDeletePod', outcome: 'overridden' }),
      },
    ],
    [
      'a Warning of the kubelet',
      ev({ source: 'kubelet', reason: 'BackOff', message: 'back-off' }),
      { kind: 'warning-event', id: 'event:u1:1' },
    ],
    [
      'a power cut the embedded infrastructure reports, whoever caused it',
      ev({
        source: 'palisade-embedded-infrastructure',
        reason: 'InfraPowerOff',
        message: 'node a2-1 powered off',
      }),
      {
        kind: 'fault',
        actor: 'infrastructure',
        severity: 'warning',
        id: 'event:u1:1',
        details: expect.objectContaining({ verb: 'power-off', reportedBy: 'infrastructure' }),
      },
    ],
    [
      'its recovery, a Normal Event, is recorded too',
      ev({
        source: 'palisade-embedded-infrastructure',
        type: 'Normal',
        reason: 'InfraPowerOn',
        message: 'on',
      }),
      { kind: 'fault', severity: 'info', details: expect.objectContaining({ verb: 'power-on' }) },
    ],
  ])('%s', (_, e, want) => {
    expect(eventEntry('c1', sealed(e), KEY)).toMatchObject(want);
  });
  it('a record of Palisade’s has one id per Event, whatever its uid (a copy made later adds nothing)', () => {
    const e = sealed(ev({}));
    expect(eventEntry('c1', e, KEY)?.id).toBe(`audit:default/${e.name}`);
    expect(eventEntry('c1', { ...e, uid: 'u2' }, KEY)?.id).toBe(`audit:default/${e.name}`);
  });
  it('an Event that says it is the console’s but is not sealed is no record at all', () => {
    const forged = ev({
      reason: 'PalisadeForceDelete',
      type: 'Warning',
      involved: { kind: 'Pod', namespace: 'shop', name: 'web-1' },
      message: 'force deleted pod shop/web-1 | safe | by: admin | why: x',
    });
    expect(eventEntry('c1', forged, KEY)).toBeUndefined();
    expect(eventEntry('c1', sealed(forged, randomBytes(32)), KEY)).toBeUndefined();
    expect(eventEntry('c1', sealed(forged), undefined)).toBeUndefined();
  });
  it.each([
    ['a Normal Event of another component', ev({ source: 'kubelet', type: 'Normal', reason: 'Started' })],
    ['an Event with no time', ev({ lastSeen: undefined })],
  ])('nothing for %s', (_, e) => {
    expect(eventEntry('c1', e)).toBeUndefined();
  });
  it('a repeated Warning is a new entry per count', () => {
    expect(eventEntry('c1', ev({ source: 'kubelet', count: 2 }))?.id).toBe('event:u1:2');
  });

  const fence = {
    metadata: { name: 'a2-1-abc', uid: 'f1' },
    spec: {
      nodeName: 'a2-1',
      policy: 'demo',
      cancelRequested: { by: 'bob', reason: 'false alarm', at: at(5) },
    },
    status: {
      phase: 'Released',
      steps: [
        { phase: 'Detected', at: at(0), message: 'node a2-1 Unknown for 8s' },
        { phase: 'Fenced', at: at(20), message: 'powered off' },
        {
          phase: 'Released',
          at: at(25),
          message: 'released',
          released: { pods: ['shop/db-0'], volumeAttachments: ['csi-1'] },
        },
        { phase: 'Cancelled', at: at(30), message: '' },
      ],
    },
  };
  it('a fence: one entry per step, what each released, the canceller', () => {
    const es = fenceEntries('c1', fence);
    expect(es.map((e) => [e.kind, e.reason, e.actor])).toEqual([
      ['fence-step', 'Detected', 'palisade'],
      ['fence-step', 'Fenced', 'palisade'],
      ['fence-step', 'Released', 'palisade'],
      ['fence-cancel', 'Cancelled', 'bob'],
    ]);
    expect(es[2].details?.released).toEqual({ pods: ['shop/db-0'], volumeAttachments: ['csi-1'] });
    expect(es[3].details?.why).toBe('false alarm');
    expect(es[3].message).toBe('fence of node a2-1: Cancelled');
    expect(new Set(es.map((e) => e.id)).size).toBe(4);
  });
  it('a fence a person asked for (Fence now): its Detected and Fencing steps are theirs, with why', () => {
    const asked = {
      metadata: { name: 'b1-1', uid: 'f2' },
      spec: {
        nodeName: 'b1-1',
        policy: 'demo',
        requestedBy: { by: 'ann', at: at(0), reason: 'rack is dark' },
      },
      status: {
        steps: [
          { phase: 'Detected', at: at(0), message: 'fence requested by ann' },
          { phase: 'Fencing', at: at(1), message: 'fencing b1-1' },
          { phase: 'Fenced', at: at(4), message: 'powered off' },
        ],
      },
    };
    const es = fenceEntries('c1', asked);
    expect(es.map((e) => [e.reason, e.actor, e.details?.person ?? false])).toEqual([
      ['Detected', 'ann', true],
      ['Fencing', 'ann', true],
      ['Fenced', 'palisade', false],
    ]);
    // the Audit page: "by a person", not "automatic" (issue 25)
    expect(es.map((e) => auditRowOfEntry(e)?.outcome)).toEqual(['person', 'person', 'automatic']);
    expect(auditRowOfEntry(es[0]!)).toMatchObject({ by: 'ann', why: 'rack is dark' });
  });
  it.each([[{}], [{ metadata: { name: 'x' } }], [null]])('no entries for what is no fence: %j', (raw) => {
    expect(fenceEntries('c1', raw)).toEqual([]);
  });

  it('a denial names the pod and the protector', () => {
    const e = denialEntry('c1', {
      at: T0,
      protector: 'shop/orders',
      cell: 'c1',
      pod: 'shop/orders-db-0',
      podUid: 'p1',
      operation: 'DELETE',
      verdict: 'too-few',
      code: 429,
      message: 'too few available',
      requester: 'alice',
    });
    expect(e).toMatchObject({
      kind: 'admission-denial',
      subject: { kind: 'Pod', namespace: 'shop', name: 'orders-db-0' },
      actor: 'alice',
      reason: '429',
    });
  });

  const w = {
    kind: 'StatefulSet' as const,
    namespace: 'shop',
    name: 'db',
    uid: 'w1',
    resourceVersion: '7',
    replicas: 3,
    readyReplicas: 2,
  };
  it.each([
    ['the first sight', undefined, undefined],
    ['no change', { ...w, resourceVersion: '6' }, undefined],
    ['one less ready', { ...w, resourceVersion: '6', readyReplicas: 3 }, 'BelowDesired'],
    ['scaled up', { ...w, resourceVersion: '6', replicas: 2 }, 'BelowDesired'],
  ])('a workload: %s', (_, old, reason) => {
    expect(workloadEntry('c1', w, old, T0)?.reason).toBe(reason);
  });
});

describe('audit rows from the history', () => {
  const fence = fenceEntries('c1', {
    metadata: { name: 'a2-1-abc', uid: 'f1' },
    spec: { nodeName: 'a2-1', policy: 'demo', cancelRequested: { by: 'bob', reason: 'false alarm' } },
    status: {
      steps: [
        {
          phase: 'Released',
          at: at(25),
          message: 'released',
          released: { pods: ['shop/db-0'], volumeAttachments: ['csi-1'] },
        },
        { phase: 'Cancelled', at: at(30), message: 'cancelled' },
      ],
    },
  });
  it.each([
    [
      'a release names what it released',
      fence[0],
      {
        action: 'fence',
        outcome: 'automatic',
        by: 'palisade',
        label: 'Fence: Released',
        what: 'node a2-1: released — released pods shop/db-0; volume attachments csi-1',
      },
    ],
    [
      'a cancelled fence names who and why',
      fence[1],
      { action: 'fence', label: 'Fence cancelled', by: 'bob', why: 'false alarm' },
    ],
    [
      'a guarded action keeps its verdict',
      entry({
        id: 'g',
        kind: 'guarded-action',
        actor: 'alice',
        details: {
          eventUid: 'e1',
          action: 'forceDeletePod',
          outcome: 'overridden',
          what: 'force deleted',
          why: 'stuck',
          reasons: ['not fenced'],
        },
      }),
      {
        uid: 'e1',
        action: 'forceDeletePod',
        label: 'Force delete pod',
        outcome: 'overridden',
        reasons: ['not fenced'],
      },
    ],
    [
      'a fault is a simulation',
      entry({
        id: 's',
        kind: 'fault',
        actor: 'admin',
        details: { eventUid: 'e2', what: 'network partition' },
      }),
      { uid: 'e2', action: 'simulation', outcome: 'simulation', what: 'network partition' },
    ],
  ])('%s', (_, e, want) => {
    expect(auditRowOfEntry(e)).toMatchObject(want);
  });
  it('lists no Warning Event or node condition', () => {
    expect(auditRowOfEntry(entry({ id: 'w' }))).toBeUndefined();
  });
  it('lists no fault the infrastructure reported: it is no one’s action, and unsealed', () => {
    const infra = entry({
      id: 'i',
      kind: 'fault',
      actor: 'infrastructure',
      details: { eventUid: 'e3', verb: 'partition', reportedBy: 'infrastructure' },
    });
    expect(auditRowOfEntry(infra)).toBeUndefined();
  });
  it('merges one row per record, the store first', () => {
    const row = auditRowOfEntry(entry({ id: 's', kind: 'fault', details: { eventUid: 'e2' } }))!;
    const merged = mergeAuditRows(
      [row],
      [
        { ...row, what: 'from the Event' },
        { ...row, uid: 'e3' },
      ],
    );
    expect(merged.map((r) => [r.uid, r.what])).toEqual([
      ['e2', row.what],
      ['e3', row.what],
    ]);
  });
  it('says when a release released nothing', () => {
    expect(releasedText({ released: { pods: [], volumeAttachments: [] } })).toBe(
      'released no pods and no volume attachments',
    );
  });
});
