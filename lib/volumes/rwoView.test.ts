import { describe, expect, it } from 'vitest';
import type { NodeView, PodView } from '../console/protocol.js';
import type { VolumeView } from '../console/views.js';
import {
  attachFailure,
  buildRwoRows,
  type AttachmentInput,
  type EventInput,
  type RwoInput,
  type RwoRow,
  writerCandidateNodes,
} from './rwoView.js';

const NOW = Date.parse('2026-11-24T12:00:00Z');
const ago = (s: number) => NOW - s * 1000;
const SIX_MIN = 6 * 60_000;
const OOS = { key: 'node.kubernetes.io/out-of-service', value: 'nodeshutdown', effect: 'NoExecute' };
const MULTI = `Multi-Attach error for volume "pv-1" Volume is already exclusively attached to one node and can't be attached to another`;

function node(name: string, ready: NodeView['ready'] = 'Ready', extra: Partial<NodeView> = {}): NodeView {
  return {
    name,
    zone: 'z',
    rack: 'r',
    ready,
    lastHeartbeat: ready === 'Ready' ? ago(1) : ago(120),
    unschedulable: false,
    taints: [],
    conditions: [],
    capacity: {},
    resourceVersion: '1',
    ...extra,
  };
}

function pod(name: string, nodeName: string | undefined, extra: Partial<PodView> = {}): PodView {
  return {
    uid: `uid-${name}-${nodeName}`,
    namespace: 'shop',
    name,
    state: 'Ready',
    phase: 'Running',
    ready: true,
    claims: ['data-web-0'],
    createdAt: ago(600),
    resourceVersion: '1',
    ...(nodeName ? { node: nodeName } : {}),
    ...extra,
  };
}

const pending = (name: string, n: string, extra: Partial<PodView> = {}) =>
  pod(name, n, { state: 'Pending', phase: 'Pending', ready: false, createdAt: ago(50), ...extra });
const terminating = (name: string, n: string) =>
  pod(name, n, { state: 'Terminating', deletionTimestamp: ago(100), deletionGracePeriodSeconds: 30 });

const pv = (extra: Partial<VolumeView> = {}): VolumeView => ({
  name: 'pv-1',
  phase: 'Bound',
  accessModes: ['ReadWriteOnce'],
  boundTo: 'shop/data-web-0',
  storageClass: 'san-rwo',
  ...extra,
});
const pvc: VolumeView = {
  name: 'data-web-0',
  namespace: 'shop',
  phase: 'Bound',
  accessModes: ['ReadWriteOnce'],
  boundTo: 'pv-1',
};
const va = (n: string, extra: Partial<AttachmentInput> = {}): AttachmentInput => ({
  name: `csi-${n}`,
  pv: 'pv-1',
  node: n,
  attached: true,
  ...extra,
});
const multiAttach = (p: PodView, extra: Partial<EventInput> = {}): EventInput => ({
  involved: { kind: 'Pod', namespace: p.namespace, name: p.name, uid: p.uid },
  reason: 'FailedAttachVolume',
  message: MULTI,
  count: 1,
  lastSeen: ago(40),
  ...extra,
});

function input(extra: Partial<RwoInput>): RwoInput {
  return {
    now: NOW,
    pvs: [pv()],
    pvcs: [pvc],
    attachments: [],
    pods: [],
    nodes: [node('n1'), node('n2')],
    events: [],
    forceDetach: { enabled: true, maxWaitMs: SIX_MIN },
    ...extra,
  };
}

const only = (i: Partial<RwoInput>): RwoRow => {
  const rows = buildRwoRows(input(i));
  expect(rows).toHaveLength(1);
  return rows[0];
};

// the seed 000 story: web-0 ran on n1; n1 is partitioned (Ready Unknown)
const partitioned = [node('n1', 'Unknown'), node('n2')];
const replacement = pending('web-0', 'n2');

describe('attachFailure', () => {
  it.each([
    [MULTI, { pv: 'pv-1', multiAttach: true }],
    [
      'Multi-Attach error for volume "pvc-9" Volume is already used by pod(s) web-0',
      { pv: 'pvc-9', multiAttach: true },
    ],
    ['AttachVolume.Attach failed for volume "pv-2" : rpc error: timeout', { pv: 'pv-2', multiAttach: false }],
    ['something else', { pv: undefined, multiAttach: false }],
  ])('%s', (message, want) => {
    expect(attachFailure(message)).toEqual(want);
  });
});

