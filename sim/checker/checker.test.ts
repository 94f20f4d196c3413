import { describe, expect, it } from 'vitest';
import { GroundTruth } from '../infra/groundTruth.js';
import { SafetyChecker } from './checker.js';

const proc = (node: string, uid: string) => ({
  node,
  podUid: uid,
  podName: 'db-0',
  namespace: 'shop',
  identity: 'shop/db/0',
  volumes: [{ pv: 'pv-1', accessMode: 'ReadWriteOnce' as const }],
  sigtermExitMs: 0,
});

describe('SafetyChecker', () => {
  it('opens a violation with evidence, keeps it, and closes it when the second copy stops', () => {
    const truth = new GroundTruth();
    const checker = new SafetyChecker(truth, 0);
    const a = truth.start(proc('n1', 'u1'));
    checker.evaluate();
    expect(checker.list()).toEqual([]);
    const b = truth.start(proc('n2', 'u2'));
    checker.evaluate();
    const open = checker.list();
    expect(open.map((v) => v.invariant).sort()).toEqual([
      'at-most-one-node-writing-rwo-volume',
      'at-most-one-per-statefulset-identity',
    ]);
    expect(open[0].evidence.map((p) => p.id).sort()).toEqual([a.id, b.id]);
    expect(open.every((v) => v.until === undefined)).toBe(true);
    truth.stop(b.id, 'killed');
    checker.evaluate();
    expect(checker.list().every((v) => typeof v.until === 'number')).toBe(true);
    checker.stop();
  });

  it('a storage-fenced node stops counting as a writer', () => {
    const truth = new GroundTruth();
    const checker = new SafetyChecker(truth, 0);
    truth.start(proc('n1', 'u1'));
    truth.start({ ...proc('n2', 'u2'), identity: undefined });
    checker.evaluate();
    expect(
      checker
        .list()
        .filter((v) => !v.until)
        .map((v) => v.subject),
    ).toEqual(['pv-1']);
    truth.fence('n1');
    checker.evaluate();
    expect(checker.list().filter((v) => !v.until)).toEqual([]);
    checker.stop();
  });
});
