// kubectl conformance: drive Debian's kubectl 1.20 (installed by scripts/ensure-kubectl.sh
// into .palisade/bin) against the embedded API server and assert on what a user sees:
// kubectl's real stdout, stderr and exit code.
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type * as k8s from '@kubernetes/client-node';
import YAML from 'yaml';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type Cluster, eventually, podSpec, raw, startCluster } from './harness.js';

const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));
const KUBECTL = join(repoRoot, '.palisade/bin/kubectl');

let c: Cluster;
let dir: string;
let kubeconfig: string;
const running = new Set<ChildProcess>();

beforeAll(async () => {
  c = await startCluster();
  dir = await mkdtemp(join(tmpdir(), 'palisade-kubectl-'));
  kubeconfig = join(dir, 'kubeconfig');
  await writeFile(kubeconfig, c.server.kubeconfig, { mode: 0o600 });
});

// A missing binary is a broken setup, not a reason to skip: every test fails and says how
// to fix it (a throwing beforeAll would leave the tests reported as skipped).
beforeEach(() => {
  if (!existsSync(KUBECTL))
    throw new Error(`kubectl 1.20 not found at ${KUBECTL}: run scripts/ensure-kubectl.sh first`);
});

afterAll(async () => {
  for (const child of running) child.kill('SIGKILL');
  await c?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

interface Result {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Start kubectl against the cluster; `out` fills as it prints. */
function start(args: string[]) {
  // HOME and KUBECONFIG point away from the machine's own kubectl setup.
  const env = { ...process.env, HOME: dir, KUBECONFIG: kubeconfig };
  const child = spawn(KUBECTL, ['--kubeconfig', kubeconfig, '--cache-dir', join(dir, 'cache'), ...args], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.add(child);
  const out: Result = { code: null, stdout: '', stderr: '' };
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (out.stdout += d));
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (out.stderr += d));
  const done = new Promise<Result>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => {
      running.delete(child);
      out.code = code;
      resolve(out);
    });
  });
  return { out, done, stop: () => child.kill('SIGKILL') };
}

/** Run kubectl to completion (killed after 20 s so a hang fails the test instead of the run). */
async function kubectl(...args: string[]): Promise<Result> {
  const p = start(args);
  const timer = setTimeout(p.stop, 20_000);
  try {
    return await p.done;
  } finally {
    clearTimeout(timer);
  }
}

/** Run kubectl, require exit 0 and return its stdout. */
async function ok(...args: string[]): Promise<string> {
  const r = await kubectl(...args);
  if (r.code !== 0)
    throw new Error(`kubectl ${args.join(' ')} exited ${r.code}\nstdout: ${r.stdout}\nstderr: ${r.stderr}`);
  return r.stdout;
}

/** Rows of a kubectl table keyed by header; a column starts where its header starts. */
function table(out: string): Record<string, string>[] {
  const [header, ...lines] = out.split('\n').filter((l) => l.trim());
  const cols = [...header.matchAll(/\S+(?: \S+)*/g)].map((m) => ({ name: m[0], start: m.index }));
  return lines.map((line) =>
    Object.fromEntries(cols.map((col, i) => [col.name, line.slice(col.start, cols[i + 1]?.start).trim()])),
  );
}

const headerOf = (out: string) =>
  out
    .split('\n')[0]
    .trim()
    .split(/\s{2,}/);

/** Write YAML documents into one file and return its path. */
async function yamlFile(name: string, ...docs: object[]): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, docs.map((d) => YAML.stringify(d)).join('---\n'));
  return path;
}

async function namespace(name: string) {
  await c.core.createNamespace({ body: { metadata: { name } } });
}

const bound = (name: string, labels: Record<string, string> = { app: 'web' }): k8s.V1Pod =>
  podSpec(name, {
    metadata: { name, labels },
    spec: { nodeName: 'node-a', containers: [{ name: 'app', image: 'nginx:1.25' }] },
  });

const deployment = (name: string, container: object = {}) => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name, labels: { app: name } },
  spec: {
    replicas: 1,
    selector: { matchLabels: { app: name } },
    template: {
      metadata: { labels: { app: name } },
      spec: { containers: [{ name: 'main', image: 'nginx:1.25', ...container }] },
    },
  },
});

const AGE = /^\d+s$/;