describe('buildRwoRows', () => {
  it.each<{ name: string; in: Partial<RwoInput>; risk: RwoRow['risk']; explanation: RegExp }>([
    {
      name: 'attached where its pod runs: ok',
      in: { attachments: [va('n1')], pods: [pod('web-0', 'n1')] },
      risk: 'ok',
      explanation: /^attached to n1, used by shop\/web-0$/,
    },
    {
      name: 'a new pod waits while the old one terminates on a Ready node: waiting',
      in: {
        attachments: [va('n1')],
        pods: [terminating('web-old', 'n1'), replacement],
        events: [multiAttach(replacement)],
      },
      risk: 'waiting',
      explanation: /^shop\/web-0 waits on n2: attached to n1 \(ready\), still used there by shop\/web-old$/,
    },
    {
      name: 'attached to a partitioned node while the replacement waits: split-brain risk',
      in: {
        nodes: partitioned,
        attachments: [va('n1')],
        pods: [replacement],
        events: [multiAttach(replacement)],
      },
      risk: 'split-brain-risk',
      explanation:
        /^attached to suspect n1 \(unknown\) while shop\/web-0 waits on n2: releasing it before n1 is fenced/,
    },
    {
      name: 'the same once n1 is tainted out-of-service: being released',
      in: {
        nodes: [node('n1', 'Unknown', { taints: [OOS] }), node('n2')],
        attachments: [va('n1')],
        pods: [replacement],
        events: [multiAttach(replacement)],
      },
      risk: 'waiting',
      explanation: /n1 is fenced or out of service: being released$/,
    },
    {
      name: 'the same once Palisade fenced n1 (before the taint)',
      in: {
        nodes: partitioned,
        fencedNodes: new Set(['n1']),
        attachments: [va('n1')],
        pods: [replacement],
        events: [multiAttach(replacement)],
      },
      risk: 'waiting',
      explanation: /n1 is fenced or out of service/,
    },
    {
      name: 'its pod Terminating on the partitioned node, nobody waits: stuck',
      in: { nodes: partitioned, attachments: [va('n1')], pods: [terminating('web-0', 'n1')] },
      risk: 'stuck',
      explanation: /^held by n1 \(unknown\): shop\/web-0 Terminating there and cannot finish/,
    },
    {
      name: 'no pod left on the partitioned node: stuck',
      in: { nodes: partitioned, attachments: [va('n1')] },
      risk: 'stuck',
      explanation: /^held by n1 \(unknown\) with no pod left there/,
    },
    {
      name: 'a detach that does not finish on a Ready node: stuck',
      in: { attachments: [va('n1', { deletionTimestamp: ago(300) })] },
      risk: 'stuck',
      explanation: /^detach pending for 5m00s/,
    },
    {
      name: 'an attach error: waiting',
      in: {
        attachments: [va('n2', { attached: false, error: 'rpc error: no route to storage' })],
        pods: [replacement],
      },
      risk: 'waiting',
      explanation: /^shop\/web-0 waits on n2: attach failing: rpc error: no route to storage$/,
    },
    {
      name: 'a pod being attached normally: ok',
      in: { attachments: [va('n2', { attached: false })], pods: [replacement] },
      risk: 'ok',
      explanation: /^attaching for shop\/web-0 on n2$/,
    },
    {
      name: 'not bound: ok',
      in: { pvs: [pv({ boundTo: undefined, phase: 'Available' })] },
      risk: 'ok',
      explanation: /^not bound to a claim$/,
    },
    {
      name: 'ReadWriteMany on two nodes: no Multi-Attach',
      in: {
        pvs: [pv({ accessModes: ['ReadWriteMany'] })],
        attachments: [va('n1'), va('n2')],
        pods: [pod('a', 'n1'), pod('b', 'n2')],
      },
      risk: 'ok',
      explanation: /^attached to n1, n2, used by shop\/a, shop\/b$/,
    },
  ])('$name', (t) => {
    const row = only(t.in);
    expect(row.risk).toBe(t.risk);
    expect(row.explanation).toMatch(t.explanation);
  });

  it('names the claim, the attached node, users and waiters with their nodes and health', () => {
    const row = only({
      nodes: partitioned,
      attachments: [va('n1')],
      pods: [replacement],
      events: [multiAttach(replacement)],
    });
    expect(row).toMatchObject({
      pv: 'pv-1',
      claim: { namespace: 'shop', name: 'data-web-0' },
      exclusive: true,
      attachedTo: ['n1'],
      users: [],
      waiters: [
        {
          name: 'web-0',
          node: 'n2',
          nodeHealth: 'ready',
          reason: 'multi-attach',
          terminating: false,
          since: ago(40),
          sinceFrom: 'event',
          blockedBy: ['n1'],
          message: MULTI,
        },
      ],
    });
    expect(row.attachments[0]).toMatchObject({ node: 'n1', nodeHealth: 'unknown', attached: true });
    expect(row.attachments[0].detachHint.safe).toBe(false);
  });

  it('a waiter evicted from a node that went unreachable still waits, but keeps nothing waiting', () => {
    const evicted = pending('db-0', 'n2', { state: 'Terminating', deletionTimestamp: ago(5) });
    const row = only({
      nodes: [node('n1', 'Unknown'), node('n2', 'Unknown')],
      attachments: [va('n1')],
      pods: [evicted],
    });
    expect(row.users).toEqual([]);
    expect(row.waiters).toMatchObject([{ name: 'db-0', terminating: true, reason: 'multi-attach' }]);
    expect(row.risk).toBe('stuck');
  });

  it('a pod Pending on another node waits even before its Multi-Attach event', () => {
    const row = only({ attachments: [va('n1')], pods: [replacement] });
    expect(row.waiters[0]).toMatchObject({
      reason: 'multi-attach',
      since: ago(50),
      sinceFrom: 'pod-created',
    });
  });

  it.each([
    ['the first timestamp when known', { count: 5, firstSeen: ago(90), lastSeen: ago(2) }, ago(90), 'event'],
    ['the last timestamp of an event seen once', { count: 1, lastSeen: ago(30) }, ago(30), 'event'],
    [
      'the pod creation for a repeated event without a first timestamp',
      { count: 5, lastSeen: ago(2) },
      ago(50),
      'pod-created',
    ],
  ])('dates the wait from %s', (_what, ev, since, from) => {
    const row = only({
      attachments: [va('n1')],
      pods: [replacement],
      events: [multiAttach(replacement, ev)],
    });
    expect(row.waiters[0]).toMatchObject({ since, sinceFrom: from });
  });

  it('ignores events of another volume and of an earlier pod with the same name', () => {
    const other = multiAttach(replacement, { message: MULTI.replace('pv-1', 'pv-2'), firstSeen: ago(500) });
    const earlier = multiAttach(replacement, {
      involved: { ...multiAttach(replacement).involved, uid: 'old-uid' },
      firstSeen: ago(900),
    });
    const row = only({ attachments: [va('n1')], pods: [replacement], events: [other, earlier] });
    expect(row.waiters[0]).toMatchObject({ since: ago(50), sinceFrom: 'pod-created' });
  });

  it('ignores pods of a claim now bound to another volume', () => {
    const row = only({ pvcs: [{ ...pvc, boundTo: 'pv-other' }], pods: [pod('web-0', 'n1')] });
    expect(row.users).toEqual([]);
  });

  it('sorts the riskiest first', () => {
    const rows = buildRwoRows(
      input({
        pvs: [pv({ name: 'a-ok', boundTo: undefined }), pv({ name: 'pv-1' })],
        nodes: partitioned,
        attachments: [va('n1')],
        pods: [replacement],
      }),
    );
    expect(rows.map((r) => [r.pv, r.risk])).toEqual([
      ['pv-1', 'split-brain-risk'],
      ['a-ok', 'ok'],
    ]);
  });
});

