import { describe, expect, it } from 'vitest';
import type { Process } from '../infra/groundTruth.js';
import { atMostOnePerIdentity, atMostOneWriterPerVolume, evaluateAll } from './invariants.js';

let id = 0;
const proc = (node: string, extra: Partial<Process> = {}): Process => ({
  id: ++id,
  node,
  podUid: `uid-${id}`,
  podName: 'web-0',
  namespace: 'shop',
  volumes: [],
  startedAt: 0,
  sigtermExitMs: 500,
  ...extra,
});

describe('at most one process per StatefulSet identity', () => {
  it.each([
    { name: 'one process', procs: [proc('a', { identity: 'shop/web/0' })], violations: 0 },
    {
      name: 'two identities',
      procs: [proc('a', { identity: 'shop/web/0' }), proc('b', { identity: 'shop/web/1' })],
      violations: 0,
    },
    {
      name: 'same identity on two nodes',
      procs: [proc('a', { identity: 'shop/web/0' }), proc('b', { identity: 'shop/web/0' })],
      violations: 1,
    },
    { name: 'no identity (Deployment pods)', procs: [proc('a'), proc('b')], violations: 0 },
    {
      name: 'the old copy is cut from all its volumes (storage fence)',
      procs: [
        proc('a', { identity: 'shop/web/0', volumes: [{ pv: 'pv1', accessMode: 'ReadWriteOnce' }] }),
        proc('b', { identity: 'shop/web/0', volumes: [{ pv: 'pv1', accessMode: 'ReadWriteOnce' }] }),
      ],
      fencedNode: 'a',
      violations: 0,
    },
    {
      name: 'a storage fence does not help a copy without volumes',
      procs: [proc('a', { identity: 'shop/web/0' }), proc('b', { identity: 'shop/web/0' })],
      fencedNode: 'a',
      violations: 1,
    },
  ])(
    '$name',
    ({ procs, violations, fencedNode }: { procs: Process[]; violations: number; fencedNode?: string }) => {
      const found = evaluateAll(atMostOnePerIdentity, procs, (p) => p.node !== fencedNode);
      expect(found).toHaveLength(violations);
      if (violations) expect(found[0].message).toContain('shop/web/0');
    },
  );
});

describe('at most one node writing each RWO volume', () => {
  const rwo = (pv: string) => [{ pv, accessMode: 'ReadWriteOnce' as const }];
  const rwx = (pv: string) => [{ pv, accessMode: 'ReadWriteMany' as const }];
  it.each([
    { name: 'one writer', procs: [proc('a', { volumes: rwo('pv1') })], fenced: [], violations: 0 },
    {
      name: 'two nodes write RWO',
      procs: [proc('a', { volumes: rwo('pv1') }), proc('b', { volumes: rwo('pv1') })],
      fenced: [],
      violations: 1,
    },
    {
      name: 'two pods on one node share RWO',
      procs: [proc('a', { volumes: rwo('pv1') }), proc('a', { volumes: rwo('pv1') })],
      fenced: [],
      violations: 0,
    },
    {
      name: 'RWX may have many writers',
      procs: [proc('a', { volumes: rwx('pv1') }), proc('b', { volumes: rwx('pv1') })],
      fenced: [],
      violations: 0,
    },
    {
      name: 'a storage-fenced node does not write',
      procs: [proc('a', { volumes: rwo('pv1') }), proc('b', { volumes: rwo('pv1') })],
      fenced: ['a'],
      violations: 0,
    },
  ])('$name', ({ procs, fenced, violations }) => {
    const found = evaluateAll(atMostOneWriterPerVolume, procs, (p) => !fenced.includes(p.node));
    expect(found).toHaveLength(violations);
    if (violations) expect(found[0].message).toBe('volume pv1 is written from a and b at once');
  });
});