describe('kubectl version and discovery', () => {
  it('reports the 1.20 client and the server version the API serves', async () => {
    const out = await ok('version');
    const server = (await raw(c, 'GET', '/version')).body;
    expect(out).toMatch(/^Client Version: version\.Info\{Major:"1", Minor:"20", GitVersion:"v1\.20\.\d+"/m);
    expect(out).toContain(
      `Server Version: version.Info{Major:"${server.major}", Minor:"${server.minor}", GitVersion:"${server.gitVersion}"`,
    );
  });

  it('lists resources with api-resources, including short names and groups', async () => {
    const out = await ok('api-resources');
    expect(headerOf(out)).toEqual(['NAME', 'SHORTNAMES', 'APIVERSION', 'NAMESPACED', 'KIND']);
    const rows = table(out);
    const row = (name: string, apiVersion: string) =>
      rows.find((r) => r.NAME === name && r.APIVERSION === apiVersion);
    expect(row('pods', 'v1')).toEqual({
      NAME: 'pods',
      SHORTNAMES: 'po',
      APIVERSION: 'v1',
      NAMESPACED: 'true',
      KIND: 'Pod',
    });
    expect(row('namespaces', 'v1')).toEqual({
      NAME: 'namespaces',
      SHORTNAMES: 'ns',
      APIVERSION: 'v1',
      NAMESPACED: 'false',
      KIND: 'Namespace',
    });
    expect(row('deployments', 'apps/v1')).toEqual({
      NAME: 'deployments',
      SHORTNAMES: 'deploy',
      APIVERSION: 'apps/v1',
      NAMESPACED: 'true',
      KIND: 'Deployment',
    });
    expect(row('customresourcedefinitions', 'apiextensions.k8s.io/v1')?.SHORTNAMES).toBe('crd,crds');
    // the group filter narrows discovery to one API group
    const apps = table(await ok('api-resources', '--api-group=apps', '-o', 'wide'));
    expect(apps.map((r) => r.NAME)).toContain('deployments');
    expect(apps.every((r) => r.APIVERSION.startsWith('apps/'))).toBe(true);
  });
});

describe('kubectl get', () => {
  beforeAll(async () => {
    await namespace('get');
    await c.core.createNamespacedPod({
      namespace: 'get',
      body: bound('alpha', { app: 'web', tier: 'front' }),
    });
    await c.core.createNamespacedPod({
      namespace: 'get',
      body: podSpec('beta', { metadata: { name: 'beta', labels: { app: 'web', tier: 'back' } } }),
    });
    await c.core.createNamespacedPod({
      namespace: 'get',
      body: podSpec('gamma', { metadata: { name: 'gamma', labels: { app: 'db' } } }),
    });
  });

  it('prints namespaces with NAME STATUS AGE', async () => {
    const out = await ok('get', 'namespaces');
    expect(headerOf(out)).toEqual(['NAME', 'STATUS', 'AGE']);
    const rows = table(out);
    for (const name of ['default', 'kube-system', 'kube-public', 'kube-node-lease', 'get']) {
      expect(rows.find((r) => r.NAME === name)).toMatchObject({
        STATUS: 'Active',
        AGE: expect.stringMatching(AGE),
      });
    }
  });

  it('prints pods with NAME READY STATUS RESTARTS AGE, by full and short name', async () => {
    const out = await ok('get', 'pods', '-n', 'get');
    expect(headerOf(out)).toEqual(['NAME', 'READY', 'STATUS', 'RESTARTS', 'AGE']);
    expect(table(out)).toEqual(
      ['alpha', 'beta', 'gamma'].map((NAME) => ({
        NAME,
        READY: '0/1',
        STATUS: 'Pending',
        RESTARTS: '0',
        AGE: expect.stringMatching(AGE),
      })),
    );
    expect(table(await ok('get', 'po', '-n', 'get')).map((r) => r.NAME)).toEqual(['alpha', 'beta', 'gamma']);
  });

  it('prints -o json and -o yaml with the stored objects', async () => {
    const list = JSON.parse(await ok('get', 'pods', '-n', 'get', '-o', 'json'));
    expect(list).toMatchObject({ apiVersion: 'v1', kind: 'List' });
    expect(list.items.map((p: k8s.V1Pod) => p.metadata?.name)).toEqual(['alpha', 'beta', 'gamma']);
    expect(list.items[0]).toMatchObject({
      apiVersion: 'v1',
      kind: 'Pod',
      spec: { nodeName: 'node-a' },
      status: { phase: 'Pending' },
    });
    const one = YAML.parse(await ok('get', 'pod', 'beta', '-n', 'get', '-o', 'yaml'));
    const stored = await c.core.readNamespacedPod({ name: 'beta', namespace: 'get' });
    expect(one).toMatchObject({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        name: 'beta',
        namespace: 'get',
        uid: stored.metadata?.uid,
        labels: { app: 'web', tier: 'back' },
      },
    });
    expect(one.metadata.resourceVersion).toBe(stored.metadata?.resourceVersion);
  });

  it('prints -o wide with the node column', async () => {
    const out = await ok('get', 'pods', '-n', 'get', '-o', 'wide');
    expect(headerOf(out)).toEqual([
      'NAME',
      'READY',
      'STATUS',
      'RESTARTS',
      'AGE',
      'IP',
      'NODE',
      'NOMINATED NODE',
      'READINESS GATES',
    ]);
    const rows = table(out);
    expect(rows.find((r) => r.NAME === 'alpha')).toMatchObject({
      IP: '<none>',
      NODE: 'node-a',
      'NOMINATED NODE': '<none>',
      'READINESS GATES': '<none>',
    });
    expect(rows.find((r) => r.NAME === 'beta')?.NODE).toBe('<none>');
  });

  it('filters with -l and --field-selector', async () => {
    const names = async (...args: string[]) =>
      table(await ok('get', 'pods', '-n', 'get', ...args)).map((r) => r.NAME);
    expect(await names('-l', 'app=web')).toEqual(['alpha', 'beta']);
    expect(await names('-l', 'app in (web,db),tier!=front')).toEqual(['beta', 'gamma']);
    expect(await names('-l', '!tier')).toEqual(['gamma']);
    expect(await names('--field-selector', 'spec.nodeName=node-a')).toEqual(['alpha']);
    expect(
      await names('--field-selector', 'metadata.name!=alpha,status.phase=Pending', '-l', 'app=web'),
    ).toEqual(['beta']);
    // an empty match is not an error: kubectl says so on stderr and exits 0
    expect(await kubectl('get', 'pods', '-n', 'get', '-l', 'app=none')).toEqual({
      code: 0,
      stdout: '',
      stderr: 'No resources found in get namespace.\n',
    });
  });

  it('lists across namespaces with -A and a NAMESPACE column', async () => {
    const out = await ok('get', 'pods', '-A', '-l', 'app=web');
    expect(headerOf(out)).toEqual(['NAMESPACE', 'NAME', 'READY', 'STATUS', 'RESTARTS', 'AGE']);
    expect(
      table(out)
        .filter((r) => r.NAMESPACE === 'get')
        .map((r) => r.NAME),
    ).toEqual(['alpha', 'beta']);
  });
});

