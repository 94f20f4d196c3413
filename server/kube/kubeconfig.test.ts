import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clusterId, clustersFromKubeconfig } from './kubeconfig.js';

let dir: string;
const kubeconfig = `
apiVersion: v1
kind: Config
current-context: prod
clusters:
  - name: c1
    cluster: { server: 'https://127.0.0.1:6443' }
users:
  - name: u1
    user: { token: t }
contexts:
  - name: prod
    context: { cluster: c1, user: u1 }
  - name: 'arn:aws:eks:eu-west-1:1:cluster/Staging'
    context: { cluster: c1, user: u1 }
`;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'palisade-kc-'));
  await writeFile(join(dir, 'good'), kubeconfig);
  await writeFile(join(dir, 'broken'), 'clusters: [');
  await writeFile(join(dir, 'empty'), 'apiVersion: v1\nkind: Config\n');
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('clustersFromKubeconfig', () => {
  it('takes the current context by default', async () => {
    const [c] = await clustersFromKubeconfig(join(dir, 'good'));
    expect([c.id, c.context, c.infra, c.kc.getCurrentContext()]).toEqual(['prod', 'prod', undefined, 'prod']);
  });

  it('connects each context named, with its own id', async () => {
    const specs = await clustersFromKubeconfig(join(dir, 'good'), {
      contexts: ['prod', 'arn:aws:eks:eu-west-1:1:cluster/Staging'],
      modeOf: (context) => (context === 'prod' ? 'protected' : 'read-only'),
    });
    expect(specs.map((s) => [s.id, s.kc.getCurrentContext(), s.mode])).toEqual([
      ['prod', 'prod', 'protected'],
      ['arn-aws-eks-eu-west-1-1-cluster-staging', 'arn:aws:eks:eu-west-1:1:cluster/Staging', 'read-only'],
    ]);
  });

  it('also connects the contexts deletion protection names, after those shown', async () => {
    const specs = await clustersFromKubeconfig(join(dir, 'good'), {
      also: [
        { context: 'arn:aws:eks:eu-west-1:1:cluster/Staging', field: 'protection.cells[0].context' },
        { context: 'prod', field: 'protection.core' },
      ],
    });
    expect(specs.map((s) => s.context)).toEqual(['prod', 'arn:aws:eks:eu-west-1:1:cluster/Staging']);
  });

  it.each([
    [
      'a cell context the kubeconfig lacks',
      'good',
      { also: [{ context: 'worker-1', field: 'protection.cells[0].context' }] },
      /^protection\.cells\[0\]\.context: kubeconfig .*good has no context "worker-1" \(contexts: prod, arn/,
    ],
    ['a missing file', 'missing', {}, /cannot read kubeconfig .*missing: no such file/],
    ['a directory', '.', {}, /cannot read kubeconfig .*: it is a directory/],
    ['broken YAML', 'broken', {}, /kubeconfig .*broken is not valid/],
    ['no contexts', 'empty', {}, /kubeconfig .*empty has no contexts/],
    ['an unknown context', 'good', { contexts: ['dev'] }, /has no context "dev" \(contexts: prod, arn/],
  ])('refuses %s, naming the file', async (_what, file, opts, message) => {
    await expect(clustersFromKubeconfig(join(dir, file), opts)).rejects.toThrow(message);
  });
});

describe('clusterId', () => {
  it.each([
    [['prod'], 'prod'],
    [['Prod', 'prod'], 'prod-2'],
    [['---'], 'cluster'],
  ])('%o -> %s', (contexts, want) => {
    const taken = new Set<string>();
    const ids = contexts.map((c) => clusterId(c, taken));
    expect(ids.at(-1)).toBe(want);
  });
});
