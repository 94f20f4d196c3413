// The leader killed mid-fence: three Palisade processes on one cluster (the embedded one, or
// kube-apiserver with PALISADE_CLUSTER=real), default leader election (15 s / 10 s / 2 s). A
// partitioned node is fenced with the real fence_ipmilan over IPMI (ipmi_sim BMCs); the moment
// the leader's agent starts, the leader is SIGKILLed. A follower must take the Lease within
// leaseDuration + retryPeriod (one more leaseTransition: the next epoch), resume the NodeFence
// where the dead leader left it (its attempt Interrupted, then verified by a status query) and
// finish it — the node fenced, the replacement pod running — with the agent run at most once per
// attempt: every fence_ipmilan run is counted by a wrapper on the replicas' PATH.
import { mkdtempSync, rmSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as k8s from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  FENCE_PLURAL,
  GROUP,
  type NodeFence,
  parseNodeFence,
  POLICY_PLURAL,
  VERSION,
} from '../../lib/fencing/types.js';
import { eventually } from '../../sim/apiserver/test/harness.js';
import { installBmcSecret, ipmiAgent } from '../../sim/fencing/demoPolicy.js';
import { type Bmcs, missingIpmiTools, startBmcs } from '../../sim/infra/ipmi/bmcs.js';
import { startScenario } from '../../sim/test/clusterHarness.js';
import { haproxyAvailable } from '../../testenv/ha/haproxy.js';
import { fencingScenario, quickPolicy } from '../fencing/test/fencingHarness.js';
import { DEFAULT_LEADER_ELECTION } from '../runtime/manager.js';
import { type AgentRuns, recordAgentRuns } from '../test/agentRuns.js';
import { type Replicas, startReplicas } from '../test/replicas.js';

const LEASE = DEFAULT_LEADER_ELECTION;
/** a follower sees the Lease expire leaseDuration after the last renewal it saw, within one retry */
const TAKEOVER_BOUND_MS = LEASE.leaseDurationSeconds * 1000 + LEASE.retryPeriodMs + 3_000;

const missing = [...missingIpmiTools(), ...(haproxyAvailable() ? [] : ['haproxy'])];
const dir = mkdtempSync(join(tmpdir(), 'palisade-ha-fence-'));
let cluster: Awaited<ReturnType<typeof startScenario>>;
let bmcs: Bmcs | undefined;
let agent: AgentRuns;
let set: Replicas | undefined;

const lease = () =>
  cluster.kc
    .makeApiClient(k8s.CoordinationV1Api)
    .readNamespacedLease({ namespace: LEASE.namespace, name: LEASE.name });

async function fence(node: string): Promise<NodeFence | undefined> {
  const o = await cluster.kc
    .makeApiClient(k8s.CustomObjectsApi)
    .getClusterCustomObject({ group: GROUP, version: VERSION, plural: FENCE_PLURAL, name: node })
    .catch((e) => {
      if ((e as { code?: number }).code === 404) return undefined;
      throw e;
    });
  if (!o) return undefined;
  const p = parseNodeFence(o);
  if (!p.ok) throw new Error(p.error);
  return p.value;
}

async function dbPod(notOn?: string) {
  return eventually(
    async () => {
      const p = await cluster.core
        .readNamespacedPod({ name: 'db-0', namespace: 'shop' })
        .catch(() => undefined);
      const ready = p?.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True');
      return ready && !p?.metadata?.deletionTimestamp && p?.spec?.nodeName !== notOn ? p : undefined;
    },
    `db-0 running${notOn ? ` off ${notOn}` : ''}`,
    120_000,
  );
}

/** On failure: where the fence is and what each replica said last. */
async function explain(node: string, e: unknown): Promise<never> {
  const f = await fence(node).catch(() => undefined);
  const where = f
    ? `${f.status.phase} (${f.status.message}); attempts ${JSON.stringify(f.status.attempts)}`
    : 'none';
  const tails = (set?.replicas ?? []).map(
    (r) => `--- replica ${r.index} (pid ${r.child.pid}):\n${r.output().split('\n').slice(-15).join('\n')}`,
  );
  throw new Error(`${(e as Error).message}\nNodeFence: ${where}\n${tails.join('\n')}`);
}

