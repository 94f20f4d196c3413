import type * as k8s from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { NodeUsage, NodeViews } from './schedulerCache.js';

function node(
  name: string,
  ready: string,
  extra: { taints?: k8s.V1Taint[]; heartbeat?: string } = {},
): k8s.V1Node {
  return {
    metadata: { name, labels: { zone: 'a' } },
    spec: { taints: extra.taints },
    status: {
      allocatable: { cpu: '4', memory: '8Gi', pods: '10' },
      conditions: [
        { type: 'Ready', status: ready, lastHeartbeatTime: extra.heartbeat as unknown as Date },
      ] as k8s.V1NodeCondition[],
    },
  };
}

describe('NodeViews', () => {
  const cases: { name: string; before: k8s.V1Node; after: k8s.V1Node; changed: boolean }[] = [
    {
      name: 'a heartbeat changes nothing',
      before: node('n', 'True', { heartbeat: '1' }),
      after: node('n', 'True', { heartbeat: '2' }),
      changed: false,
    },
    { name: 'readiness matters', before: node('n', 'Unknown'), after: node('n', 'True'), changed: true },
    {
      name: 'taints matter',
      before: node('n', 'True'),
      after: node('n', 'True', { taints: [{ key: 'k', effect: 'NoSchedule' }] }),
      changed: true,
    },
  ];
  for (const c of cases)
    it(c.name, () => {
      const views = new NodeViews(new NodeUsage());
      expect(views.upsert(c.before)).toBe(true);
      expect(views.upsert(c.after)).toBe(c.changed);
      expect(views.list().map((v) => [v.name, v.ready])).toEqual([
        ['n', c.after.status!.conditions![0].status],
      ]);
    });

  it('keeps the order when a node changes, and drops removed nodes', () => {
    const views = new NodeViews(new NodeUsage());
    for (const n of ['a', 'b', 'c']) views.upsert(node(n, 'Unknown'));
    views.upsert(node('b', 'True'));
    expect(views.list().map((v) => `${v.name}:${v.ready}`)).toEqual(['a:Unknown', 'b:True', 'c:Unknown']);
    views.remove('a');
    expect(views.list().map((v) => v.name)).toEqual(['b', 'c']);
    expect(views.size).toBe(2);
  });

  it('sees pods assumed onto a node without being rebuilt', () => {
    const usage = new NodeUsage();
    const views = new NodeViews(usage);
    views.upsert(node('a', 'True'));
    const view = views.list()[0];
    const pod: k8s.V1Pod = {
      metadata: { name: 'p', namespace: 'ns' },
      spec: { containers: [{ name: 'c', resources: { requests: { cpu: '500m', memory: '1Gi' } } }] },
    };
    usage.assume(pod, 'a');
    expect(view.requested).toEqual({ milliCpu: 500, memory: 2 ** 30, pods: 1 });
    usage.unassume('ns/p');
    expect(view.requested).toEqual({ milliCpu: 0, memory: 0, pods: 0 });
  });
});
