import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fieldPath, loadConfig, parseConfig } from './load';
import {
  contextsToShow,
  credentialsNamespacesOf,
  EMPTY_CONFIG,
  leaderElectionOf,
  modeOf,
  sessionNamespaceConflict,
  sessionStoreOf,
} from './schema';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'palisade-config-'));
  await writeFile(
    join(dir, 'good.yaml'),
    'clusters:\n  - context: prod\n    mode: protected\n  - context: dev\n',
  );
  await writeFile(join(dir, 'broken.yaml'), 'clusters: [\n');
  await mkdir(join(dir, 'adir'));
  await mkdir(join(dir, 'empty-cwd'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('parseConfig', () => {
  it('fills in defaults', () => {
    expect(parseConfig('f', null)).toEqual({
      clusters: [],
      defaultMode: 'normal',
      server: {
        allowedHosts: [],
        trustedProxies: [],
        session: { idleTimeout: 3_600_000, absoluteTimeout: 43_200_000 },
      },
      auth: {},
      controllers: {
        leaderElection: {
          namespace: 'kube-system',
          name: 'palisade-controller',
          leaseDuration: 15_000,
          renewDeadline: 10_000,
          retryPeriod: 2_000,
        },
      },
      // the incident history: PGlite in the state directory, 14 days
      storage: { postgres: {}, retention: 14 * 86_400_000 },
      // fence agents' credentials: Palisade's own namespace, resolved at start (credentialsNamespacesOf)
      fencing: {},
      incidents: { tracker: true, resolveAfter: 60_000 },
    });
    expect(parseConfig('f', { clusters: [{ context: 'a' }] }).clusters).toEqual([
      { context: 'a', mode: 'normal' },
    ]);
  });

  it.each([
    ['one `npm start`: in memory', {}, { kind: 'memory' }],
    [
      'replicas (a webhook URL): shared, beside the controller Lease',
      { protection: { webhook: { url: 'https://palisade-webhook.palisade.svc/cell' } } },
      { kind: 'kubernetes', namespace: 'kube-system' },
    ],
    [
      'replicas on a protection core: on its cluster',
      { protection: { core: 'hub', webhook: { url: 'https://w.example/c' } } },
      { kind: 'kubernetes', namespace: 'kube-system', context: 'hub' },
    ],
    [
      'as configured',
      { server: { session: { store: { kind: 'kubernetes', namespace: 'palisade', context: 'a' } } } },
      { kind: 'kubernetes', namespace: 'palisade', context: 'a' },
    ],
    [
      'in memory when told so, replicas or not',
      {
        protection: { webhook: { url: 'https://w.example/c' } },
        server: { session: { store: { kind: 'memory' } } },
      },
      { kind: 'memory' },
    ],
  ])('keeps sessions %s', (_what, doc, want) => expect(sessionStoreOf(parseConfig('f', doc))).toEqual(want));

  it("reads the controllers' leader election as the runtime takes it", () => {
    const c = parseConfig('f', {
      controllers: { leaderElection: { name: 'palisade-ha', leaseDuration: '30s', renewDeadline: '20s' } },
    });
    expect(leaderElectionOf(c.controllers)).toEqual({
      namespace: 'kube-system',
      name: 'palisade-ha',
      leaseDurationSeconds: 30,
      renewDeadlineMs: 20_000,
      retryPeriodMs: 2_000,
    });
  });

  it.each([
    [
      'a foreign host pattern',
      { server: { allowedHosts: [''] } },
      /server\.allowedHosts\[0\]: must not be empty/,
    ],
    [
      'a public URL that is not one',
      { server: { publicURL: 'palisade.example.com' } },
      /server\.publicURL: must be a URL/,
    ],
    [
      'OIDC without a secret',
      { auth: { oidc: { issuer: 'https://dex.example.com', clientID: 'palisade' } } },
      /auth\.oidc\.clientSecret: give exactly one of clientSecret and clientSecretFile/,
    ],
    [
      'an OIDC key that does not exist',
      {
        auth: {
          oidc: { issuer: 'https://dex.example.com', clientID: 'p', clientSecret: 's', userClaim: 'x' },
        },
      },
      /auth\.oidc.*userClaim/,
    ],
    [
      'a bad mode',
      { clusters: [{ context: 'a' }, { context: 'b', mode: 'readonly' }] },
      /clusters\[1\]\.mode: must be one of normal, read-only, protected, got "readonly"/,
    ],
    ['an unknown field', { clusters: [{ context: 'a', mood: 'x' }] }, /clusters\[0\]\.mood: unknown field/],
    ['an unknown top-level field', { cluster: [] }, /cluster: unknown field/],
    ['an empty context', { clusters: [{ context: '' }] }, /clusters\[0\]\.context: must not be empty/],
    [
      'a context listed twice',
      { clusters: [{ context: 'a' }, { context: 'a' }] },
      /clusters\[1\]\.context: "a" is listed twice/,
    ],
    ['a bad default mode', { defaultMode: 'safe' }, /defaultMode: must be one of/],
    ['clusters not a list', { clusters: 'prod' }, /clusters: /],
    [
      'a Lease name that is no object name',
      { controllers: { leaderElection: { name: 'Palisade_Lease' } } },
      /controllers\.leaderElection\.name: must be a lower-case DNS name/,
    ],
    [
      'a lease duration in parts of a second',
      { controllers: { leaderElection: { leaseDuration: '1500ms' } } },
      /controllers\.leaderElection\.leaseDuration: must be whole seconds/,
    ],
    [
      'a renew deadline not shorter than the lease duration',
      { controllers: { leaderElection: { leaseDuration: '10s', renewDeadline: '10s' } } },
      /controllers\.leaderElection\.renewDeadline: must be shorter than leaseDuration \(10000 ms\), got 10000 ms/,
    ],
    [
      'a retry period too close to the renew deadline',
      { controllers: { leaderElection: { retryPeriod: '9s' } } },
      /controllers\.leaderElection\.retryPeriod: must be shorter than renewDeadline \/ 1\.2/,
    ],
    [
      'an unknown leader-election key',
      { controllers: { leaderElection: { leaseSeconds: 15 } } },
      /controllers\.leaderElection\.leaseSeconds: unknown field/,
    ],
    [
      'a duration that is no duration',
      { controllers: { leaderElection: { retryPeriod: 2 } } },
      /controllers\.leaderElection\.retryPeriod: /,
    ],
    [
      'a session store of no known kind',
      { server: { session: { store: { kind: 'redis' } } } },
      /server\.session\.store\.kind: must be one of memory, kubernetes, got "redis"/,
    ],
    [
      'a session namespace that is no namespace name',
      { server: { session: { store: { kind: 'kubernetes', namespace: 'Palisade' } } } },
      /server\.session\.store\.namespace: must be a lower-case DNS name/,
    ],
    [
      'a namespace for sessions kept in memory',
      { server: { session: { store: { kind: 'memory', namespace: 'palisade' } } } },
      /server\.session\.store\.namespace: only for kind: kubernetes/,
    ],
    [
      'no namespace for fence-agent credentials',
      { fencing: { credentialsNamespaces: [] } },
      /fencing\.credentialsNamespaces: list at least one namespace/,
    ],
    [
      'a credentials namespace that is no namespace name',
      { fencing: { credentialsNamespaces: ['Team A'] } },
      /fencing\.credentialsNamespaces\[0\]: must be a lower-case DNS name/,
    ],
    [
      "a policy whose agent the FencePolicy webhook would refuse (issue 23's injection)",
      {
        fencing: {
          policies: {
            bmc: {
              agent: {
                type: 'exec',
                agent: 'fence_ipmilan',
                sharedParameters: { '--use-sudo': '', '--sudo-path': "/bin/sh -c 'id >> /tmp/x'" },
              },
            },
          },
        },
      },
      /fencing\.policies\.bmc\.agent: .*"--use-sudo" is refused/,
    ],
  ])('refuses %s, naming the file and the field', (_what, doc, message) => {
    expect(() => parseConfig('/etc/palisade.yaml', doc)).toThrow(/^config \/etc\/palisade\.yaml: /);
    expect(() => parseConfig('/etc/palisade.yaml', doc)).toThrow(message);
  });
});

describe('credentialsNamespacesOf', () => {
  it("takes palisade.yaml's list, else Palisade's own namespace, else palisade-system", () => {
    const listed = parseConfig('f', { fencing: { credentialsNamespaces: ['bmc', 'palisade'] } });
    expect(credentialsNamespacesOf(listed, 'palisade')).toEqual(['bmc', 'palisade']);
    expect(credentialsNamespacesOf(EMPTY_CONFIG, 'palisade')).toEqual(['palisade']);
    expect(credentialsNamespacesOf(EMPTY_CONFIG)).toEqual(['palisade-system']);
  });
});

describe('fieldPath', () => {
  it.each([
    [['clusters', 0, 'mode'], 'clusters[0].mode'],
    [['defaultMode'], 'defaultMode'],
    [[], '(top level)'],
  ] as const)('%j -> %s', (path, want) => {
    expect(fieldPath(path)).toBe(want);
  });
});

describe('modes and contexts', () => {
  const cfg = parseConfig('f', {
    clusters: [{ context: 'prod', mode: 'protected' }, { context: 'dev' }],
    defaultMode: 'read-only',
  });
  it.each([
    ['prod', false, 'protected'],
    ['dev', false, 'normal'],
    ['other', false, 'read-only'],
    ['dev', true, 'read-only'],
    ['prod', true, 'read-only'],
  ] as const)('%s (--read-only %s) runs %s', (context, force, mode) => {
    expect(modeOf(cfg, context, force)).toBe(mode);
  });
  it('shows --context over the file list, else the file list', () => {
    expect(contextsToShow(cfg, ['x'])).toEqual(['x']);
    expect(contextsToShow(cfg, [])).toEqual(['prod', 'dev']);
  });
});

describe('loadConfig', () => {
  it('reads the named file', async () => {
    const { config, file } = await loadConfig(join(dir, 'good.yaml'));
    expect(file).toBe(join(dir, 'good.yaml'));
    expect(config.clusters.map((c) => [c.context, c.mode])).toEqual([
      ['prod', 'protected'],
      ['dev', 'normal'],
    ]);
  });

  it('uses built-in defaults when no file is named and ./palisade.yaml is absent', async () => {
    const saved = process.env.PALISADE_CONFIG;
    delete process.env.PALISADE_CONFIG;
    try {
      expect(await loadConfig(undefined, join(dir, 'empty-cwd'))).toEqual({ config: EMPTY_CONFIG });
    } finally {
      if (saved !== undefined) process.env.PALISADE_CONFIG = saved;
    }
  });

  it.each([
    ['a missing named file', 'missing.yaml', /cannot read config .*missing\.yaml: no such file/],
    ['a directory', 'adir', /cannot read config .*adir: it is a directory/],
    ['broken YAML', 'broken.yaml', /config .*broken\.yaml is not valid YAML/],
  ])('refuses %s', async (_what, name, message) => {
    await expect(loadConfig(join(dir, name))).rejects.toThrow(message);
  });
});

describe('the sessions’ namespace and its key', () => {
  it('is refused when fence-agent credentials may come from it too', () => {
    expect(sessionNamespaceConflict('palisade-system', ['palisade-system'])).toMatch(
      /server.session.store.namespace: "palisade-system" is also a namespace of fence-agent credentials/,
    );
    expect(sessionNamespaceConflict('palisade-sessions', ['palisade-system', 'bmc'])).toBeUndefined();
  });

  it('reads keySecret, only for kind kubernetes', () => {
    const cfg = parseConfig('f', {
      server: {
        session: {
          store: {
            kind: 'kubernetes',
            namespace: 's',
            keySecret: { namespace: 'p', name: 'palisade-session-key' },
          },
        },
      },
    });
    expect(sessionStoreOf(cfg)).toEqual({
      kind: 'kubernetes',
      namespace: 's',
      keySecret: { namespace: 'p', name: 'palisade-session-key' },
    });
    expect(() =>
      parseConfig('f', {
        server: { session: { store: { kind: 'memory', keySecret: { namespace: 'p', name: 'k' } } } },
      }),
    ).toThrow(/server.session.store.keySecret: only for kind: kubernetes/);
  });

  it('refuses a trusted proxy that is no address or CIDR, naming it', () =>
    expect(() => parseConfig('f', { server: { trustedProxies: ['10.0.0.0/8', 'ingress.local'] } })).toThrow(
      /server.trustedProxies\[1\]: must be an IP address or a CIDR like 10.0.0.0\/8/,
    ));
});
