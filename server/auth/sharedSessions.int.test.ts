// Two replicas' session stores in one process, against the embedded cluster (or kube-apiserver
// with PALISADE_CLUSTER=real): an OIDC renewal due on both happens once (the identity provider
// revokes a grant whose refresh token is used twice), activity written back by one keeps the
// session alive on the other, expiry is collected once and heard by both with its reason, and
// neither a session id nor a token reaches a log line.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sessionKeys } from '../../lib/auth/sealedRecord.js';
import { eventually } from '../../sim/apiserver/test/harness.js';
import { startScenario } from '../../sim/test/clusterHarness.js';
import { InformerRegistry } from '../kube/informer.js';
import { scenario } from '../protection/test/protectionHarness.js';
import { createReadyNamespace } from '../test/namespaces.js';
import { captureLogs } from '../test/logCapture.js';
import type { Identity } from './identity.js';
import { SessionSecrets } from './sessionSecrets.js';
import type { EndReason, Renewed, Session } from './sessions.js';
import { SharedSessionStore } from './sharedSessions.js';

const NS = 'sessions';
/** the install's session record key: every replica reads it from the key Secret */
const RECORD_KEY = sessionKeys(randomBytes(32)).records;
const SELECTOR = 'app.kubernetes.io/name=palisade,app.kubernetes.io/component=session';
let cluster: Awaited<ReturnType<typeof startScenario>>;
const logs = captureLogs('debug');
const stores: SharedSessionStore[] = [];

function replica(name: string, limits = { idleMs: 60_000, absoluteMs: 3_600_000 }) {
  const registry = new InformerRegistry(cluster.kc, {}, logs.logger);
  const store = new SharedSessionStore(
    new SessionSecrets(registry, NS, logs.logger, RECORD_KEY),
    name,
    logs.logger,
    limits,
  );
  const ended: [string, EndReason][] = [];
  store.onEnd((s, why) => ended.push([s.sessionKey, why]));
  stores.push(store);
  return { store, ended };
}

const alice: Omit<Identity, 'sessionKey'> = {
  method: 'oidc',
  credential: { kind: 'impersonate', as: { username: 'oidc:alice', groups: ['oidc:ops'] } },
  principals: new Map([['c1', { username: 'oidc:alice', groups: ['oidc:ops'] }]]),
};