describe('kubectl create, apply and delete from files', () => {
  const app = () => [
    {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'settings', namespace: 'files' },
      data: { mode: 'fast' },
    },
    { ...deployment('web'), metadata: { name: 'web', namespace: 'files', labels: { app: 'web' } } },
    { ...podSpec('loose'), metadata: { name: 'loose', namespace: 'files', labels: { app: 'loose' } } },
  ];

  it('creates every document of a multi-document YAML, and refuses to create them twice', async () => {
    const file = await yamlFile(
      'create.yaml',
      { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'files' } },
      ...app(),
    );
    expect(await kubectl('create', '-f', file)).toEqual({
      code: 0,
      stdout:
        'namespace/files created\nconfigmap/settings created\ndeployment.apps/web created\npod/loose created\n',
      stderr: '',
    });
    expect((await c.core.readNamespacedConfigMap({ name: 'settings', namespace: 'files' })).data).toEqual({
      mode: 'fast',
    });
    expect((await c.apps.readNamespacedDeployment({ name: 'web', namespace: 'files' })).spec?.replicas).toBe(
      1,
    );
    const again = await kubectl('create', '-f', file);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain(
      `Error from server (AlreadyExists): error when creating "${file}": configmaps "settings" already exists`,
    );
    expect(again.stderr).toContain(
      `Error from server (AlreadyExists): error when creating "${file}": deployments.apps "web" already exists`,
    );
  });

  it('deletes every document with delete -f', async () => {
    // the Namespace is left out: deleting it first would empty it before the other deletes run
    const file = await yamlFile('app.yaml', ...app());
    expect(await kubectl('delete', '-f', file)).toEqual({
      code: 0,
      stdout: 'configmap "settings" deleted\ndeployment.apps "web" deleted\npod "loose" deleted\n',
      stderr: '',
    });
    expect(await kubectl('get', 'all', '-n', 'files')).toMatchObject({
      code: 0,
      stdout: '',
      stderr: 'No resources found in files namespace.\n',
    });
  });

  it('applies: created, unchanged, configured with the change landed, unchanged again', async () => {
    await namespace('apply');
    const v1 = deployment('api', {
      image: 'api:1',
      env: [
        { name: 'A', value: '1' },
        { name: 'B', value: '2' },
      ],
    });
    const file = await yamlFile('apply.yaml', v1);
    expect(await ok('apply', '-n', 'apply', '-f', file)).toBe('deployment.apps/api created\n');
    expect(await ok('apply', '-n', 'apply', '-f', file)).toBe('deployment.apps/api unchanged\n');

    // a new image and a dropped env var: apply's three-way merge must remove B
    const v2 = deployment('api', { image: 'api:2', env: [{ name: 'A', value: '1' }] });
    await yamlFile('apply.yaml', v2);
    expect(await ok('apply', '-n', 'apply', '-f', file)).toBe('deployment.apps/api configured\n');
    const live = await c.apps.readNamespacedDeployment({ name: 'api', namespace: 'apply' });
    expect(live.spec?.template.spec?.containers[0]).toMatchObject({
      image: 'api:2',
      env: [{ name: 'A', value: '1' }],
    });
    expect(live.metadata?.generation).toBe(2);
    const lastApplied = JSON.parse(
      live.metadata?.annotations?.['kubectl.kubernetes.io/last-applied-configuration'] ?? 'null',
    );
    expect(lastApplied).toMatchObject({
      kind: 'Deployment',
      metadata: { name: 'api', namespace: 'apply' },
      spec: v2.spec,
    });
    expect(await ok('apply', '-n', 'apply', '-f', file)).toBe('deployment.apps/api unchanged\n');
  });

  it('deletes everything of a kind with delete --all', async () => {
    await namespace('bulk');
    for (const name of ['p1', 'p2', 'p3'])
      await c.core.createNamespacedPod({ namespace: 'bulk', body: podSpec(name) });
    await c.core.createNamespacedConfigMap({ namespace: 'bulk', body: { metadata: { name: 'stays' } } });
    expect(await kubectl('delete', 'pods', '--all', '-n', 'bulk')).toEqual({
      code: 0,
      stdout: 'pod "p1" deleted\npod "p2" deleted\npod "p3" deleted\n',
      stderr: '',
    });
    expect(await kubectl('get', 'pods', '-n', 'bulk')).toEqual({
      code: 0,
      stdout: '',
      stderr: 'No resources found in bulk namespace.\n',
    });
    expect(table(await ok('get', 'configmaps', '-n', 'bulk')).map((r) => r.NAME)).toContain('stays');
  });
});

