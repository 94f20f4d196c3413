// Issue 23, finding 1, replayed: a person bound to palisade-admin (who may pause FencePolicies)
// rewrote a policy's agent parameters with {"--use-sudo":"","--sudo-path":"/bin/sh -c '…'"} and
// the next fence ran that shell in Palisade's process. Here, on the embedded cluster and on the
// real control plane, with Palisade's webhook registered and its fencing controller running:
// the write is refused at admission naming the parameter, pausing is a verb of its own, and a
// bad policy that got past admission (written while the webhook was away) is refused again by
// the controller and never run. The agent is a stub on PATH named fence_ipmilan that records
// its argv, its stdin and its environment: nothing is recorded until the policy is valid, and
// then the BMC password arrives in its environment (IPMI_PASSWORD, for Palisade's ipmitool
// shim), neither on argv nor on stdin.
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import * as k8s from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GROUP, parseNodeFence, POLICY_PLURAL, VERSION } from '../../../lib/fencing/types.js';
import { eventually } from '../../../sim/apiserver/test/harness.js';
import { kubeConfigWithToken } from '../../auth/kubeAs.js';
import { type ClusterAndConsole, startClusterAndConsole } from '../../test/consoleHarness.js';
import { trpcClient } from '../../test/client.js';
import { FENCE_API } from '../../actions/live.js';
import { policyWebhookAway } from './policyWebhookAway.js';

const POLICY = { group: GROUP, version: VERSION, plural: POLICY_PLURAL };
const CREDENTIALS = 'palisade-system';
const PASSWORD = 'bmc-pw-7c1f9e';
const CLUSTER = 'palisade-embedded';
/** the injection as issue 23 wrote it */
const INJECTION = { '--use-sudo': '', '--sudo-path': "/bin/sh -c 'id >> /tmp/x'" };

let h: ClusterAndConsole;
let records: string;
let pwned: string;
const oldPath = process.env.PATH;

/**
 * fence_ipmilan as a stub: appends its argv, its stdin, whether IPMI_PASSWORD holds the password
 * and its environment's names to `records`,
 * answers status from a state file (OFF once an `off` ran); it never runs what it is told.
 */
function stub(dir: string) {
  return `#!/bin/bash
input=$(cat)
{ printf 'argv:%s\\n' "$*"; printf '%s\\n' "$input" | sed 's/^/stdin:/'; [ "$IPMI_PASSWORD" = '${PASSWORD}' ] && echo 'password:in IPMI_PASSWORD'; printf 'env:%s\\n' "$(env | cut -d= -f1 | sort | tr '\\n' ' ')"; echo '--'; } >> '${records}'
action=$(printf '%s\\n' "$input" | sed -n 's/^action=//p')
case $action in
  off) echo off > '${dir}/power'; echo 'Success: Powered OFF' ;;
  status) if [ "$(cat '${dir}/power' 2>/dev/null)" = off ]; then echo 'Status: OFF'; exit 2; else echo 'Status: ON'; fi ;;
esac
`;
}

const agent = (node: string, shared: Record<string, string> = {}) => ({
  type: 'exec',
  agent: 'fence_ipmilan',
  action: 'off',
  sharedParameters: { '--lanplus': '', '--username': 'admin', ...shared },
  nodeParameters: { '--ip': { [node]: '127.0.0.1' } },
  secretRefs: [{ name: 'bmc', key: 'password', parameter: '--password' }],
  credentialsNamespace: CREDENTIALS,
});

const policySpec = (node: string, a: Record<string, unknown>) => ({
  nodeSelector: { matchLabels: { 'kubernetes.io/hostname': node } },
  unhealthyConditions: [{ type: 'Ready', status: 'Unknown', duration: '1s' }],
  agent: a,
  retryCount: 2,
  retryInterval: '1s',
  timeout: '10s',
  warningWindow: '0s',
  // one node selected: the default budget (51% healthy) would hold its fence
  maxUnhealthy: 1,
});

const custom = (kc: k8s.KubeConfig) => kc.makeApiClient(k8s.CustomObjectsApi);
const asToken = (token: string) => custom(kubeConfigWithToken(h.cluster.kc, token));
const message = (e: unknown) => String((e as { body?: unknown }).body ?? (e as Error).message);
const merge = k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch);

