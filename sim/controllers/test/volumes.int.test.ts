// Attach/detach controller and simulated CSI attacher against the embedded API server.
// The tests play scheduler and kubelet: pods get spec.nodeName directly, and node
// readiness and node.status.volumesInUse are written by the test.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, onRealControlPlane } from '../../apiserver/test/harness.js';
import { TAINT_OUT_OF_SERVICE, attachmentName } from '../runtime/conventions.js';
import {
  NS,
  type VolumesEnv,
  addClaim,
  addNode,
  addPod,
  addStorageClass,
  attachedTo,
  attachments,
  boundVolume,
  detached,
  eventsFor,
  removePod,
  setReady,
  setRunning,
  setVolumesInUse,
  startVolumes,
  taint,
} from './volumesHarness.js';

const TIMEOUT = 2000; // forceDetachTimeoutMs in these tests

/** A claim, its volume and a pod using it on `node`, attached and mounted there. */
async function mounted(env: VolumesEnv, id: string, node: string) {
  await addNode(env, node);
  await addClaim(env, `data-${id}`, { storageClassName: 'rwo' });
  const pv = await boundVolume(env, `data-${id}`);
  await addPod(env, `pod-${id}`, node, [`data-${id}`]);
  await setRunning(env, `pod-${id}`);
  await attachedTo(env, pv, node);
  await setVolumesInUse(env, node, [pv]);
  return pv;
}

/**
 * The controller decided again about pv on node (a new verdict object). The real
 * attach/detach controller shows no verdicts: there, wait long enough for its reconciler
 * (every 100 ms) to have acted, and return no verdict.
 */
const redecided = async (env: VolumesEnv, pv: string, node: string, before: unknown) => {
  if (onRealControlPlane) {
    const since = Date.now();
    await eventually(() => Date.now() > since + REAL_RECONCILE_MS, 'the reconciler to act');
    return undefined;
  }
  return eventually(() => {
    const v = env.adc.detachVerdict(pv, node);
    return v !== before && v;
  }, `a new detach decision for ${pv} on ${node}`);
};
const REAL_RECONCILE_MS = 2_000;
/** the simulated controller's verdict, where there is one to look at */
const verdictOf = (env: VolumesEnv, pv: string, node: string) =>
  onRealControlPlane ? undefined : env.adc.detachVerdict(pv, node);