describe('kubectl label, annotate and patch', () => {
  beforeAll(async () => {
    await namespace('edit');
    await c.core.createNamespacedPod({ namespace: 'edit', body: podSpec('lp') });
  });
  const labels = async () =>
    (await c.core.readNamespacedPod({ name: 'lp', namespace: 'edit' })).metadata?.labels;
  const annotations = async () =>
    (await c.core.readNamespacedPod({ name: 'lp', namespace: 'edit' })).metadata?.annotations;

  it('adds a label, refuses to overwrite without --overwrite, overwrites, removes with key-', async () => {
    expect(await ok('label', '-n', 'edit', 'pod', 'lp', 'env=dev')).toBe('pod/lp labeled\n');
    expect(await labels()).toEqual({ app: 'web', env: 'dev' });
    expect(await kubectl('label', '-n', 'edit', 'pod', 'lp', 'env=prod')).toEqual({
      code: 1,
      stdout: '',
      stderr: "error: 'env' already has a value (dev), and --overwrite is false\n",
    });
    expect(await ok('label', '-n', 'edit', 'pod', 'lp', 'env=prod', '--overwrite')).toBe('pod/lp labeled\n');
    expect((await labels())?.env).toBe('prod');
    expect(table(await ok('get', 'pod', 'lp', '-n', 'edit', '--show-labels'))[0].LABELS).toBe(
      'app=web,env=prod',
    );
    expect(await ok('label', '-n', 'edit', 'pod', 'lp', 'env-')).toBe('pod/lp labeled\n');
    expect(await labels()).toEqual({ app: 'web' });
    // selecting by label works for label too
    expect(await ok('label', '-n', 'edit', 'pods', '-l', 'app=web', 'tier=front')).toBe('pod/lp labeled\n');
    expect(await labels()).toEqual({ app: 'web', tier: 'front' });
  });

  it('annotates the same way', async () => {
    expect(await ok('annotate', '-n', 'edit', 'pod', 'lp', 'note=hello world')).toBe('pod/lp annotated\n');
    expect((await annotations())?.note).toBe('hello world');
    expect(await kubectl('annotate', '-n', 'edit', 'pod', 'lp', 'note=again')).toEqual({
      code: 1,
      stdout: '',
      stderr:
        "error: --overwrite is false but found the following declared annotation(s): 'note' already has a value (hello world)\n",
    });
    expect(await ok('annotate', '-n', 'edit', 'pod', 'lp', 'note=again', '--overwrite')).toBe(
      'pod/lp annotated\n',
    );
    expect((await annotations())?.note).toBe('again');
    expect(await ok('annotate', '-n', 'edit', 'pod', 'lp', 'note-')).toBe('pod/lp annotated\n');
    // the last annotation gone: the server drops the empty map, as kube-apiserver does
    expect(await annotations()).toBeUndefined();
  });

  it('patches with strategic merge (default), merge and JSON patch', async () => {
    await c.apps.createNamespacedDeployment({ namespace: 'edit', body: deployment('pd') });
    const live = () => c.apps.readNamespacedDeployment({ name: 'pd', namespace: 'edit' });
    // strategic merge: containers merge by name, so a new one is added, not a replacement list
    const sidecar = JSON.stringify({
      spec: { template: { spec: { containers: [{ name: 'sidecar', image: 'busybox' }] } } },
    });
    expect(await ok('patch', '-n', 'edit', 'deployment', 'pd', '-p', sidecar)).toBe(
      'deployment.apps/pd patched\n',
    );
    // the items the patch names come first, as on a real cluster
    expect((await live()).spec?.template.spec?.containers.map((x) => x.name)).toEqual(['sidecar', 'main']);
    expect(
      await ok('patch', '-n', 'edit', 'deployment', 'pd', '--type=merge', '-p', '{"spec":{"replicas":5}}'),
    ).toBe('deployment.apps/pd patched\n');
    expect((await live()).spec?.replicas).toBe(5);
    const jsonPatch =
      '[{"op":"replace","path":"/spec/replicas","value":3},{"op":"add","path":"/metadata/labels/patched","value":"yes"}]';
    expect(await ok('patch', '-n', 'edit', 'deployment', 'pd', '--type=json', '-p', jsonPatch)).toBe(
      'deployment.apps/pd patched\n',
    );
    expect((await live()).spec?.replicas).toBe(3);
    expect((await live()).metadata?.labels).toEqual({ app: 'pd', patched: 'yes' });
    // an identical patch changes nothing, and kubectl can tell
    expect(
      await ok('patch', '-n', 'edit', 'deployment', 'pd', '--type=merge', '-p', '{"spec":{"replicas":3}}'),
    ).toBe('deployment.apps/pd patched (no change)\n');
  });
});

