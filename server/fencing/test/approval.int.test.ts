// Approving and cancelling a NodeFence need the custom verbs approve / cancel on
// nodefences.palisade.dev — in the console (the guarded seam asks first) and for any other
// client (Palisade's webhook refuses the write), on the embedded cluster and, with
// PALISADE_CLUSTER=real, on kube-apiserver: a kubectl user cannot bypass the console.
import * as k8s from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ClusterAndConsole, startClusterAndConsole } from '../../test/consoleHarness.js';
import type { EmbeddedCluster } from '../../../sim/cluster.js';
import { FENCE_API } from '../../actions/live.js';
import { fenceInPhase, readFenceObject } from '../../actions/test/fences.js';
import { kubeConfigWithToken } from '../../auth/kubeAs.js';
import type { Console } from '../../console.js';
import { trpcClient } from '../../test/client.js';

let h: ClusterAndConsole;
let cluster: EmbeddedCluster;
let c: Console;
const CLUSTER = 'palisade-embedded';
const NODE = 'f1-1';

beforeAll(async () => {
  // the test plays the fencing controller (phases by hand); the webhook is registered as on npm start
  h = await startClusterAndConsole({
    name: 'approval-test',
    rack: 'f1',
    count: 2,
    console: { protection: { webhook: { register: true } } },
  });
  ({ cluster, console: c } = h);
}, 120_000);

afterAll(() => h?.stop());

/** The fence written straight to the API as a user, the way kubectl would. */
function patchAs(token: string, spec: object) {
  const custom = kubeConfigWithToken(cluster.kc, token).makeApiClient(k8s.CustomObjectsApi);
  return custom.patchClusterCustomObject(
    { ...FENCE_API, name: NODE, body: { spec } },
    k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
  );
}

async function awaitingApproval() {
  const node = await cluster.kc.makeApiClient(k8s.CoreV1Api).readNode({ name: NODE });
  await fenceInPhase(cluster.kc, NODE, node.metadata!.uid!, 'AwaitingApproval');
}

const message = (e: unknown) => String((e as { body?: unknown }).body ?? (e as Error).message);

describe('approving a fence outside the console', () => {
  beforeAll(awaitingApproval);

  it('an operator, who may not even patch fences, is refused by RBAC', async () => {
    const e = await patchAs(cluster.users.operator.token, {
      approvedBy: 'operator',
      approvedAt: new Date().toISOString(),
    }).catch((x) => x);
    expect(e.code).toBe(403);
    expect((await readFenceObject(cluster.kc, NODE)).spec.approvedBy).toBeUndefined();
  });

  it('a user who may patch fences but not approve them is refused by the webhook, in RBAC words', async () => {
    // a role with patch on nodefences only: RBAC lets the write through to admission
    const rbac = cluster.kc.makeApiClient(k8s.RbacAuthorizationV1Api);
    await rbac.createClusterRole({
      body: {
        metadata: { name: 'fence-patcher' },
        rules: [{ apiGroups: ['palisade.dev'], resources: ['nodefences'], verbs: ['get', 'patch'] }],
      },
    });
    await rbac.createClusterRoleBinding({
      body: {
        metadata: { name: 'operator-patches-fences' },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'fence-patcher' },
        subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'operator' }],
      },
    });
    const e = await patchAs(cluster.users.operator.token, {
      approvedBy: 'operator',
      approvedAt: new Date().toISOString(),
    }).catch((x) => x);
    expect(message(e)).toContain('denied the request');
    expect(message(e)).toContain(
      `nodefences.palisade.dev \\"${NODE}\\" is forbidden: User \\"operator\\" cannot approve resource \\"nodefences\\" in API group \\"palisade.dev\\" at the cluster scope`,
    );
    const cancel = await patchAs(cluster.users.operator.token, {
      cancelRequested: { by: 'operator', at: new Date().toISOString(), reason: 'x' },
    }).catch((x) => x);
    expect(message(cancel)).toContain('cannot cancel resource');
    expect((await readFenceObject(cluster.kc, NODE)).spec).not.toHaveProperty('approvedBy');
  });

  it('an admin may not approve in someone else’s name', async () => {
    const e = await patchAs(cluster.users.admin.token, {
      approvedBy: 'operator',
      approvedAt: new Date().toISOString(),
    }).catch((x) => x);
    expect(message(e)).toContain(
      'spec.approvedBy must name the user who approves (admin), not \\"operator\\"',
    );
  });

  it('an admin approves with kubectl-like writes too', async () => {
    await patchAs(cluster.users.admin.token, { approvedBy: 'admin', approvedAt: new Date().toISOString() });
    expect((await readFenceObject(cluster.kc, NODE)).spec.approvedBy).toBe('admin');
  });
});

describe('approving a fence in the console', () => {
  beforeAll(awaitingApproval);
  const input = { action: 'approveFence' as const, cluster: CLUSTER, fence: NODE };

  it('the viewer is refused before anything is sent, and sees why', async () => {
    const viewer = trpcClient(c.url, cluster.users.viewer.token);
    const p = await viewer.actions.preview.query(input);
    expect(p).toMatchObject({ forbidden: true });
    expect(p.refusal).toContain(`User "viewer" cannot patch resource "nodefences"`);
    await expect(
      viewer.actions.perform.mutate({ ...input, confirm: NODE, reason: 'r' }),
    ).rejects.toMatchObject({
      data: { code: 'FORBIDDEN' },
    });
  });

  it('the admin approves; the fence names the admin', async () => {
    const admin = trpcClient(c.url, cluster.users.admin.token);
    const r = await admin.actions.perform.mutate({
      ...input,
      confirm: NODE,
      reason: 'the BMC shows it hung',
    });
    expect(r.recorded).toBe(true);
    expect((await readFenceObject(cluster.kc, NODE)).spec.approvedBy).toBe('admin');
  });
});