describe.skipIf(missing.length > 0)(
  `the leader killed mid-fence${missing.length ? ` (skipped: ${missing.join(', ')} missing)` : ''}`,
  { timeout: 300_000 },
  () => {
    beforeAll(async () => {
      cluster = await startScenario(fencingScenario());
      bmcs = await startBmcs(cluster.infra, {
        infraUrl: cluster.infraApi.url,
        infraToken: cluster.infraApi.token,
      });
      await installBmcSecret(cluster.kc, bmcs);
      agent = await recordAgentRuns(dir);
      const kubeconfig = join(dir, 'kubeconfig');
      await writeFile(kubeconfig, cluster.kc.exportConfig());
      set = await startReplicas({
        kubeconfig,
        n: 3,
        env: { PATH: `${agent.binDir}:${process.env.PATH ?? ''}` },
      });
    }, 300_000);

    afterAll(async () => {
      await set?.stop();
      await bmcs?.stop();
      await cluster?.stop();
      rmSync(dir, { recursive: true, force: true });
    });

    it('a follower takes the Lease, resumes the fence and finishes it; the agent ran once per attempt', async () => {
      const s = set!;
      // one replica leads: the Lease names it
      const leader = await eventually(
        async () => s.byIdentity((await lease()).spec?.holderIdentity),
        'a replica holding the controller Lease',
        60_000,
      );
      const before = await lease();
      const epoch = before.spec?.leaseTransitions ?? 0;

      await cluster.kc.makeApiClient(k8s.CustomObjectsApi).createClusterCustomObject({
        group: GROUP,
        version: VERSION,
        plural: POLICY_PLURAL,
        body: {
          apiVersion: `${GROUP}/${VERSION}`,
          kind: 'FencePolicy',
          metadata: { name: 'ipmi' },
          spec: quickPolicy(ipmiAgent(bmcs!), { timeout: '30s' }),
        },
      });
      const pod = await dbPod();
      const node = pod.spec!.nodeName!;
      cluster.infra.partition(node);

      // the leader's fence_ipmilan has started: kill the leader now, mid-fence
      const started = await eventually(
        async () => (await agent.actions())[0],
        "the leader's fence agent started",
        90_000,
      ).catch((e) => explain(node, e));
      leader.signal('SIGKILL');
      const killedAt = Date.now();
      await leader.exited;
      const atKill = await fence(node);
      console.log(
        `killed replica ${leader.index} (pid ${leader.child.pid}) ${killedAt - started.at} ms after its agent started; NodeFence ${atKill?.status.phase}, attempts ${JSON.stringify(atKill?.status.attempts.map((a) => a.result))}`,
      );
      expect(atKill?.status.phase).toBe('Fencing');

      // a follower holds the Lease within leaseDuration + retryPeriod: the next epoch
      const successor = await eventually(
        async () => {
          const r = s.byIdentity((await lease()).spec?.holderIdentity);
          return r && r !== leader ? r : undefined;
        },
        'a follower holding the controller Lease',
        60_000,
      ).catch((e) => explain(node, e));
      const tookOverMs = Date.now() - killedAt;
      const after = await lease();
      console.log(
        `replica ${successor.index} (pid ${successor.child.pid}) took over ${tookOverMs} ms after the kill; leaseTransitions ${epoch} -> ${after.spec?.leaseTransitions}`,
      );
      expect(tookOverMs).toBeLessThanOrEqual(TAKEOVER_BOUND_MS);
      expect(after.spec?.leaseTransitions).toBe(epoch + 1);

      // it resumes the fence and finishes it
      const released = await eventually(
        async () => {
          const f = await fence(node);
          return f && ['Released', 'Failed'].includes(f.status.phase) ? f : undefined;
        },
        `NodeFence ${node} Released`,
        120_000,
      ).catch((e) => explain(node, e));
      const fencedIn = Date.now() - killedAt;
      expect(released.status.phase).toBe('Released');
      expect(cluster.infra.bmcStatus(node)).toBe('off');
      const attempts = released.status.attempts;
      const actions = await agent.actions();
      console.log(
        `released ${fencedIn} ms after the kill; attempts ${JSON.stringify(attempts.map((a) => ({ n: a.number, result: a.result, verified: a.verification?.state })))}; fence_ipmilan --action=off runs: ${actions.length}`,
      );
      // the dead leader's attempt is not run again: Interrupted, then believed only once the
      // status query confirmed the power off (its orphaned fence_ipmilan, in a process group of
      // its own, finishes the power off after the leader dies)
      expect(attempts[0].result).toBe('Interrupted');
      expect(attempts.find((a) => a.verification?.confirmed)?.verification?.state).toBe('power off');
      // a second attempt only if the status query could not confirm the first
      if (attempts.length > 1) expect(attempts[0].verification?.confirmed).toBe(false);
      // at most once per attempt: every agent run that acts belongs to one recorded attempt
      expect(actions.length).toBeGreaterThanOrEqual(1);
      expect(actions.length).toBeLessThanOrEqual(attempts.length);

      // the replacement runs on another node; nothing ran twice in the ground truth
      const replacement = await dbPod(node);
      expect(replacement.metadata?.uid).not.toBe(pod.metadata?.uid);
      expect(cluster.checker.list()).toEqual([]);
      // the survivors are still running; the dead one named nowhere
      expect(s.replicas.filter((r) => r.child.exitCode === null && r.child.signalCode === null)).toHaveLength(
        2,
      );
    });
  },
);