describe('kubectl delete of pods', () => {
  const FORCE_WARNING =
    'warning: Immediate deletion does not wait for confirmation that the running resource has been terminated. The resource may continue to run on the cluster indefinitely.\n';

  it('leaves a scheduled pod Terminating until a forced deletion removes it', async () => {
    await namespace('graceful');
    await c.core.createNamespacedPod({ namespace: 'graceful', body: bound('g') });
    // --wait=false: nothing (no kubelet) finishes the graceful deletion, so kubectl would wait for good
    expect(await kubectl('delete', 'pod', 'g', '-n', 'graceful', '--wait=false')).toEqual({
      code: 0,
      stdout: 'pod "g" deleted\n',
      stderr: '',
    });
    const row = table(await ok('get', 'pod', 'g', '-n', 'graceful'))[0];
    expect(row).toMatchObject({ NAME: 'g', READY: '0/1', STATUS: 'Terminating' });
    expect(
      await ok('get', 'pod', 'g', '-n', 'graceful', '-o', 'jsonpath={.metadata.deletionGracePeriodSeconds}'),
    ).toBe('30');
    // deleting again with the same grace period does not shorten it: still there
    await ok('delete', 'pod', 'g', '-n', 'graceful', '--wait=false');
    expect(table(await ok('get', 'pod', 'g', '-n', 'graceful'))[0].STATUS).toBe('Terminating');

    expect(await kubectl('delete', 'pod', 'g', '-n', 'graceful', '--grace-period=0', '--force')).toEqual({
      code: 0,
      stdout: 'pod "g" force deleted\n',
      stderr: FORCE_WARNING,
    });
    expect(await kubectl('get', 'pod', 'g', '-n', 'graceful')).toEqual({
      code: 1,
      stdout: '',
      stderr: 'Error from server (NotFound): pods "g" not found\n',
    });
  });

  it('force-deletes a running pod at once, with the warning', async () => {
    await c.core.createNamespacedPod({ namespace: 'graceful', body: bound('x') });
    expect(await kubectl('delete', 'pod', 'x', '-n', 'graceful', '--force', '--grace-period=0')).toEqual({
      code: 0,
      stdout: 'pod "x" force deleted\n',
      stderr: FORCE_WARNING,
    });
    expect(await kubectl('get', 'pod', 'x', '-n', 'graceful')).toMatchObject({ code: 1 });
  });
});

