import { describe, expect, it } from 'vitest';
import {
  judgePolicyWrite,
  PAUSE_ANNOTATIONS,
  type PolicyWrite,
  policySpecProblem,
} from './policyAdmission.js';

const agent = {
  type: 'exec',
  agent: 'fence_ipmilan',
  sharedParameters: { '--lanplus': '', '--username': 'admin' },
  nodeParameters: { '--ip': { n1: '10.0.0.5' } },
  secretRefs: [{ name: 'bmc', key: 'password', parameter: '--password' }],
  credentialsNamespace: 'palisade-system',
};
const spec = (extra: Record<string, unknown> = {}) => ({ approval: 'Automatic', agent, ...extra });
const injected = {
  ...agent,
  sharedParameters: {
    ...agent.sharedParameters,
    '--use-sudo': '',
    '--sudo-path': "/bin/sh -c 'id >> /tmp/x'",
  },
};
const pausedBy = (who: string) => ({
  [PAUSE_ANNOTATIONS.by]: who,
  [PAUSE_ANNOTATIONS.at]: '2026-11-29T07:00:00Z',
  [PAUSE_ANNOTATIONS.reason]: 'maintenance',
});

const write = (w: Partial<PolicyWrite>): PolicyWrite => ({
  new: { spec: spec() },
  self: false,
  credentialsNamespaces: ['palisade-system'],
  ...w,
});

describe('judgePolicyWrite', () => {
  const cases: [string, Partial<PolicyWrite>, ReturnType<typeof judgePolicyWrite>][] = [
    ['creating a policy', {}, { kind: 'needs', verbs: ['configure'] }],
    [
      'creating one paused',
      { new: { spec: spec({ paused: true }) } },
      { kind: 'needs', verbs: ['configure'] },
    ],
    [
      'pausing',
      { old: { spec: spec() }, new: { spec: spec({ paused: true }), annotations: pausedBy('ana') } },
      { kind: 'needs', verbs: ['pause'] },
    ],
    [
      'resuming (the console drops the annotations)',
      {
        old: { spec: spec({ paused: true }), annotations: pausedBy('ana') },
        new: { spec: spec({ paused: false }) },
      },
      { kind: 'needs', verbs: ['pause'] },
    ],
    [
      'rewording why it is paused',
      {
        old: { spec: spec({ paused: true }), annotations: pausedBy('ana') },
        new: {
          spec: spec({ paused: true }),
          annotations: { ...pausedBy('ana'), [PAUSE_ANNOTATIONS.reason]: 'x' },
        },
      },
      { kind: 'needs', verbs: ['pause'] },
    ],
    [
      'changing the agent',
      { old: { spec: spec() }, new: { spec: spec({ agent: { ...agent, action: 'reboot' } }) } },
      { kind: 'needs', verbs: ['configure'] },
    ],
    [
      'changing which nodes',
      { old: { spec: spec() }, new: { spec: spec({ nodeSelector: { matchLabels: { a: 'b' } } }) } },
      { kind: 'needs', verbs: ['configure'] },
    ],
    [
      'pausing and changing the agent in one write',
      { old: { spec: spec() }, new: { spec: spec({ paused: true, approval: 'Manual' }) } },
      { kind: 'needs', verbs: ['configure', 'pause'] },
    ],
    [
      'a label or another annotation: nothing Palisade reads',
      { old: { spec: spec() }, new: { spec: spec(), annotations: { team: 'x' } } },
      { kind: 'needs', verbs: [] },
    ],
    [
      'the same spec with its keys in another order',
      { old: { spec: { agent, approval: 'Automatic' } }, new: { spec: spec() } },
      { kind: 'needs', verbs: [] },
    ],
    [
      'Palisade itself: no verb, but still a valid policy',
      { old: { spec: spec() }, new: { spec: spec({ approval: 'Manual' }) }, self: true },
      { kind: 'needs', verbs: [] },
    ],
  ];
  it.each(cases)('%s', (_, w, want) => expect(judgePolicyWrite(write(w))).toEqual(want));

  it('refuses the injection of issue 23 on create and on update, naming the parameters', () => {
    for (const old of [undefined, { spec: spec() }]) {
      const v = judgePolicyWrite(write({ old, new: { spec: spec({ agent: injected }) } }));
      expect(v.kind).toBe('invalid');
      const m = (v as { message: string }).message;
      expect(m).toContain('spec.agent.sharedParameters["--use-sudo"]: "--use-sudo" is refused');
      expect(m).toContain('spec.agent.sharedParameters["--sudo-path"]: "--sudo-path" is refused');
    }
  });

  it('refuses it from Palisade itself too', () => {
    expect(judgePolicyWrite(write({ new: { spec: spec({ agent: injected }) }, self: true })).kind).toBe(
      'invalid',
    );
  });

  it('lets a bad policy already stored be paused (the safe move), not changed', () => {
    const bad = spec({ agent: injected });
    expect(judgePolicyWrite(write({ old: { spec: bad }, new: { spec: { ...bad, paused: true } } }))).toEqual({
      kind: 'needs',
      verbs: ['pause'],
    });
    expect(
      judgePolicyWrite(write({ old: { spec: bad }, new: { spec: { ...bad, approval: 'Manual' } } })).kind,
    ).toBe('invalid');
  });

  it('refuses a credentials namespace outside palisade.yaml’s list', () => {
    const v = judgePolicyWrite(
      write({ new: { spec: spec({ agent: { ...agent, credentialsNamespace: 'kube-system' } }) } }),
    );
    expect(v).toEqual({
      kind: 'invalid',
      message:
        'spec.agent.credentialsNamespace: "kube-system" is not a namespace Palisade reads fence-agent credentials from (palisade.yaml fencing.credentialsNamespaces: palisade-system)',
    });
  });
});

describe('policySpecProblem', () => {
  const cases: [string, unknown, string | undefined][] = [
    ['a valid exec policy', spec(), undefined],
    ['the built-in power agent', { agent: { type: 'power' } }, undefined],
    ['no agent', {}, 'spec.agent: Invalid input'],
    [
      'not an agent name',
      spec({ agent: { ...agent, agent: 'rm -rf' } }),
      'spec.agent.agent: a ClusterLabs agent name such as "fence_ipmilan"',
    ],
    [
      'both budgets',
      spec({ minHealthy: 1, maxUnhealthy: 1 }),
      'spec.maxUnhealthy: set minHealthy or maxUnhealthy, not both',
    ],
  ];
  it.each(cases)('%s', (_, s, want) => {
    const p = policySpecProblem(s, ['palisade-system']);
    if (want === undefined) expect(p).toBeUndefined();
    else expect(p).toMatch(new RegExp(`^${want.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
  });
});