describe('session stores of two replicas', () => {
  beforeAll(async () => {
    cluster = await startScenario(scenario('shared-sessions'));
    await createReadyNamespace(cluster.core, NS);
  }, 120_000);

  afterAll(async () => {
    for (const s of stores) s.stop();
    await cluster?.stop();
  });

  it('an OIDC renewal due on both replicas happens once, and both act with its result', async () => {
    const a = replica('a');
    const b = replica('b');
    await Promise.all([a.store.synced(), b.store.synced()]);
    const { session, id } = await a.store.create(alice, {
      refreshToken: 'refresh-1',
      idToken: 'id-1',
      issuedAt: Date.now() - 3_600_000,
      expiresAt: Date.now() + 20_000,
    });
    await eventually(() => b.store.all().some((s) => s.sessionKey === session.sessionKey), 'b mirrors it');
    const used: string[] = [];
    const refresh = async (oidc: Session['oidc']): Promise<Renewed> => {
      used.push(oidc?.refreshToken ?? '');
      await new Promise((r) => setTimeout(r, 200)); // the provider takes a moment
      return {
        oidc: {
          refreshToken: `refresh-${used.length + 1}`,
          idToken: 'id-2',
          issuedAt: Date.now(),
          expiresAt: Date.now() + 3_600_000,
        },
        credential: { kind: 'impersonate', as: { username: 'oidc:alice', groups: ['oidc:ops', 'oidc:new'] } },
      };
    };
    const won = await Promise.all([
      a.store.renew(session.sessionKey, refresh),
      b.store.renew(session.sessionKey, refresh),
    ]);
    expect(used).toEqual(['refresh-1']);
    expect(won.filter(Boolean)).toHaveLength(1);
    // the loser hears the new tokens and credential through the watch, on the object its sockets hold
    for (const r of [a, b])
      await eventually(
        async () => (await r.store.use(id))?.oidc?.refreshToken === 'refresh-2',
        'the renewed tokens on both replicas',
      );
    const onB = (await b.store.use(id))!;
    expect(onB.credential).toEqual({
      kind: 'impersonate',
      as: { username: 'oidc:alice', groups: ['oidc:ops', 'oidc:new'] },
    });
    // renewed: nobody claims it again
    expect(await b.store.renew(session.sessionKey, refresh)).toBe(false);
    expect(used).toHaveLength(1);
  });

  it('a refused renewal ends the session on both, saying why', async () => {
    const a = replica('a2');
    const b = replica('b2');
    await Promise.all([a.store.synced(), b.store.synced()]);
    const { session, id } = await a.store.create(alice, {
      refreshToken: 'revoked',
      issuedAt: Date.now() - 3_600_000,
      expiresAt: Date.now() + 1_000,
    });
    await expect(
      b.store.renew(session.sessionKey, async () => {
        throw new Error('invalid_grant');
      }),
    ).rejects.toThrow(/invalid_grant/);
    await eventually(() => a.ended.some(([k]) => k === session.sessionKey), 'a hears of it');
    expect(a.ended.find(([k]) => k === session.sessionKey)?.[1]).toBe('refresh-failed');
    expect(await a.store.use(id)).toBeUndefined();
  });

  it('activity on one replica keeps the session alive on the other; idleness ends it once, on both', async () => {
    const limits = { idleMs: 3_000, absoluteMs: 3_600_000 };
    const a = replica('a3', limits);
    const b = replica('b3', limits);
    await Promise.all([a.store.synced(), b.store.synced()]);
    const { session, id } = await a.store.create({
      ...alice,
      method: 'token',
      credential: { kind: 'token', token: 'kube-token-secret' },
    });
    // used on a only, for twice the idle limit: b's sweeps must not end it
    const until = Date.now() + 6_000;
    while (Date.now() < until) {
      expect(await a.store.use(id)).toBeDefined();
      await new Promise((r) => setTimeout(r, 500));
    }
    // (the other tests' sessions end here by these short limits: only this one counts)
    const mine = (r: { ended: [string, EndReason][] }) => r.ended.filter(([k]) => k === session.sessionKey);
    expect(mine(b)).toEqual([]);
    expect(await b.store.use(id)).toBeDefined();
    // then nobody uses it: one Secret deleted, both replicas end it as idle
    await eventually(() => mine(a).length === 1 && mine(b).length === 1, 'ended on both replicas', 15_000);
    expect([...mine(a), ...mine(b)]).toEqual([
      [session.sessionKey, 'idle'],
      [session.sessionKey, 'idle'],
    ]);
    const left = await cluster.core.listNamespacedSecret({ namespace: NS, labelSelector: SELECTOR });
    expect(left.items.map((s) => s.metadata?.name)).not.toContain(`palisade-session-${session.sessionKey}`);
    expect(await a.store.use(id)).toBeUndefined();
  }, 40_000);

  it('deletes a plaintext session Secret it finds, and logs neither ids nor tokens', async () => {
    const a = replica('a4');
    await cluster.core.createNamespacedSecret({
      namespace: NS,
      body: {
        metadata: {
          name: 'palisade-session-broken',
          labels: Object.fromEntries(SELECTOR.split(',').map((kv) => kv.split('='))),
        },
        data: {
          session: Buffer.from('{"v":1,"credential":{"kind":"token","token":"leaked?"}}').toString('base64'),
        },
      },
    });
    await a.store.synced();
    const { id } = await a.store.create({
      ...alice,
      method: 'token',
      credential: { kind: 'token', token: 'kube-token-secret' },
    });
    expect(await a.store.use(id)).toBeDefined();
    // a plaintext record (an older Palisade's) is deleted, not used
    await eventually(
      async () =>
        !(await cluster.core.listNamespacedSecret({ namespace: NS, labelSelector: SELECTOR })).items.some(
          (s) => s.metadata?.name === 'palisade-session-broken',
        ),
      'the plaintext Secret deleted',
    );
    expect(logs.records().some((r) => String(r.msg).startsWith('a plaintext session Secret'))).toBe(true);
    const text = logs.lines.join('\n');
    for (const secret of [id, 'kube-token-secret', 'refresh-1', 'refresh-2', 'leaked?'])
      expect(text).not.toContain(secret);
  });
});