describe('kubectl get -w', () => {
  it('prints live events as they happen', async () => {
    await namespace('watch');
    await c.core.createNamespacedPod({ namespace: 'watch', body: podSpec('seed') });
    const plain = start(['get', 'pods', '-n', 'watch', '-w']);
    const typed = start(['get', 'pods', '-n', 'watch', '-w', '--output-watch-events']);
    const lines = (out: Result) =>
      out.stdout
        .split('\n')
        .filter((l) => l.trim())
        .map((l) => l.trim().split(/\s+/));
    try {
      // both have listed (and so will see every later change) once the seed row is printed
      await eventually(() => lines(plain.out).some((l) => l[0] === 'seed'), 'plain watch to list');
      await eventually(() => lines(typed.out).some((l) => l[1] === 'seed'), 'typed watch to list');

      await c.core.createNamespacedPod({ namespace: 'watch', body: bound('w1') });
      await ok('label', '-n', 'watch', 'pod', 'w1', 'color=blue');
      await ok('delete', '-n', 'watch', 'pod', 'w1', '--wait=false');
      await ok('delete', '-n', 'watch', 'pod', 'w1', '--grace-period=0', '--force');
      await c.core.deleteNamespacedPod({ name: 'seed', namespace: 'watch' });
      await eventually(
        () => lines(typed.out).some((l) => l[0] === 'DELETED' && l[1] === 'seed'),
        'DELETED seed in the typed watch',
      );
      await eventually(
        () => lines(plain.out).filter((l) => l[0] === 'seed').length >= 2,
        'seed deletion in the plain watch',
      );

      expect(lines(typed.out)[0]).toEqual(['EVENT', 'NAME', 'READY', 'STATUS', 'RESTARTS', 'AGE']);
      const w1 = lines(typed.out)
        .filter((l) => l[1] === 'w1')
        .map((l) => `${l[0]} ${l[3]}`);
      // created, labeled, gracefully deleted ... and gone. kube-apiserver writes the cut-to-0
      // grace period (a MODIFIED) before the DELETED; this server skips that write, so
      // only the ends are pinned here.
      expect(w1.slice(0, 3)).toEqual(['ADDED Pending', 'MODIFIED Pending', 'MODIFIED Terminating']);
      expect(w1.at(-1)).toBe('DELETED Terminating');
      const seed = lines(typed.out)
        .filter((l) => l[1] === 'seed')
        .map((l) => l[0]);
      expect([seed[0], seed.at(-1)]).toEqual(['ADDED', 'DELETED']);

      expect(lines(plain.out)[0]).toEqual(['NAME', 'READY', 'STATUS', 'RESTARTS', 'AGE']);
      const plainW1 = lines(plain.out)
        .filter((l) => l[0] === 'w1')
        .map((l) => l[2]);
      expect(plainW1.slice(0, 3)).toEqual(['Pending', 'Pending', 'Terminating']);
      expect(plainW1.at(-1)).toBe('Terminating');
      expect(plainW1.length).toBeGreaterThanOrEqual(4);
      expect(plain.out.code).toBeNull(); // still watching until we stop it
    } finally {
      plain.stop();
      typed.stop();
    }
  });
});

