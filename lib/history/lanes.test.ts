import { describe, expect, it } from 'vitest';
import { axisFraction, lanesOf } from './lanes.js';
import type { HistoryEntry } from './types.js';

const T0 = Date.parse('2026-11-30T04:54:00Z');
const at = (s: number) => new Date(T0 + s * 1000).toISOString();
let n = 0;
function entry(
  s: number,
  e: Partial<HistoryEntry> & Pick<HistoryEntry, 'kind' | 'reason' | 'subject'>,
): HistoryEntry {
  return { id: `e${n++}`, cluster: 'c', at: at(s), severity: 'info', message: `${e.reason} at ${s}`, ...e };
}
const node = (name: string) => ({ kind: 'Node', name });
const fenceB1 = { kind: 'NodeFence', name: 'b1' };
const db = { kind: 'StatefulSet', namespace: 'shop', name: 'orders-db' };
const pod = { kind: 'Pod', namespace: 'shop', name: 'x' };
const w = { from: T0, to: T0 + 100_000 };

describe('lanesOf', () => {
  const entries: HistoryEntry[] = [
    entry(0, { kind: 'fault', reason: 'InfraPowerOff', subject: node('b1'), details: { verb: 'power-off' } }),
    entry(8, { kind: 'node-condition', reason: 'Unknown', subject: node('b1') }),
    entry(60, { kind: 'node-condition', reason: 'Ready', subject: node('b1') }),
    entry(20, { kind: 'fence-step', reason: 'Detected', subject: fenceB1, details: { node: 'b1' } }),
    entry(30, {
      kind: 'fence-cancel',
      reason: 'Cancelled',
      subject: fenceB1,
      actor: 'ann',
      details: { node: 'b1' },
    }),
    entry(10, { kind: 'workload', reason: 'BelowDesired', subject: db }),
    entry(70, { kind: 'workload', reason: 'AtDesired', subject: db }),
    entry(29, {
      kind: 'guarded-action',
      reason: 'FenceCancelled',
      subject: fenceB1,
      actor: 'ann',
      details: { action: 'cancelFence' },
    }),
    // not laned: an admission denial, a Warning event
    entry(40, { kind: 'admission-denial', reason: 'Denied', subject: pod }),
    entry(41, { kind: 'warning-event', reason: 'BackOff', subject: pod }),
  ];

  it('lays a window out in lanes: nodes, fences, workloads, people', () => {
    const lanes = lanesOf(entries, w, [
      { at: at(45), by: 'bob', kind: 'Status', text: 'power crew on site' },
    ]);
    expect(lanes.map((l) => `${l.group}:${l.key}`)).toEqual([
      'nodes:b1',
      'fences:b1',
      'workloads:StatefulSet shop/orders-db',
      'people:ann',
      'people:bob',
    ]);
    const [b1, fence, db, ann, bob] = lanes;
    expect(b1!.spans.map((s) => [s.state, (s.from - T0) / 1000, (s.to - T0) / 1000])).toEqual([
      ['Unknown', 8, 60],
      ['Ready', 60, 100],
    ]);
    expect(b1!.marks.map((m) => m.code)).toEqual(['power-off']);
    expect(fence!.spans.map((s) => s.state)).toEqual(['Detected', 'Cancelled']);
    expect(db!.spans.map((s) => [s.state, (s.to - s.from) / 1000])).toEqual([
      ['BelowDesired', 60],
      ['AtDesired', 30],
    ]);
    expect(ann!.marks.map((m) => m.code)).toEqual(['cancelFence']);
    expect(bob!.marks).toEqual([
      expect.objectContaining({ code: 'Status', text: 'power crew on site', at: T0 + 45_000 }),
    ]);
  });

  it('clips spans to the window and leaves out what comes after it', () => {
    const narrow = { from: T0 + 30_000, to: T0 + 65_000 };
    const b1 = lanesOf(entries, narrow).find((l) => l.key === 'b1' && l.group === 'nodes')!;
    expect(b1.spans.map((s) => [s.state, (s.from - T0) / 1000, (s.to - T0) / 1000])).toEqual([
      ['Unknown', 30, 60],
      ['Ready', 60, 65],
    ]);
    // the power-off mark at 0 s is before the window
    expect(b1.marks).toEqual([]);
    expect(lanesOf(entries, narrow).some((l) => l.key === 'bob')).toBe(false);
  });

  it('has no lane for a window with nothing in it', () => {
    expect(lanesOf([], w)).toEqual([]);
  });
});

describe('axisFraction', () => {
  it.each([
    [T0 - 1, 0],
    [T0, 0],
    [T0 + 50_000, 0.5],
    [T0 + 200_000, 1],
  ])('%d -> %d', (t, f) => expect(axisFraction(t, w)).toBe(f));
  it('is 0 on an empty window', () => expect(axisFraction(T0, { from: T0, to: T0 })).toBe(0));
});