function patchAs(api: k8s.CustomObjectsApi, name: string, body: object) {
  return api.patchClusterCustomObject({ ...POLICY, name, body }, merge);
}

async function readPolicy(name: string) {
  return (await custom(h.cluster.kc).getClusterCustomObject({ ...POLICY, name })) as {
    metadata: { resourceVersion: string };
    spec: { paused?: boolean; agent: Record<string, unknown> };
  };
}

async function createPolicy(api: k8s.CustomObjectsApi, name: string, spec: object) {
  return api.createClusterCustomObject({
    ...POLICY,
    body: { apiVersion: `${GROUP}/${VERSION}`, kind: 'FencePolicy', metadata: { name }, spec },
  });
}

const recorded = async () => (existsSync(records) ? await readFile(records, 'utf8') : '');

beforeAll(async () => {
  h = await startClusterAndConsole({
    name: 'agent-injection',
    rack: 'j1',
    count: 3,
    console: {
      fencing: true,
      protection: { webhook: { register: true } },
      credentialsNamespaces: [CREDENTIALS],
    },
  });
  const bin = join(h.dir, 'bin');
  records = join(h.dir, 'agent-runs.txt');
  pwned = join(h.dir, 'pwned');
  await mkdir(bin);
  await writeFile(join(bin, 'fence_ipmilan'), stub(h.dir));
  await chmod(join(bin, 'fence_ipmilan'), 0o755);
  // Palisade finds agents on PATH first (the console runs in this process)
  process.env.PATH = `${bin}:${oldPath}`;
  const core = h.cluster.kc.makeApiClient(k8s.CoreV1Api);
  for (const namespace of [CREDENTIALS, 'other-team'])
    await core.createNamespace({ body: { metadata: { name: namespace } } }).catch(() => undefined);
  for (const namespace of [CREDENTIALS, 'other-team'])
    await core.createNamespacedSecret({
      namespace,
      body: { metadata: { name: 'bmc' }, stringData: { password: PASSWORD } },
    });
}, 180_000);

afterAll(async () => {
  process.env.PATH = oldPath;
  await h?.stop();
});