describe('force-detach countdown', () => {
  const departed = { namespace: 'shop', name: 'web-0', uid: 'old', node: 'n1', claims: ['data-web-0'] };
  const fd = (i: Partial<RwoInput>) => only({ attachments: [va('n1')], ...i }).attachments[0].forceDetach;

  it.each<{ name: string; in: Partial<RwoInput>; want: object }>([
    {
      name: 'counts maxWaitForUnmountDuration from when the pod left the API, the node not Ready',
      in: { nodes: partitioned, departed: [{ ...departed, at: ago(60) }] },
      want: { state: 'counting', since: ago(60), deadline: ago(60) + SIX_MIN },
    },
    {
      name: 'the last pod to leave starts the wait',
      in: {
        nodes: partitioned,
        departed: [
          { ...departed, at: ago(200) },
          { ...departed, uid: 'b', at: ago(60) },
        ],
      },
      want: { state: 'counting', since: ago(60) },
    },
    {
      name: 'due once the wait has passed',
      in: { nodes: partitioned, departed: [{ ...departed, at: ago(400) }] },
      want: { state: 'due', deadline: ago(400) + SIX_MIN },
    },
    {
      name: 'a scaled wait (embedded cluster)',
      in: {
        nodes: partitioned,
        departed: [{ ...departed, at: ago(3) }],
        forceDetach: { enabled: true, maxWaitMs: 4_000 },
      },
      want: { state: 'counting', deadline: ago(3) + 4_000, text: expect.stringContaining('4s') },
    },
    {
      name: 'unknown start when the pod left before the console watched',
      in: { nodes: partitioned },
      want: { state: 'unknown-start', maxWaitMs: SIX_MIN },
    },
    {
      name: 'no countdown while the pod is still in the API, Terminating on the node',
      in: { nodes: partitioned, pods: [terminating('web-0', 'n1')] },
      want: { state: 'blocked', pods: ['shop/web-0'] },
    },
    {
      name: 'immediate with the out-of-service taint',
      in: { nodes: [node('n1', 'Unknown', { taints: [OOS] }), node('n2')] },
      want: { state: 'immediate' },
    },
    {
      name: 'none with --disable-force-detach-on-timeout',
      in: { nodes: partitioned, forceDetach: { enabled: false, maxWaitMs: SIX_MIN } },
      want: { state: 'disabled' },
    },
    {
      name: 'not applicable on a Ready node (it unmounts and detaches normally)',
      in: { departed: [{ ...departed, at: ago(60) }] },
      want: { state: 'not-applicable' },
    },
    {
      name: 'not applicable once the node object is gone',
      in: { nodes: [node('n2')] },
      want: { state: 'not-applicable', text: expect.stringContaining('node object is gone') },
    },
  ])('$name', (t) => {
    expect(fd(t.in)).toMatchObject(t.want);
  });
});

