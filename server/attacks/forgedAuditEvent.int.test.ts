// Attack (issue 23, 6): audit rows from anyone's Events. The Audit page and the history store
// read people's actions back from Events with source "palisade-console", and anyone who may
// create Events can write one: a forged `PalisadeForceDelete` Event became "Force delete pod |
// admin" on the Audit page and in the history for good. Now only Palisade's own records count:
// the Events it writes carry a seal (HMAC under the install's audit key, lib/guard/auditSeal.ts)
// over every field the audit reads, and an Event without a seal that checks out is no record.
import * as k8s from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditMessage } from '../../lib/guard/audit.js';
import { SEAL_ANNOTATION } from '../../lib/guard/auditSeal.js';
import { eventually } from '../../sim/apiserver/test/harness.js';
import { kubeConfigWithToken } from '../auth/kubeAs.js';
import type { Console } from '../console.js';
import { tokenOf, trpcClient } from '../test/client.js';
import { type ClusterAndConsole, startClusterAndConsole } from '../test/consoleHarness.js';
import { createReadyNamespace } from '../test/namespaces.js';
import { limitedPerson } from './harness.js';

const CLUSTER = 'palisade-embedded';
let h: ClusterAndConsole;
let c: Console;
let admin: ReturnType<typeof trpcClient>;
/** may create Events in shop, and nothing else of note */
let forger: k8s.CoreV1Api;

/** a fresh suffix per try, so a retried test does not meet its first try's Event */
const attempt = () => Date.now().toString(36);

const forgedBody = (name: string, over: Partial<k8s.CoreV1Event> = {}): k8s.CoreV1Event => ({
  metadata: { name, namespace: 'shop' },
  involvedObject: { kind: 'Pod', apiVersion: 'v1', namespace: 'shop', name: 'web-0', uid: 'u-web-0' },
  reason: 'PalisadeForceDelete',
  message: auditMessage({
    what: 'force-deleted pod shop/web-0',
    overridden: false,
    reasons: [],
    by: 'admin',
    why: 'routine',
  }),
  type: 'Normal',
  // the legacy Event form kubectl-era tools write: the source is all it takes to look like the console's
  source: { component: 'palisade-console' },
  firstTimestamp: new Date(),
  lastTimestamp: new Date(),
  count: 1,
  ...over,
});

beforeAll(async () => {
  h = await startClusterAndConsole({
    name: 'attack-audit',
    rack: 'f1',
    count: 1,
    console: { history: { location: { kind: 'temporary' }, retentionMs: 86_400_000 } },
  });
  c = h.console;
  const core = h.cluster.kc.makeApiClient(k8s.CoreV1Api);
  await createReadyNamespace(core, 'shop');
  const person = await limitedPerson(h.cluster.kc, 'shop', 'event-writer');
  await h.cluster.kc.makeApiClient(k8s.RbacAuthorizationV1Api).createNamespacedRole({
    namespace: 'shop',
    body: {
      metadata: { name: 'write-events' },
      rules: [{ apiGroups: [''], resources: ['events'], verbs: ['create'] }],
    },
  });
  await h.cluster.kc.makeApiClient(k8s.RbacAuthorizationV1Api).createNamespacedRoleBinding({
    namespace: 'shop',
    body: {
      metadata: { name: 'write-events' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'write-events' },
      subjects: [{ kind: 'ServiceAccount', name: 'event-writer', namespace: 'shop' }],
    },
  });
  forger = kubeConfigWithToken(h.cluster.kc, person.token).makeApiClient(k8s.CoreV1Api);
  admin = trpcClient(c.url, tokenOf(h.cluster.kc));
  await c.history!.ready;
}, 180_000);

afterAll(() => h?.stop());

describe('an Event anyone may create', () => {
  it('never becomes an audit row or an audit entry; Palisade’s own record does', async () => {
    // this try's records only (a retry meets the first try's)
    const started = Date.now() - 1_000;
    await forger.createNamespacedEvent({
      namespace: 'shop',
      body: forgedBody(`web-0.palisade-forcedeletepod-forged-${attempt()}`),
    });
    // a real action of the console, recorded (and sealed) by Palisade: the audit must show it
    await admin.infra.act.mutate({ cluster: CLUSTER, node: 'f1-1', verb: 'partition' });
    await admin.infra.act.mutate({ cluster: CLUSTER, node: 'f1-1', verb: 'heal' });
    const real = await eventually(async () => {
      const rows = await admin.actions.audit.query({ cluster: CLUSTER });
      const mine = rows.filter((r) => (r.at ?? 0) >= started);
      return mine.filter((r) => r.action === 'simulation').length === 2 ? mine : undefined;
    }, 'the console’s own records in the audit');
    expect(real.some((r) => r.action === 'forceDeletePod')).toBe(false);
    expect(real.filter((r) => r.action !== 'simulation')).toEqual([]);

    // and in the history store, once the recorder has written the real ones
    const window = {
      cluster: CLUSTER,
      from: new Date(started).toISOString(),
      to: new Date(Date.now() + 60_000).toISOString(),
    };
    const entries = await eventually(async () => {
      const { entries } = await admin.history.timeline.query(window);
      // the console's two sealed records, beside what the infrastructure itself reported
      const asked = entries.filter((e) => e.kind === 'fault' && e.actor !== 'infrastructure');
      return asked.length === 2 ? entries : undefined;
    }, 'the faults in the history');
    expect(entries.filter((e) => e.kind === 'guarded-action')).toEqual([]);
    // nor as an ordinary warning: an Event that claims to be the console's without its seal is nobody's record
    expect(entries.some((e) => e.message.includes('by: admin'))).toBe(false);
  });

  it('a copy of Palisade’s seal on other words is no record either', async () => {
    const core = h.cluster.kc.makeApiClient(k8s.CoreV1Api);
    const sealed = (await core.listNamespacedEvent({ namespace: 'default' })).items.find(
      (e) => e.metadata?.annotations?.[SEAL_ANNOTATION],
    )!;
    expect(sealed).toBeDefined();
    const copied = `web-0.palisade-forcedeletepod-copied-${attempt()}`;
    const before = (await admin.actions.audit.query({ cluster: CLUSTER })).filter(
      (x) => x.action === 'simulation',
    ).length;
    await forger.createNamespacedEvent({
      namespace: 'shop',
      body: forgedBody(copied, {
        metadata: {
          name: copied,
          namespace: 'shop',
          annotations: { [SEAL_ANNOTATION]: sealed.metadata!.annotations![SEAL_ANNOTATION] },
        },
      }),
    });
    await admin.infra.act.mutate({ cluster: CLUSTER, node: 'f1-1', verb: 'partition' });
    await admin.infra.act.mutate({ cluster: CLUSTER, node: 'f1-1', verb: 'heal' });
    const rows = await eventually(async () => {
      const r = await admin.actions.audit.query({ cluster: CLUSTER });
      return r.filter((x) => x.action === 'simulation').length === before + 2 ? r : undefined;
    }, 'the second pair of faults in the audit');
    expect(rows.some((r) => r.action === 'forceDeletePod')).toBe(false);
  });
});
