import { describe, expect, it } from 'vitest';
import type { Violation } from './checker.js';
import { PROTECTION_INVARIANT, ProtectionChecker, type ViewPod } from './protection.js';
import { nodeInService } from './protectionWatch.js';

const NOW = Date.parse('2025-01-01T00:10:00Z');
const ago = (s: number) => new Date(NOW - s * 1000).toISOString();

function pod(name: string, opts: { node?: string; readyFor?: number; app?: string } = {}): ViewPod {
  return {
    metadata: { name, namespace: 'shop', labels: { app: opts.app ?? 'web' } },
    spec: { nodeName: opts.node ?? 'n1' },
    status: {
      phase: 'Running',
      conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: ago(opts.readyFor ?? 600) }],
    },
  };
}

const deleting = (p: ViewPod): ViewPod => ({
  ...p,
  metadata: { ...p.metadata, deletionTimestamp: ago(0) },
});

const protector = (minAvailable: number, minReadySeconds = 0) => ({
  apiVersion: 'podseidon.kubewharf.io/v1alpha1',
  kind: 'PodProtector',
  metadata: { name: 'web', namespace: 'shop' },
  spec: { minAvailable, minReadySeconds, selector: { matchLabels: { app: 'web' } } },
});

/** A fixture cluster: pods by name, protectors, node readiness; the checker reads it live. */
function fixture(pods: ViewPod[], protectors: unknown[], notReady: string[] = []) {
  const state = new Map(pods.map((p) => [p.metadata!.name!, p]));
  const events: string[] = [];
  const checker = new ProtectionChecker(
    {
      pods: (ns) => [...state.values()].filter((p) => p.metadata?.namespace === ns),
      protectors: (ns) => protectors.filter((p) => (p as any).metadata.namespace === ns),
      nodeReady: (n) => !notReady.includes(n),
    },
    { now: () => NOW, debounceMs: 0, emit: (type, v: Violation) => events.push(`${type} ${v.subject}`) },
  );
  return {
    checker,
    events,
    /** graceful API delete: the pod gains a deletionTimestamp */
    del(name: string) {
      const old = state.get(name)!;
      const now = deleting(old);
      state.set(name, now);
      checker.podUpdated(now, old);
    },
    /** the pod object vanishes (a force delete, or the kubelet's final delete) */
    remove(name: string) {
      const last = state.get(name)!;
      state.delete(name);
      checker.podRemoved(last);
    },
    add(p: ViewPod) {
      state.set(p.metadata!.name!, p);
      checker.podUpdated(p, p);
      checker.flush();
    },
  };
}

const three = () => [pod('a'), pod('b'), pod('c')];

describe('ProtectionChecker', () => {
  it('two deletions with minAvailable = replicas - 1 give one violation', () => {
    const f = fixture(three(), [protector(2)]);
    f.del('a');
    expect(f.checker.list()).toEqual([]);
    f.del('b');
    const [v] = f.checker.list();
    expect(f.checker.list()).toHaveLength(1);
    expect(v).toMatchObject({
      invariant: PROTECTION_INVARIANT,
      subject: 'shop/web',
      since: NOW,
      evidence: [],
    });
    expect(v.message).toBe(
      'deleting pod shop/b left 1 available pods, below minAvailable 2 of PodProtector shop/web',
    );
    // a third deletion while it is open is the same violation
    f.del('c');
    expect(f.checker.list()).toHaveLength(1);
    expect(f.events).toEqual(['violation shop/web']);
  });

  it('a force delete (gone without deletionTimestamp) counts; the kubelet removing a terminating pod does not', () => {
    const f = fixture(three(), [protector(3)]);
    f.del('a');
    expect(f.checker.list()).toHaveLength(1);
    f.add(pod('a2'));
    expect(f.checker.list()[0].until).toBe(NOW);
    f.remove('a'); // the terminating pod goes: not a new deletion
    expect(f.checker.list()).toHaveLength(1);
    f.remove('b'); // force deletion of an available pod
    expect(f.checker.list()).toHaveLength(2);
    expect(f.checker.list()[1].message).toContain('shop/b');
  });

  it('ignores deletions of pods on nodes that are not Ready', () => {
    const f = fixture(
      [pod('a', { node: 'down' }), pod('b', { node: 'down' }), pod('c')],
      [protector(2)],
      ['down'],
    );
    f.del('a');
    f.del('b');
    expect(f.checker.list()).toEqual([]);
  });

  it('ignores pods that were not available yet, and pods no protector selects', () => {
    const f = fixture([pod('a', { readyFor: 5 }), pod('b'), pod('x', { app: 'other' })], [protector(2, 30)]);
    f.del('a');
    f.del('x');
    expect(f.checker.list()).toEqual([]);
  });

  it('closes the violation when a replacement becomes available, or when the protector goes', () => {
    const protectors: unknown[] = [protector(2)];
    const f = fixture(three(), protectors);
    f.del('a');
    f.del('b');
    f.add({ ...pod('d'), status: { phase: 'Pending', conditions: [] } });
    expect(f.checker.list()[0].until).toBeUndefined();
    f.add(pod('d'));
    expect(f.checker.list()[0].until).toBe(NOW);
    expect(f.events).toEqual(['violation shop/web', 'violation-ended shop/web']);

    f.del('c');
    f.del('d');
    expect(f.checker.list()).toHaveLength(2);
    protectors.length = 0;
    f.checker.recheck();
    expect(f.checker.list().every((v) => v.until === NOW)).toBe(true);
  });

  it('skips protectors it cannot parse instead of failing', () => {
    const f = fixture(three(), [{ metadata: { name: 'bad', namespace: 'shop' }, spec: {} }, protector(3)]);
    f.del('a');
    expect(f.checker.list().map((v) => v.subject)).toEqual(['shop/web']);
  });
});

describe('which nodes still run their pods (protectionWatch)', () => {
  const node = (ready: string, taints: { key: string; effect: string }[] = []) => ({
    status: { conditions: [{ type: 'Ready', status: ready }] },
    spec: { taints },
  });
  it.each([
    ['Ready', node('True'), true],
    ['Unknown', node('Unknown'), false],
    ['unknown node', undefined, false],
    // a fence powered it off; the API has not noticed yet, the release tainted it at once
    [
      'Ready but out of service',
      node('True', [{ key: 'node.kubernetes.io/out-of-service', effect: 'NoExecute' }]),
      false,
    ],
  ] as const)('%s', (_what, n, want) => expect(nodeInService(n as never)).toBe(want));
});
