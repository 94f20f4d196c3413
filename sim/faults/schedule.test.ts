import { describe, expect, it } from 'vitest';
import { describeIncident, generateSchedule, prng } from './schedule.js';

const nodes = [
  'a1-1',
  'a1-2',
  'a2-1',
  'a2-2',
  'b1-1',
  'b1-2',
  'b2-1',
  'b2-2',
  'c1-1',
  'c1-2',
  'c2-1',
  'c2-2',
];
const opts = { nodes, replicas: 2, windowMs: 40_000 };

describe('seeded fault schedules', () => {
  it('the same seed gives the same schedule; another seed another', () => {
    expect(generateSchedule(7, opts)).toEqual(generateSchedule(7, opts));
    expect(generateSchedule(7, opts)).not.toEqual(generateSchedule(8, opts));
    expect(prng(1)()).toBe(prng(1)());
  });

  it('a node is in one incident at a time, and one replica at most is down', () => {
    for (let seed = 1; seed <= 300; seed++) {
      const s = generateSchedule(seed, opts);
      const spans = new Map<string, [number, number][]>();
      for (const i of s.incidents) {
        const keys = i.kind === 'replica' ? ['replicas'] : i.nodes;
        for (const k of keys) {
          for (const [a, b] of spans.get(k) ?? [])
            expect(i.atMs >= b || i.atMs + i.forMs <= a, `seed ${seed}: ${describeIncident(i)}`).toBe(true);
          spans.set(k, [...(spans.get(k) ?? []), [i.atMs, i.atMs + i.forMs]]);
        }
      }
      expect(s.endMs).toBeGreaterThanOrEqual(Math.max(...s.incidents.map((i) => i.atMs + i.forMs)));
    }
  });

  it('over many seeds, every kind of fault comes up, partitions of one and of many', () => {
    const all = Array.from({ length: 100 }, (_, i) => generateSchedule(i + 1, opts).incidents).flat();
    const kinds = new Set(
      all.map((i) =>
        i.kind === 'partition'
          ? i.healMidFence
            ? 'mid-fence'
            : i.nodes.length > 1
              ? 'partition-many'
              : 'partition-one'
          : i.kind,
      ),
    );
    expect([...kinds].sort()).toEqual(
      ['kubelet', 'mid-fence', 'partition-many', 'partition-one', 'power', 'replica'].sort(),
    );
    expect(Math.max(...all.filter((i) => i.kind === 'partition').map((i) => i.nodes.length))).toBe(6);
  });

  it('describes each incident in one line', () =>
    expect(
      describeIncident({ kind: 'partition', nodes: ['c2-2'], atMs: 3_200, forMs: 8_000, healMidFence: true }),
    ).toBe('partition c2-2 at 3.2 s for 8.0 s (healed mid-fence)'));
});
