// FencePolicies from palisade.yaml (the chart's fencing.policies), on the embedded cluster and
// (PALISADE_CLUSTER=real, as the chart's ServiceAccount) on kube-apiserver: the leader creates a
// policy the file defines, brings an existing one's spec to the file's in its next term while
// keeping the pause a person set, takes over one of the same name made with kubectl, and leaves
// every other policy alone.
import * as k8s from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GROUP, POLICY_PLURAL, VERSION } from '../../../lib/fencing/types.js';
import { eventually } from '../../../sim/apiserver/test/harness.js';
import { startScenario } from '../../../sim/test/clusterHarness.js';
import { captureLogs } from '../../test/logCapture.js';
import { palisadeKc } from '../../test/identity.js';
import { ControllerRuntime } from '../../runtime/runtime.js';
import { ConfigPolicies, type ConfigPolicySpecs, FROM_CONFIG_ANNOTATION } from '../configPolicies.js';
import { TEST_CONFIG_POLICIES } from '../../rbac/chart.js';
import { TEST_ELECTION } from './fencingHarness.js';

type Policy = k8s.KubernetesObject & { spec: Record<string, unknown> };

const [CREATED, TAKEN_OVER] = TEST_CONFIG_POLICIES;
const power = (extra: Record<string, unknown> = {}) => ({ agent: { type: 'power' }, ...extra });

let cluster: Awaited<ReturnType<typeof startScenario>>;
let kc: k8s.KubeConfig;
let custom: k8s.CustomObjectsApi;
let term: { runtime: ControllerRuntime; loop: ConfigPolicies } | undefined;

const ref = (name: string) => ({ group: GROUP, version: VERSION, plural: POLICY_PLURAL, name });
const read = (name: string) => custom.getClusterCustomObject(ref(name)) as Promise<Policy>;

/** one console leading with this palisade.yaml (a change of the file rolls the pods: a new term) */
async function lead(policies: ConfigPolicySpecs) {
  if (term) await term.runtime.stop();
  const logs = captureLogs();
  const runtime = new ControllerRuntime({ election: TEST_ELECTION, logger: logs.logger });
  const loop = new ConfigPolicies({ kc, policies, logger: logs.logger });
  runtime.manager({ id: 'test', kc }).add(loop.loop);
  term = { runtime, loop };
}

beforeAll(async () => {
  cluster = await startScenario(`
name: config-policies
nodes:
  zones: [{ name: zone-a, racks: [{ name: a1, count: 1 }] }]
`);
  kc = await palisadeKc(cluster.kc);
  custom = cluster.kc.makeApiClient(k8s.CustomObjectsApi);
}, 120_000);
afterAll(async () => {
  await term?.runtime.stop();
  await cluster?.stop();
});

describe('FencePolicies from palisade.yaml', () => {
  it('creates a policy the file defines, as written, marked as the file’s', async () => {
    await lead({ [CREATED]: power({ approval: 'Manual', paused: true }) });
    const p = await eventually(() => read(CREATED).catch(() => undefined), 'the policy created', 30_000);
    expect(p.spec).toMatchObject({ agent: { type: 'power' }, approval: 'Manual', paused: true });
    expect(p.metadata?.annotations?.[FROM_CONFIG_ANNOTATION]).toBe('palisade.yaml');
  });

  it("brings the spec to the file's in the next term, keeping the pause a person set", async () => {
    // a person resumes it from the console (merge patch of spec.paused)
    await custom.patchClusterCustomObject(
      { ...ref(CREATED), body: { spec: { paused: false } } },
      k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
    );
    // the file changes: Automatic now, and still paused: true in it
    await lead({ [CREATED]: power({ approval: 'Automatic', warningWindow: '30s', paused: true }) });
    const p = await eventually(
      async () => {
        const x = await read(CREATED);
        return x.spec.warningWindow === '30s' && x;
      },
      'the spec updated',
      30_000,
    );
    expect(p.spec).toMatchObject({ approval: 'Automatic', warningWindow: '30s', paused: false });
  });

  it('takes over a policy of the same name made with kubectl, and leaves the others alone', async () => {
    for (const name of [TAKEN_OVER, 'someone-elses'])
      await custom.createClusterCustomObject({
        group: GROUP,
        version: VERSION,
        plural: POLICY_PLURAL,
        body: {
          apiVersion: `${GROUP}/${VERSION}`,
          kind: 'FencePolicy',
          metadata: { name },
          spec: power({ approval: 'Automatic', paused: true }),
        },
      });
    await lead({ [CREATED]: power({ paused: true }), [TAKEN_OVER]: power({ approval: 'Manual' }) });
    const p = await eventually(
      async () => {
        const x = await read(TAKEN_OVER);
        return x.metadata?.annotations?.[FROM_CONFIG_ANNOTATION] === 'palisade.yaml' && x;
      },
      'the policy taken over',
      30_000,
    );
    expect(p.spec).toMatchObject({ approval: 'Manual', paused: true });
    const other = await read('someone-elses');
    expect(other.metadata?.annotations?.[FROM_CONFIG_ANNOTATION]).toBeUndefined();
    expect(other.spec.approval).toBe('Automatic');
  });
});