describe('detach hint', () => {
  const hint = (i: Partial<RwoInput>) => only({ attachments: [va('n1')], ...i }).attachments[0].detachHint;
  it.each<[string, Partial<RwoInput>, boolean, RegExp]>([
    ['a pod still uses it there', { pods: [pod('web-0', 'n1')] }, false, /shop\/web-0 still use it on n1/],
    ['no pod, node Ready', {}, true, /no pod uses it on n1, which is ready/],
    ['no pod, node unreachable', { nodes: partitioned }, false, /may still write until it is fenced/],
    ['node fenced', { nodes: partitioned, fencedNodes: new Set(['n1']) }, true, /n1 is fenced/],
    ['out-of-service', { nodes: [node('n1', 'Unknown', { taints: [OOS] })] }, true, /out-of-service/],
  ])('%s', (_n, i, safe, why) => {
    const h = hint(i);
    expect(h.safe).toBe(safe);
    expect(h.why).toMatch(why);
  });
});

describe('ground truth writers', () => {
  const proc = (n: string, uid: string) => ({
    node: n,
    namespace: 'shop',
    podName: 'web-0',
    podUid: uid,
    volumes: ['pv-1'],
  });

  it('an old process still writing next to the replacement: split-brain', () => {
    const running = pod('web-0', 'n2');
    const row = only({
      nodes: partitioned,
      attachments: [va('n2')],
      pods: [running],
      truth: { processes: [proc('n1', 'gone-uid'), proc('n2', running.uid)], fenced: {} },
    });
    expect(row.risk).toBe('split-brain-risk');
    expect(row.explanation).toBe('ground truth: written from 2 nodes at once (n1, n2)');
    expect(row.writers).toEqual([
      { node: 'n1', pod: 'shop/web-0', podUid: 'gone-uid', canWrite: true, api: 'gone' },
      { node: 'n2', pod: 'shop/web-0', podUid: running.uid, canWrite: true, api: 'user' },
    ]);
  });

  it('a storage-fenced node cannot write: no split-brain', () => {
    const running = pod('web-0', 'n2');
    const row = only({
      nodes: partitioned,
      attachments: [va('n2')],
      pods: [running],
      truth: { processes: [proc('n1', 'gone-uid'), proc('n2', running.uid)], fenced: { n1: ['*'] } },
    });
    expect(row.risk).toBe('ok');
    expect(row.writers?.map((w) => [w.node, w.canWrite])).toEqual([
      ['n1', false],
      ['n2', true],
    ]);
  });

  it('a writer on a node that no longer holds the attachment: split-brain risk', () => {
    const row = only({ nodes: partitioned, truth: { processes: [proc('n1', 'gone-uid')], fenced: {} } });
    expect(row.risk).toBe('split-brain-risk');
    expect(row.explanation).toMatch(/shop\/web-0 still writes from n1, which no longer holds the attachment/);
  });

  it('no ground truth: no writers field', () => {
    expect(only({ attachments: [va('n1')] }).writers).toBeUndefined();
  });

  it('reads ground truth only on the nodes that matter', () => {
    expect(
      writerCandidateNodes({
        attachments: [va('n1')],
        pods: [pod('web-0', 'n2'), pod('x', 'n3', { claims: [] })],
        departed: [{ namespace: 'shop', name: 'w', uid: 'u', node: 'n4', claims: ['c'], at: 0 }],
      }).sort(),
    ).toEqual(['n1', 'n2', 'n4']);
  });
});
