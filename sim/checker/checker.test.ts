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

  it('flags two running pods holding one instance ID, and closes it when one gives it back', () => {
    const truth = new GroundTruth();
    const checker = new SafetyChecker(truth, 0);
    const web = (node: string, uid: string, name: string) => ({
      node,
      podUid: uid,
      podName: name,
      namespace: 'shop',
      volumes: [],
      sigtermExitMs: 0,
    });
    const a = truth.start(web('n1', 'u1', 'web-a'));
    const b = truth.start(web('n2', 'u2', 'web-b'));
    truth.holdInstanceId(a.id, { workload: 'shop/Deployment/web', id: 0 });
    truth.holdInstanceId(b.id, { workload: 'shop/Deployment/web', id: 1 });
    // the same id of another workload is another instance
    const c = truth.start(web('n2', 'u3', 'api-a'));
    truth.holdInstanceId(c.id, { workload: 'shop/Deployment/api', id: 0 });
    checker.evaluate();
    expect(checker.list()).toEqual([]);
    // b's entry was dropped as stale and it was given 0 again while a still runs as 0
    truth.holdInstanceId(b.id, { workload: 'shop/Deployment/web', id: 0 });
    checker.evaluate();
    const [v] = checker.list();
    expect(v).toMatchObject({
      invariant: 'unique-instance-id',
      subject: 'shop/Deployment/web#0',
      message: '2 running pods hold instance ID 0 of shop/Deployment/web: web-a on n1, web-b on n2',
    });
    expect(v.evidence.map((p) => p.podName).sort()).toEqual(['web-a', 'web-b']);
    expect(v.until).toBeUndefined();
    truth.dropInstanceId(a.id);
    checker.evaluate();
    expect(checker.list()[0].until).toBeTypeOf('number');
    // a process that dies holding its id no longer counts either
    truth.holdInstanceId(a.id, { workload: 'shop/Deployment/web', id: 0 });
    checker.evaluate();
    expect(checker.list().filter((x) => !x.until)).toHaveLength(1);
    truth.stop(b.id, 'SIGKILL');
    checker.evaluate();
    expect(checker.list().filter((x) => !x.until)).toEqual([]);
    checker.stop();
  });
});