describe('kubectl with a CustomResourceDefinition', () => {
  const crd = {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'gadgets.example.com' },
    spec: {
      group: 'example.com',
      scope: 'Namespaced',
      names: { plural: 'gadgets', singular: 'gadget', kind: 'Gadget', shortNames: ['gd'] },
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          schema: {
            openAPIV3Schema: {
              type: 'object',
              properties: {
                spec: {
                  type: 'object',
                  properties: {
                    size: { type: 'integer', minimum: 1 },
                    color: { type: 'string' },
                    shape: { type: 'string' },
                  },
                },
              },
            },
          },
          additionalPrinterColumns: [
            { name: 'Size', type: 'integer', jsonPath: '.spec.size' },
            { name: 'Color', type: 'string', jsonPath: '.spec.color' },
            { name: 'Shape', type: 'string', jsonPath: '.spec.shape', priority: 1 },
            { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
          ],
        },
      ],
    },
  };
  const gadget = (name: string, spec: object) => ({
    apiVersion: 'example.com/v1',
    kind: 'Gadget',
    metadata: { name },
    spec,
  });

  it('applies the CRD, discovers it, creates and lists custom resources with printer columns', async () => {
    await namespace('crd');
    expect(await ok('apply', '-f', await yamlFile('crd.yaml', crd))).toBe(
      'customresourcedefinition.apiextensions.k8s.io/gadgets.example.com created\n',
    );
    // api-resources ignores the discovery cache, so it sees the new group as soon as it is served
    const row = await eventually(
      async () => table(await ok('api-resources')).find((r) => r.NAME === 'gadgets'),
      'gadgets in api-resources',
    );
    expect(row).toEqual({
      NAME: 'gadgets',
      SHORTNAMES: 'gd',
      APIVERSION: 'example.com/v1',
      NAMESPACED: 'true',
      KIND: 'Gadget',
    });
    expect(table(await ok('get', 'crd')).find((r) => r.NAME === 'gadgets.example.com')).toMatchObject({
      'CREATED AT': expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });

    const file = await yamlFile(
      'gadgets.yaml',
      gadget('g1', { size: 3, color: 'red', shape: 'round' }),
      gadget('g2', { size: 5, color: 'blue' }),
    );
    expect(await ok('create', '-n', 'crd', '-f', file)).toBe(
      'gadget.example.com/g1 created\ngadget.example.com/g2 created\n',
    );

    const out = await ok('get', 'gd', '-n', 'crd');
    expect(headerOf(out)).toEqual(['NAME', 'SIZE', 'COLOR', 'AGE']);
    expect(table(out)).toEqual([
      { NAME: 'g1', SIZE: '3', COLOR: 'red', AGE: expect.stringMatching(AGE) },
      { NAME: 'g2', SIZE: '5', COLOR: 'blue', AGE: expect.stringMatching(AGE) },
    ]);
    // priority > 0 columns only show with -o wide; a missing value is a null cell (as the
    // real apiextensions server sends), which kubectl 1.20 prints blank
    const wide = await ok('get', 'gadgets.example.com', '-n', 'crd', '-o', 'wide');
    expect(headerOf(wide)).toEqual(['NAME', 'SIZE', 'COLOR', 'SHAPE', 'AGE']);
    expect(table(wide).map((r) => r.SHAPE)).toEqual(['round', '']);
    const g1 = JSON.parse(await ok('get', 'gadget', 'g1', '-n', 'crd', '-o', 'json'));
    expect(g1).toMatchObject({
      apiVersion: 'example.com/v1',
      kind: 'Gadget',
      metadata: { name: 'g1', namespace: 'crd' },
      spec: { size: 3 },
    });

    // the CRD schema is enforced: a 422 that kubectl prints as "is invalid"
    const bad = await kubectl(
      'create',
      '-n',
      'crd',
      '-f',
      await yamlFile('bad-gadget.yaml', gadget('bad', { size: 0 })),
    );
    expect(bad).toEqual({
      code: 1,
      stdout: '',
      stderr:
        'The Gadget "bad" is invalid: spec.size: Invalid value: 0: spec.size in body should be greater than or equal to 1\n',
    });

    expect(await ok('delete', '-n', 'crd', '-f', file)).toBe(
      'gadget.example.com "g1" deleted\ngadget.example.com "g2" deleted\n',
    );
    expect(await kubectl('get', 'gd', '-n', 'crd')).toEqual({
      code: 0,
      stdout: '',
      stderr: 'No resources found in crd namespace.\n',
    });
  });
});