describe('issue 23 finding 1: fence-agent parameters at admission', () => {
  const node = 'j1-1';

  beforeAll(async () => {
    // a valid policy, paused so that nothing fences while the writes below are tried
    await createPolicy(custom(h.cluster.kc), 'bmc', { ...policySpec(node, agent(node)), paused: true });
  });

  it('a palisade-admin person writing the injection is refused, the parameter named; nothing changes', async () => {
    const before = await readPolicy('bmc');
    const e = await patchAs(asToken(h.cluster.users.admin.token), 'bmc', {
      spec: { agent: { sharedParameters: INJECTION } },
    }).catch((x) => x);
    expect(message(e)).toContain('admission webhook \\"fencepolicies.palisade.dev\\" denied the request');
    expect(message(e)).toContain(
      'spec.agent.sharedParameters[\\"--sudo-path\\"]: \\"--sudo-path\\" is refused',
    );
    expect(message(e)).toContain(
      'spec.agent.sharedParameters[\\"--use-sudo\\"]: \\"--use-sudo\\" is refused',
    );
    const after = await readPolicy('bmc');
    expect(after.metadata.resourceVersion).toBe(before.metadata.resourceVersion);
    expect(after.spec.agent.sharedParameters).not.toHaveProperty('--sudo-path');
  });

  it('the cluster admin, who may configure, is refused the injection all the same', async () => {
    const e = await patchAs(custom(h.cluster.kc), 'bmc', {
      spec: { agent: { sharedParameters: INJECTION } },
    }).catch((x) => x);
    expect(e.code).toBe(422);
    expect(message(e)).toContain('\\"--sudo-path\\" is refused');
    // and a new policy carrying it is never created
    const c = await createPolicy(
      custom(h.cluster.kc),
      'evil',
      policySpec(node, agent(node, INJECTION)),
    ).catch((x) => x);
    expect(message(c)).toContain('\\"--use-sudo\\" is refused');
    await expect(
      custom(h.cluster.kc).getClusterCustomObject({ ...POLICY, name: 'evil' }),
    ).rejects.toMatchObject({
      code: 404,
    });
  });

  it('a palisade-admin person may pause and resume, but not change the agent', async () => {
    const admin = asToken(h.cluster.users.admin.token);
    await patchAs(admin, 'bmc', { spec: { paused: false } });
    expect((await readPolicy('bmc')).spec.paused).toBe(false);
    await patchAs(admin, 'bmc', { spec: { paused: true } });
    expect((await readPolicy('bmc')).spec.paused).toBe(true);
    // a valid change of the agent is still a change of what Palisade runs: `configure`
    const e = await patchAs(admin, 'bmc', {
      spec: { agent: { sharedParameters: { '--cipher': '17' } } },
    }).catch((x) => x);
    expect(message(e)).toContain(
      'fencepolicies.palisade.dev \\"bmc\\" is forbidden: User \\"admin\\" cannot configure resource \\"fencepolicies\\" in API group \\"palisade.dev\\" at the cluster scope',
    );
    // the cluster admin may
    await patchAs(custom(h.cluster.kc), 'bmc', {
      spec: { agent: { sharedParameters: { '--cipher': '17' } } },
    });
    expect((await readPolicy('bmc')).spec.agent.sharedParameters).toMatchObject({ '--cipher': '17' });
  });

  it("the console's Pause asks for `pause`: allowed for palisade-admin, refused with why for one who may only patch", async () => {
    const admin = trpcClient(h.console.url, h.cluster.users.admin.token);
    const resume = { action: 'resumeFencePolicy' as const, cluster: CLUSTER, policy: 'bmc' };
    expect(await admin.actions.perform.mutate({ ...resume, confirm: 'bmc', reason: 'test' })).toMatchObject({
      recorded: true,
    });
    const pause = { action: 'pauseFencePolicy' as const, cluster: CLUSTER, policy: 'bmc' };
    expect(
      await admin.actions.perform.mutate({ ...pause, confirm: 'bmc', reason: 'hold while the test writes' }),
    ).toMatchObject({ recorded: true });
    // the operator gets `patch` on fencepolicies (what palisade-admin had alone before): not enough
    const rbac = h.cluster.kc.makeApiClient(k8s.RbacAuthorizationV1Api);
    await rbac.createClusterRole({
      body: {
        metadata: { name: 'policy-patcher' },
        rules: [{ apiGroups: [GROUP], resources: [POLICY_PLURAL], verbs: ['get', 'patch'] }],
      },
    });
    await rbac.createClusterRoleBinding({
      body: {
        metadata: { name: 'operator-patches-policies' },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'policy-patcher' },
        subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'operator' }],
      },
    });
    const operator = trpcClient(h.console.url, h.cluster.users.operator.token);
    const p = await eventually(async () => {
      const r = await operator.actions.preview.query(resume);
      return r.refusal?.includes('cannot pause') ? r : undefined;
    }, 'the preview refusing for want of pause');
    expect(p).toMatchObject({ forbidden: true });
    expect(p.refusal).toContain('User "operator" cannot pause resource "fencepolicies"');
    await expect(
      operator.actions.perform.mutate({ ...resume, confirm: 'bmc', reason: 'r' }),
    ).rejects.toMatchObject({
      data: { code: 'FORBIDDEN' },
    });
    // and written directly, the webhook refuses in RBAC's words
    const e = await patchAs(asToken(h.cluster.users.operator.token), 'bmc', {
      spec: { paused: false },
    }).catch((x) => x);
    expect(message(e)).toContain('User \\"operator\\" cannot pause resource \\"fencepolicies\\"');
    expect((await readPolicy('bmc')).spec.paused).toBe(true);
  });

  it('a credentials namespace outside palisade.yaml’s list is refused at admission', async () => {
    const e = await patchAs(custom(h.cluster.kc), 'bmc', {
      spec: { agent: { credentialsNamespace: 'other-team' } },
    }).catch((x) => x);
    expect(message(e)).toContain(
      'spec.agent.credentialsNamespace: \\"other-team\\" is not a namespace Palisade reads fence-agent credentials from (palisade.yaml fencing.credentialsNamespaces: palisade-system)',
    );
  });

  it('no agent ran for any of it', async () => {
    expect(await recorded()).toBe('');
  });
});

