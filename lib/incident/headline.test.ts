import { describe, expect, it } from 'vitest';
import type { WorkloadView } from '../console/views.js';
import { fence, input, NOW, node } from './fixtures.test-helpers.js';
import { headlineOf, headlineText } from './headline.js';
import type { BudgetGlance, FencingInput, IncidentInput } from './types.js';

const at = (z: string, r: string, ready: 'Ready' | 'Unknown' = 'Ready') => ({ zone: z, rack: r, ready });
/** the demo cluster's shape: zones a, b, c, two racks of two nodes each */
function cluster(down: string[]) {
  const out = [];
  for (const z of ['a', 'b', 'c'])
    for (const r of [1, 2])
      for (const n of [1, 2]) {
        const name = `${z}${r}-${n}`;
        const p = at(`zone-${z}`, `${z}${r}`, down.includes(name) ? 'Unknown' : 'Ready');
        out.push(node(name, p.ready, { zone: p.zone, rack: p.rack }));
      }
  return out;
}

const wl = (
  name: string,
  ready: number,
  replicas: number,
  kind: WorkloadView['kind'] = 'StatefulSet',
): WorkloadView => ({
  kind,
  namespace: 'shop',
  name,
  uid: `uid-${name}`,
  replicas,
  readyReplicas: ready,
});

const budget = (over: Partial<BudgetGlance> = {}): BudgetGlance => ({
  policy: 'zones',
  paused: false,
  selected: 12,
  unhealthy: 4,
  maxUnhealthy: 5,
  ...over,
});

const fencing = (over: Partial<FencingInput> = {}): FencingInput => ({
  enabled: true,
  covered: 'all',
  fences: [],
  held: [],
  upcoming: [],
  budgets: [budget()],
  ...over,
});

// clock times as UTC HH:MM:SS, whatever the machine's zone
const clock = (ms: number) => new Date(ms).toISOString().slice(11, 19);
const text = (i: Partial<IncidentInput>) => headlineText(headlineOf(input({ now: NOW, ...i })), clock);
const FENCE_AT = NOW + 10_000;

describe('the headline', () => {
  const cases: { name: string; i: Partial<IncidentInput>; want: string }[] = [
    { name: 'calm', i: { nodes: cluster([]), fencing: fencing() }, want: 'Nothing is broken' },
    {
      name: 'a zone down, its workloads named with ready/desired, fences and the budget',
      i: {
        nodes: cluster(['a1-1', 'a1-2', 'a2-1', 'a2-2']),
        workloads: [wl('storefront', 2, 8, 'Deployment'), wl('orders-db', 1, 3), wl('queue', 3, 3)],
        fencing: fencing({
          upcoming: ['a1-1', 'a1-2', 'a2-1'].map((n) => ({
            node: n,
            policy: 'zones',
            fenceAt: FENCE_AT,
            paused: false,
          })),
          fences: [fence('a2-2', 'Detected', { fenceAt: FENCE_AT + 2_000 })],
        }),
      },
      want: `zone-a down: 4/4 nodes; storefront 2/8, orders-db 1/3; 4 fences at ${clock(FENCE_AT)}; fencing budget 1 left`,
    },
    {
      name: 'a rack down in one zone, one node in another',
      i: {
        nodes: cluster(['b1-1', 'b1-2', 'c2-1']),
        fencing: fencing({ budgets: [budget({ unhealthy: 3 })] }),
      },
      want: 'rack b1 down (zone-b, 2/2 nodes); zone-c: 1/4 nodes down; fencing budget 2 left',
    },
    {
      name: 'the budget at its edge',
      i: { nodes: cluster(['c1-1']), fencing: fencing({ budgets: [budget({ unhealthy: 5 })] }) },
      want: 'zone-c: 1/4 nodes down; fencing budget 0 left: one more node loss and fencing stops',
    },
    {
      name: 'the budget exceeded: the fences it holds',
      i: {
        nodes: cluster(['a1-1', 'a1-2', 'a2-1', 'a2-2', 'b1-1', 'b1-2']),
        fencing: fencing({
          budgets: [budget({ unhealthy: 6 })],
          held: ['b1-1', 'b1-2'].map((n) => ({ node: n, reason: 'budget' as const, why: 'over budget' })),
        }),
      },
      want: 'zone-a down: 4/4 nodes; rack b1 down (zone-b, 2/2 nodes); 2 fences held; fencing budget exceeded (6 of 12 nodes unhealthy, at most 5): fences are held',
    },
    {
      name: 'a paused policy: its fences are not counting down',
      i: {
        nodes: cluster(['a1-1']),
        fencing: fencing({
          budgets: [budget({ paused: true, unhealthy: 1 })],
          fences: [fence('a1-1', 'Detected', { policy: 'zones', fenceAt: FENCE_AT })],
          held: [{ node: 'a1-1', reason: 'paused', why: 'policy zones is paused' }],
        }),
      },
      want: 'zone-a: 1/4 nodes down; 1 fence held; fencing budget 4 left',
    },
    {
      name: 'a cancelled fence is not announced; one under way is',
      i: {
        nodes: cluster(['a1-1', 'b1-1']),
        fencing: fencing({
          budgets: [budget({ unhealthy: 2 })],
          fences: [
            fence('a1-1', 'Detected', { cancelRequestedBy: 'ann', fenceAt: FENCE_AT }),
            fence('b1-1', 'Fencing'),
          ],
        }),
      },
      want: 'zone-a: 1/4 nodes down; zone-b: 1/4 nodes down; 1 fence under way; fencing budget 3 left',
    },
    {
      name: 'only workloads short (a rollout, no node down): no budget said',
      i: {
        nodes: cluster([]),
        workloads: [wl('a', 1, 2), wl('b', 2, 4), wl('c', 0, 1), wl('d', 1, 5), wl('e', 2, 3)],
      },
      want: 'c 0/1, d 1/5, a 1/2, b 2/4 and 1 more below desired',
    },
    {
      name: 'a ReplicaSet is counted through its Deployment',
      i: { nodes: cluster([]), workloads: [wl('web-7f9', 1, 3, 'ReplicaSet')] },
      want: 'Nothing is broken',
    },
  ];
  it.each(cases)('$name', ({ i, want }) => expect(text(i)).toBe(want));

  it('rolls every zone and rack up, down ones counted', () => {
    const h = headlineOf(input({ nodes: cluster(['a1-1', 'a1-2', 'b2-1']) }));
    expect(h.zones.map((z) => `${z.zone} ${z.down}/${z.nodes}`)).toEqual([
      'zone-a 2/4',
      'zone-b 1/4',
      'zone-c 0/4',
    ]);
    expect(h.zones[0]!.racks).toEqual([
      { rack: 'a1', nodes: 2, down: 2 },
      { rack: 'a2', nodes: 2, down: 0 },
    ]);
  });
});