describe('kubectl scale', () => {
  it('scales a deployment through the scale subresource', async () => {
    await namespace('scale');
    await c.apps.createNamespacedDeployment({ namespace: 'scale', body: deployment('web') });
    // -v=6 logs each request, which shows kubectl used /scale rather than the deployment
    const r = await kubectl('scale', 'deployment', 'web', '-n', 'scale', '--replicas=4', '-v=6');
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('deployment.apps/web scaled\n');
    expect(r.stderr).toMatch(
      /PATCH https:\/\/127\.0\.0\.1:\d+\/apis\/apps\/v1\/namespaces\/scale\/deployments\/web\/scale 200 OK/,
    );
    expect((await c.apps.readNamespacedDeployment({ name: 'web', namespace: 'scale' })).spec?.replicas).toBe(
      4,
    );
    expect(table(await ok('get', 'deploy', 'web', '-n', 'scale'))[0]).toMatchObject({
      NAME: 'web',
      READY: '0/4',
    });

    // --current-replicas reads the Scale first and refuses on a mismatch
    expect(
      await kubectl('scale', 'deployment', 'web', '-n', 'scale', '--replicas=1', '--current-replicas=3'),
    ).toEqual({
      code: 1,
      stdout: '',
      stderr: 'error: Expected replicas to be 3, was 4\n',
    });
    expect(
      await ok('scale', 'deployment', 'web', '-n', 'scale', '--replicas=2', '--current-replicas=4'),
    ).toBe('deployment.apps/web scaled\n');
    const scale = await raw(c, 'GET', '/apis/apps/v1/namespaces/scale/deployments/web/scale');
    expect(scale.body).toMatchObject({ kind: 'Scale', spec: { replicas: 2 } });
  });
});

describe('kubectl server-side dry run', () => {
  const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'dry' }, data: { a: '1' } };

  it('stores nothing for a dryRun=All create sent by kubectl', async () => {
    await namespace('dry');
    // --raw sends the file as the body unchanged, so it has to be JSON
    const file = join(dir, 'dry.json');
    await writeFile(file, JSON.stringify(cm));
    const echoed = JSON.parse(
      await ok('create', '--raw', '/api/v1/namespaces/dry/configmaps?dryRun=All', '-f', file),
    );
    expect(echoed).toMatchObject({
      kind: 'ConfigMap',
      metadata: { name: 'dry', namespace: 'dry' },
      data: { a: '1' },
    });
    expect(await kubectl('get', 'configmap', 'dry', '-n', 'dry')).toEqual({
      code: 1,
      stdout: '',
      stderr: 'Error from server (NotFound): configmaps "dry" not found\n',
    });
  });

  // kubectl 1.20 sends dryRun only for kinds whose PATCH operation in /openapi/v2 lists it
  it('creates and deletes nothing with --dry-run=server', async () => {
    const file = await yamlFile('dry.yaml', cm);
    expect(await kubectl('create', '-n', 'dry', '-f', file, '--dry-run=server')).toEqual({
      code: 0,
      stdout: 'configmap/dry created (server dry run)\n',
      stderr: '',
    });
    expect(await kubectl('get', 'configmap', 'dry', '-n', 'dry')).toMatchObject({ code: 1 });
    expect(await kubectl('create', '-n', 'dry', '-f', file)).toMatchObject({ code: 0 });
    expect(await kubectl('delete', '-n', 'dry', 'configmap', 'dry', '--dry-run=server')).toEqual({
      code: 0,
      stdout: 'configmap "dry" deleted (server dry run)\n',
      stderr: '',
    });
    expect(await kubectl('get', 'configmap', 'dry', '-n', 'dry')).toMatchObject({ code: 0 });
  });
});

describe('kubectl error output', () => {
  it('prints NotFound for a missing object', async () => {
    const notFound = { code: 1, stdout: '', stderr: 'Error from server (NotFound): pods "nope" not found\n' };
    expect(await kubectl('get', 'pod', 'nope')).toEqual(notFound);
    expect(await kubectl('delete', 'pod', 'nope')).toEqual(notFound);
    expect(await kubectl('label', 'pod', 'nope', 'a=b')).toEqual(notFound);
    expect(await kubectl('get', 'gizmos')).toEqual({
      code: 1,
      stdout: '',
      stderr: 'error: the server doesn\'t have a resource type "gizmos"\n',
    });
  });

  it('prints the 422 message for an invalid object and stores nothing', async () => {
    const badName = await kubectl('create', '-f', await yamlFile('bad-name.yaml', podSpec('Bad_Name')));
    expect(badName.code).toBe(1);
    expect(badName.stdout).toBe('');
    expect(badName.stderr).toMatch(
      /^The Pod "Bad_Name" is invalid: metadata\.name: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters/,
    );
    const empty = await kubectl(
      'create',
      '-f',
      await yamlFile('no-containers.yaml', {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'empty' },
        spec: { containers: [] },
      }),
    );
    expect(empty).toEqual({
      code: 1,
      stdout: '',
      stderr: 'The Pod "empty" is invalid: spec.containers: Required value\n',
    });
    expect(await kubectl('get', 'pod', 'empty')).toMatchObject({ code: 1 });
  });
});
