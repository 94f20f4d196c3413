import * as k8s from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { actorOf, CONSOLE_ACTOR, kubeConfigFor } from './actor';

function kubeconfig() {
  const kc = new k8s.KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: 'c', server: 'https://127.0.0.1:6443', skipTLSVerify: true }],
    users: [
      { name: 'console', token: 'secret' },
      { name: 'other', token: 'x' },
    ],
    contexts: [{ name: 'ctx', cluster: 'c', user: 'console' }],
    currentContext: 'ctx',
  });
  return kc;
}

async function headersOf(kc: k8s.KubeConfig) {
  const opts: { headers?: Record<string, string> } = {};
  await kc.applyToHTTPSOptions(opts as never);
  return opts.headers ?? {};
}

describe('who acts', () => {
  it('is the console until sign-in puts an actor in the context', () => {
    expect(actorOf({})).toBe(CONSOLE_ACTOR);
    expect(CONSOLE_ACTOR).toEqual({
      name: 'a console user (the console acts with its own credentials)',
      via: 'console-credentials',
    });
    const alice = { name: 'alice', via: 'impersonation' as const };
    expect(actorOf({ actor: alice })).toBe(alice);
  });

  it('acts with the console credentials as they are', () => {
    const kc = kubeconfig();
    expect(kubeConfigFor(kc, CONSOLE_ACTOR)).toBe(kc);
  });

  it('impersonates a signed-in person: the same credentials plus Impersonate-User', async () => {
    const kc = kubeconfig();
    const as = kubeConfigFor(kc, { name: 'alice', via: 'impersonation' });
    expect(await headersOf(as)).toMatchObject({
      Authorization: 'Bearer secret',
      'Impersonate-User': 'alice',
    });
    // the connection's own kubeconfig is left alone
    expect(await headersOf(kc)).not.toHaveProperty('Impersonate-User');
    expect(as.users.find((u) => u.name === 'other')?.impersonateUser).toBeUndefined();
  });
});