describe('issue 23 finding 1: a bad policy that got past admission', () => {
  const node = 'j1-2';

  it('is refused again by the controller, said on the NodeFence and in an Event, and never run', async () => {
    // written while the FencePolicy webhook is away (an older Palisade, or a cluster where it was removed)
    const restore = await policyWebhookAway(h.cluster.kc);
    const injected = { ...agent(node, { '--use-sudo': '', '--sudo-path': `/bin/sh -c 'id >> ${pwned}'` }) };
    // kube-apiserver reloads webhook configurations from its own watch: until it has, the
    // webhook still refuses the write
    await eventually(
      () =>
        createPolicy(custom(h.cluster.kc), 'bypassed', {
          ...policySpec(node, { ...injected, credentialsNamespace: 'other-team' }),
        }).then(
          () => true,
          (e) => {
            if (!String((e as { body?: unknown }).body ?? e).includes('fencepolicies.palisade.dev')) throw e;
            return false;
          },
        ),
      'the policy written while its webhook is away',
      30_000,
    );
    await restore();

    h.cluster.infra.partition(node);
    const fence = await eventually(
      async () => {
        const o: unknown = await custom(h.cluster.kc)
          .getClusterCustomObject({ ...FENCE_API, name: node })
          .catch(() => undefined);
        const f = o ? parseNodeFence(o) : undefined;
        if (!f?.ok) return undefined;
        const c = f.value.status.conditions.find((x) => x.type === 'Processing');
        return c?.reason === 'AgentRefused' ? f.value : undefined;
      },
      'the NodeFence held: AgentRefused',
      90_000,
    );
    expect(fence.status.phase).toBe('Fencing');
    expect(fence.status.attempts).toEqual([]);
    const step = fence.status.steps.at(-1)!;
    expect(step.message).toContain('the agent of FencePolicy bypassed is refused, so no agent runs');
    expect(step.message).toContain('spec.agent.sharedParameters["--sudo-path"]: "--sudo-path" is refused');
    expect(step.message).toContain('spec.agent.credentialsNamespace: "other-team" is not a namespace');
    const events = await eventually(async () => {
      const ev = await h.cluster.kc.makeApiClient(k8s.CoreV1Api).listEventForAllNamespaces({
        fieldSelector: `involvedObject.name=${node}`,
      });
      const found = ev.items.filter((e) => e.reason === 'FenceAgentRefused');
      return found.length ? found : undefined;
    }, 'the FenceAgentRefused Event');
    expect(events[0].type).toBe('Warning');
    // well past a retry interval: still nothing ran
    await new Promise((r) => setTimeout(r, 3_000));
    expect(await recorded()).toBe('');
    expect(existsSync(pwned)).toBe(false);
    expect(
      (await custom(h.cluster.kc).getClusterCustomObject({ ...FENCE_API, name: node })) as object,
    ).toMatchObject({
      status: { attempts: [] },
    });

    // fixed by someone who may configure: the agent runs, and gets its password in its environment only
    await patchAs(custom(h.cluster.kc), 'bypassed', {
      spec: {
        agent: {
          sharedParameters: { '--use-sudo': null, '--sudo-path': null },
          credentialsNamespace: CREDENTIALS,
        },
      },
    });
    // the stub appends its record line by line: wait for the whole of it (its env: line is last)
    const complete = async () =>
      (await recorded()).split('--\n').find((r) => r.includes('stdin:action=off') && /^env:/m.test(r));
    const off = await eventually(complete, 'the agent run, recorded whole', 60_000);
    const runs = (await recorded()).split('--\n').filter(Boolean);
    expect(off).toContain('argv:\n');
    expect(off).toContain('password:in IPMI_PASSWORD');
    expect(off).not.toContain(PASSWORD);
    expect(off).toMatch(/^stdin:ipmitool-path=\/.*\/ipmitool-env\.sh$/m);
    expect(off).toContain('stdin:ip=127.0.0.1');
    expect(off).not.toContain('sudo');
    for (const r of runs) expect(r.split('\n').find((l) => l.startsWith('argv:'))).toBe('argv:');
    // a minimal environment: none of Palisade's own variables
    const env = off.split('\n').find((l) => l.startsWith('env:'))!;
    expect(env.split(' ').filter(Boolean).sort()).toEqual(
      ['env:IPMI_PASSWORD', 'LANG', 'LC_ALL', 'PATH', 'PWD', 'PYTHONWARNINGS', 'SHLVL', '_'].sort(),
    );
    expect(existsSync(pwned)).toBe(false);
  }, 180_000);
});