describe('attach and detach', () => {
  let env: VolumesEnv;
  beforeAll(async () => {
    env = await startVolumes({ forceDetachTimeoutMs: TIMEOUT, attachDelayMs: 100 });
    await addStorageClass(env, 'rwo');
  });
  afterAll(() => env?.stop());

  it('attaches a pod volume to its node and reports it in volumesAttached', async () => {
    await addNode(env, 'n1');
    await addClaim(env, 'data-a', { storageClassName: 'rwo' });
    const pv = await boundVolume(env, 'data-a');
    await addPod(env, 'pod-a', 'n1', ['data-a']);
    await attachedTo(env, pv, 'n1');
    const [va] = await attachments(env, pv);
    expect(va.metadata?.name).toBe(attachmentName(pv, 'n1'));
    expect(va.spec).toMatchObject({
      attacher: 'sim.palisade.dev',
      nodeName: 'n1',
      source: { persistentVolumeName: pv },
    });
    const n1 = await env.core.readNode({ name: 'n1' });
    expect(n1.status?.volumesAttached).toEqual([
      { name: `kubernetes.io/csi/sim.palisade.dev^${pv}`, devicePath: '' },
    ]);
    const ok = await eventually(() =>
      eventsFor(env, 'Pod', 'pod-a', 'SuccessfulAttachVolume').then((e) => e[0]),
    );
    // kube-controller-manager's message ends with a space (an empty detail after it)
    expect(ok.message).toBe(`AttachVolume.Attach succeeded for volume "${pv}" `);
  });

  it('refuses a second node while the first holds an RWO volume, then moves it once detach is safe', async () => {
    const pv = await boundVolume(env, 'data-a');
    await setVolumesInUse(env, 'n1', [pv]);
    await addNode(env, 'n2');
    await addPod(env, 'pod-b', 'n2', ['data-a']);
    const used = await eventually(() =>
      eventsFor(env, 'Pod', 'pod-b', 'FailedAttachVolume').then((e) => e[0]),
    );
    expect(used.type).toBe('Warning');
    expect(used.involvedObject.namespace).toBe(NS);
    const message = `Multi-Attach error for volume "${pv}" Volume is already used by pod(s) pod-a`;
    expect(used.message).toBe(message);

    // the pod object is gone, but the kubelet on n1 still has the volume mounted
    const before = verdictOf(env, pv, 'n1');
    await removePod(env, 'pod-a');
    const verdict = await redecided(env, pv, 'n1', before);
    if (!onRealControlPlane) expect(verdict).toMatchObject({ detach: false, kind: 'mounted' });
    expect((await attachments(env, pv)).map((va) => va.spec.nodeName)).toEqual(['n1']);
    // reported once for the volume and node pod-b waits for, not again as the blocker changes
    const events = await eventsFor(env, 'Pod', 'pod-b', 'FailedAttachVolume');
    expect(events.map((e) => [e.message, e.count ?? 1])).toEqual([[message, 1]]);

    // the kubelet unmounts: detach from n1, attach to n2
    await setVolumesInUse(env, 'n1', []);
    await attachedTo(env, pv, 'n2');
    expect((await attachments(env, pv)).map((va) => va.spec.nodeName)).toEqual(['n2']);
    const n1 = await env.core.readNode({ name: 'n1' });
    expect(n1.status?.volumesAttached ?? []).toEqual([]);
  });

  it('attaches a ReadWriteMany volume to several nodes without a Multi-Attach error', async () => {
    await addNode(env, 'n3');
    await addNode(env, 'n4');
    await addClaim(env, 'shared', { storageClassName: 'rwo', modes: ['ReadWriteMany'] });
    const pv = await boundVolume(env, 'shared');
    await addPod(env, 'rwx-1', 'n3', ['shared']);
    await addPod(env, 'rwx-2', 'n4', ['shared']);
    await attachedTo(env, pv, 'n3');
    await attachedTo(env, pv, 'n4');
    expect(await eventsFor(env, 'Pod', 'rwx-2', 'FailedAttachVolume')).toEqual([]);
    expect(await eventsFor(env, 'Pod', 'rwx-1', 'FailedAttachVolume')).toEqual([]);
  });

  it('keeps the volume attached while a Terminating pod uses it, detaches once the pod is gone', async () => {
    const pv = await mounted(env, 'term', 'n5');
    await env.core.deleteNamespacedPod({ name: 'pod-term', namespace: NS }); // graceful: Terminating
    const before = verdictOf(env, pv, 'n5');
    // the kubelet unmounted, but the pod object is still there
    await setVolumesInUse(env, 'n5', []);
    const verdict = await redecided(env, pv, 'n5', before);
    if (!onRealControlPlane) expect(verdict).toMatchObject({ detach: false, kind: 'in-use-by-pod' });
    expect(await attachments(env, pv)).toHaveLength(1);

    await removePod(env, 'pod-term');
    await detached(env, pv);
  });

  // skip on real: kube-controller-manager's maxWaitForUnmountDuration is 6 minutes, no flag
  it.skipIf(onRealControlPlane)(
    'force-detaches from a NotReady node only after maxWaitForUnmountDuration',
    async () => {
      const pv = await mounted(env, 'force', 'n6');
      await setReady(env, 'n6', 'Unknown');
      const t0 = Date.now();
      await removePod(env, 'pod-force');
      const waiting = await eventually(() => {
        const v = env.adc.detachVerdict(pv, 'n6');
        return v?.kind === 'mounted' && v;
      }, 'waiting for unmount');
      expect(waiting.detach).toBe(false);
      expect(waiting.recheckInMs).toBeGreaterThan(0);

      await detached(env, pv);
      expect(Date.now() - t0).toBeGreaterThanOrEqual(TIMEOUT);
      const [forced] = await eventsFor(env, 'Node', 'n6', 'ForceDetach');
      expect(forced.type).toBe('Warning');
      expect(forced.message).toBe(
        `attacherDetacher.DetachVolume started for volume "${pv}" (UniqueName: "kubernetes.io/csi/sim.palisade.dev^${pv}") on node "n6" This volume is not safe to detach, but maxWaitForUnmountDuration 2s expired, force detaching`,
      );
    },
  );

  // skip on real: waiting past maxWaitForUnmountDuration means 6 minutes there (no flag)
  it.skipIf(onRealControlPlane)(
    'does not force-detach from a Ready node, however long it waits',
    async () => {
      const pv = await mounted(env, 'ready', 'n7');
      const t0 = Date.now();
      await removePod(env, 'pod-ready');
      await eventually(() => Date.now() - t0 > TIMEOUT + 200, 'the timeout to pass');
      const before = env.adc.detachVerdict(pv, 'n7');
      await setVolumesInUse(env, 'n7', [pv, 'unrelated']); // any node change makes it decide again
      expect(await redecided(env, pv, 'n7', before)).toMatchObject({ detach: false, kind: 'mounted' });
      expect(await attachments(env, pv)).toHaveLength(1);
      await setVolumesInUse(env, 'n7', []);
      await detached(env, pv);
    },
  );

  it('detaches at once from a node tainted out-of-service, mounted or not', async () => {
    const pv = await mounted(env, 'oos', 'n8');
    await setReady(env, 'n8', 'False');
    await taint(env, 'n8', TAINT_OUT_OF_SERVICE, 'nodeshutdown');
    const t0 = Date.now();
    await removePod(env, 'pod-oos');
    await detached(env, pv);
    expect(Date.now() - t0).toBeLessThan(TIMEOUT);
    expect(await eventsFor(env, 'Node', 'n8', 'ForceDetach')).toEqual([]);
  });
});

// skip on real: kube-controller-manager would force-detach only after its fixed 6-minute
// maxWaitForUnmountDuration, so no test-time wait tells disabled from enabled
describe.skipIf(onRealControlPlane)('with force detach disabled', () => {
  let env: VolumesEnv;
  beforeAll(async () => {
    env = await startVolumes({ forceDetachEnabled: false, forceDetachTimeoutMs: 500 });
    await addStorageClass(env, 'rwo');
  });
  afterAll(() => env?.stop());

  it('never detaches a volume a NotReady node still reports in use', async () => {
    const pv = await mounted(env, 'stuck', 'n1');
    await setReady(env, 'n1', 'Unknown');
    const t0 = Date.now();
    await removePod(env, 'pod-stuck');
    await eventually(() => Date.now() - t0 > 1500, 'three times the timeout to pass');
    const before = env.adc.detachVerdict(pv, 'n1');
    await setReady(env, 'n1', 'False');
    const verdict = await redecided(env, pv, 'n1', before);
    expect(verdict).toMatchObject({ detach: false, safe: false, kind: 'mounted' });
    expect(verdict?.recheckInMs).toBeUndefined();
    expect(await attachments(env, pv)).toHaveLength(1);
    expect(await eventsFor(env, 'Node', 'n1', 'ForceDetach')).toEqual([]);

    // the kubelet comes back and unmounts: now it goes
    await setReady(env, 'n1', 'True');
    await setVolumesInUse(env, 'n1', []);
    await detached(env, pv);
  });
});
