// Shared helpers for the e2e specs (not a spec itself). The specs share one server and one
// embedded cluster (see playwright.config.ts), so each spec uses its own nodes and heals what
// it breaks. Files are read at call time: the server writes them when it starts, after the
// test files have been loaded.
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import * as k8s from '@kubernetes/client-node';
import { type APIRequestContext, expect, type Page } from '@playwright/test';

const ROOT = resolve(import.meta.dirname, '..');
const STATE_DIR = resolve(ROOT, '.palisade', 'e2e');
export const E2E_STATE_DIR = STATE_DIR;
/** the signed-in browser state the setup project saves for the specs */
export const E2E_STORAGE = resolve(STATE_DIR, 'storage-state.json');
/** the e2e embedded cluster's kubeconfig (written by the main console when it starts) */
export const E2E_KUBECONFIG = resolve(STATE_DIR, 'kubeconfig');

/**
 * A test's time budget. CI runs this lane beside four integration shards on 2 cores (load 15-17
 * was seen), where a test needs up to three times what it needs on an idle machine. A budget
 * bounds a hang; it is not a wait, so a larger one costs nothing when the test passes.
 */
export const SLOWDOWN = Number(process.env.PALISADE_E2E_SLOWDOWN ?? (process.env.CI ? 3 : 1));
export const budget = (ms: number): number => ms * SLOWDOWN;

export interface SecondConsole {
  url: string;
  /** the one-time sign-in link it printed (loopback, no identity provider) */
  link: string;
  stop(): void;
}

/**
 * Another console process (port 0, 127.0.0.1) with its own command line, for specs that need a
 * differently configured server; resolves once it prints its URL.
 */
export async function startSecondConsole(
  args: string[],
  opts: { port?: number; link?: boolean } = {},
): Promise<SecondConsole> {
  const wantLink = opts.link ?? true;
  const port = String(opts.port ?? 0);
  const child = spawn(process.execPath, ['--import', 'tsx', 'server/main.ts', '--port', port, ...args], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const [url, link] = await new Promise<[string, string]>((ok, fail) => {
    const timer = setTimeout(() => fail(new Error(`the second console did not start:\n${out}`)), 60_000);
    const read = (chunk: Buffer) => {
      out += chunk.toString();
      const m = out.match(/Palisade console: (http:\/\/\S+)/);
      const l = out.match(/one-time link: (http:\/\/\S+)/);
      if (m && (l || !wantLink)) {
        clearTimeout(timer);
        ok([m[1], l?.[1] ?? '']);
      }
    };
    child.stdout.on('data', read);
    child.stderr.on('data', read);
    child.on('exit', (code) => fail(new Error(`the second console exited (${code}):\n${out}`)));
  });
  return { url, link, stop: () => child.kill('SIGTERM') };
}

/** Nodes each spec may break, so that no spec touches another one's node. */
export const RESERVED = {
  reconnect: 'c2-2',
  screenshots: 'c1-1',
  protected: 'b2-2',
  /** warning.spec.ts: its own FencePolicy covers this node only */
  warning: 'c2-1',
  /** history.spec.ts: its fault is looked for on the timeline, in Audit and in replay */
  history: 'c1-2',
} as const;

/**
 * Hold a node across Playwright workers (one process each) while `fn` breaks and heals it: a
 * directory made atomically under the e2e state directory, with the holder's pid so that a lock
 * left by a worker that died is taken over. Specs that share a reserved node take it this way.
 */
export async function withNode<T>(node: string, fn: () => Promise<T>): Promise<T> {
  const release = await holdNode(node);
  try {
    return await fn();
  } finally {
    release();
  }
}

const held = new Set<string>();

/** Take the node's lock (see withNode); the returned function, or releaseHeldNodes, gives it back. */
export async function holdNode(node: string): Promise<() => void> {
  const dir = resolve(STATE_DIR, 'locks', node);
  mkdirSync(resolve(STATE_DIR, 'locks'), { recursive: true });
  await expect(async () => {
    try {
      mkdirSync(dir);
    } catch {
      if (holderAlive(dir)) throw new Error(`node ${node} is held by another spec`);
      rmSync(dir, { recursive: true, force: true });
      mkdirSync(dir);
    }
    writeFileSync(resolve(dir, 'pid'), String(process.pid));
  }).toPass({ timeout: 240_000, intervals: [500, 1000, 2000] });
  held.add(dir);
  return () => {
    held.delete(dir);
    rmSync(dir, { recursive: true, force: true });
  };
}

/** For test.afterEach: give back every node lock this worker holds. */
export function releaseHeldNodes(): void {
  for (const dir of held) rmSync(dir, { recursive: true, force: true });
  held.clear();
}

function holderAlive(dir: string): boolean {
  let pid = Number.NaN;
  try {
    pid = Number(readFileSync(resolve(dir, 'pid'), 'utf8'));
  } catch {
    return true; // made a moment ago, the pid not written yet
  }
  if (pid === process.pid) return false; // a worker runs one test at a time: left by an earlier one
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

export function infraEndpoint(): { url: string; token: string } {
  return JSON.parse(readFileSync(resolve(STATE_DIR, 'infra.json'), 'utf8'));
}

/** POST /v1/nodes/<node>/<verb> on the embedded cluster's infrastructure API. */
export async function infra(node: string, verb: 'partition' | 'heal'): Promise<void> {
  const { url, token } = infraEndpoint();
  const res = await fetch(`${url}/v1/nodes/${encodeURIComponent(node)}/${verb}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: '{}',
  });
  if (!res.ok) throw new Error(`infra ${verb} ${node}: ${res.status} ${await res.text()}`);
}

export function core(): k8s.CoreV1Api {
  const kc = new k8s.KubeConfig();
  kc.loadFromFile(resolve(STATE_DIR, 'kubeconfig'));
  return kc.makeApiClient(k8s.CoreV1Api);
}

/** The node's Ready condition status in the Kubernetes API: 'True', 'False' or 'Unknown'. */
export async function nodeReady(api: k8s.CoreV1Api, name: string): Promise<string | undefined> {
  const node = await api.readNode({ name });
  return node.status?.conditions?.find((c) => c.type === 'Ready')?.status;
}

/** The embedded cluster's id, from clusters.list. */
export async function clusterId(request: APIRequestContext): Promise<string> {
  const res = await request.get('/api/trpc/clusters.list');
  expect(res.ok()).toBeTruthy();
  const body = await res.json();
  const list: { id: string; embedded: boolean }[] = body.result?.data?.json ?? body.result?.data;
  const c = list.find((x) => x.embedded) ?? list[0];
  return c.id;
}

export const tile = (page: Page, node: string) => page.getByTestId(`node-tile-${node}`);

/** Seconds shown by a heartbeat age like "12s" or "1m05s". */
export function ageSeconds(text: string | null): number {
  const m = (text ?? '').trim().match(/^(?:(\d+)m)?(\d+)s$/);
  if (!m) return Number.NaN;
  return Number(m[1] ?? 0) * 60 + Number(m[2]);
}

/** Heal a node and wait until the API says it is Ready again. */
export async function healAndWait(node: string): Promise<void> {
  await infra(node, 'heal');
  const api = core();
  await expect(async () => expect(await nodeReady(api, node)).toBe('True')).toPass({ timeout: 30_000 });
}

/** A Running, Ready storefront pod on a Ready node no other spec breaks. */
export async function runningStorefrontPod(api: k8s.CoreV1Api): Promise<k8s.V1Pod> {
  let pod: k8s.V1Pod | undefined;
  await expect(async () => {
    const nodes = await api.listNode();
    const readyNodes = new Set(
      nodes.items
        .filter((n) => n.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'))
        .map((n) => n.metadata!.name!)
        .filter((n) => !Object.values<string>(RESERVED).includes(n)),
    );
    const pods = await api.listNamespacedPod({ namespace: 'shop' });
    pod = pods.items.find(
      (p) =>
        p.metadata?.name?.startsWith('storefront-') &&
        !p.metadata.deletionTimestamp &&
        p.status?.phase === 'Running' &&
        p.status.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') &&
        readyNodes.has(p.spec?.nodeName ?? ''),
    );
    expect(pod).toBeDefined();
  }).toPass({ timeout: 30_000 });
  return pod!;
}

/** Waits until the console listens for its keys: the server-rendered page is visible before
 * hydration, and a key pressed then is lost (a11y's '?' failed so in CI at load). */
export async function keysReady(page: Page): Promise<void> {
  await expect(page.locator('[data-keys="on"]')).toHaveCount(1, { timeout: 30_000 });
}

/**
 * A Node no kubelet runs, unhealthy from the start (Ready=Unknown), tainted so nothing schedules
 * there: an outage without touching the demo cluster's real nodes. Delete it with deleteFakeNode.
 */
export async function fakeDownNode(name: string, labels: Record<string, string> = {}): Promise<void> {
  await createFakeNode(
    core(),
    name,
    { labels, unschedulable: true },
    {
      status: 'Unknown',
      reason: 'NodeStatusUnknown',
      message: 'e2e: no kubelet runs here',
    },
  );
}

/**
 * A Node with the fake taint (nothing the scheduler places lands there) and the Ready condition
 * given, written until it takes (controllers write the new node too: read, change, write).
 */
async function createFakeNode(
  api: k8s.CoreV1Api,
  name: string,
  o: { labels?: Record<string, string>; unschedulable: boolean },
  ready: { status: string; reason: string; message?: string },
  status: Partial<k8s.V1NodeStatus> = {},
): Promise<void> {
  await api.createNode({
    body: {
      metadata: { name, labels: { 'kubernetes.io/hostname': name, ...o.labels } },
      spec: {
        unschedulable: o.unschedulable,
        taints: [{ key: 'e2e.palisade.dev/fake', effect: 'NoSchedule' }],
      },
    },
  });
  await expect(async () => {
    const node = await api.readNode({ name });
    const now = new Date();
    node.status = {
      ...node.status,
      conditions: [{ type: 'Ready', ...ready, lastHeartbeatTime: now, lastTransitionTime: now }],
      ...status,
    };
    await api.replaceNodeStatus({ name, body: node });
  }).toPass({ timeout: 15_000 });
}

export async function deleteFakeNode(name: string): Promise<void> {
  await core()
    .deleteNode({ name })
    .catch(() => undefined);
}

/**
 * A Node no kubelet runs, kept Ready while the test needs it (its Lease renewed every 2 s), tainted
 * so that nothing the scheduler places lands there; `inUse` fills status.volumesInUse. Cordoned
 * unless `schedulable`. The returned function stops the renewal and deletes the Node and its Lease.
 */
export async function fakeReadyNode(
  name: string,
  inUse: string[] = [],
  o: { schedulable?: boolean; labels?: Record<string, string> } = {},
): Promise<() => Promise<void>> {
  const kc = new k8s.KubeConfig();
  kc.loadFromFile(E2E_KUBECONFIG);
  const api = kc.makeApiClient(k8s.CoreV1Api);
  const coordination = kc.makeApiClient(k8s.CoordinationV1Api);
  const lease = () => ({
    metadata: { name, namespace: 'kube-node-lease' },
    spec: { holderIdentity: name, leaseDurationSeconds: 40, renewTime: new k8s.V1MicroTime() },
  });
  await coordination.deleteNamespacedLease({ namespace: 'kube-node-lease', name }).catch(() => undefined);
  await coordination.createNamespacedLease({ namespace: 'kube-node-lease', body: lease() as k8s.V1Lease });
  // nothing may land on it: no kubelet runs there
  await createFakeNode(
    api,
    name,
    { labels: o.labels, unschedulable: !o.schedulable },
    { status: 'True', reason: 'KubeletReady' },
    { volumesInUse: inUse },
  );
  const renew = setInterval(async () => {
    const l = await coordination
      .readNamespacedLease({ namespace: 'kube-node-lease', name })
      .catch(() => undefined);
    if (!l) return;
    l.spec = { ...l.spec, renewTime: new k8s.V1MicroTime() };
    await coordination
      .replaceNamespacedLease({ namespace: 'kube-node-lease', name, body: l })
      .catch(() => undefined);
  }, 2_000);
  return async () => {
    clearInterval(renew);
    await coordination.deleteNamespacedLease({ namespace: 'kube-node-lease', name }).catch(() => undefined);
    await api.deleteNode({ name }).catch(() => undefined);
  };
}

export interface FencePolicyOptions {
  /** the nodes it covers (a nodeSelector's matchLabels) */
  selects: Record<string, string>;
  /** how long Ready=Unknown must last before a fence */
  unhealthyFor?: string;
  maxUnhealthy: number;
  /** the power agent of the embedded cluster unless given */
  agent?: Record<string, unknown>;
  warningWindow?: string;
  approval?: 'Automatic' | 'Manual';
  timeout?: string;
}

/** A FencePolicy as the specs create it: Ready=Unknown for `unhealthyFor` (1 s) selects a node. */
export function fencePolicy(name: string, o: FencePolicyOptions) {
  return {
    apiVersion: 'palisade.dev/v1alpha1',
    kind: 'FencePolicy',
    metadata: { name },
    spec: {
      nodeSelector: { matchLabels: o.selects },
      unhealthyConditions: [{ type: 'Ready', status: 'Unknown', duration: o.unhealthyFor ?? '1s' }],
      maxUnhealthy: o.maxUnhealthy,
      ...(o.approval ? { approval: o.approval } : {}),
      agent: o.agent ?? { type: 'power', action: 'off' },
      ...(o.warningWindow ? { warningWindow: o.warningWindow } : {}),
      ...(o.timeout ? { timeout: o.timeout } : {}),
    },
  };
}

/** Create it on the e2e cluster. */
export function createFencePolicy(name: string, o: FencePolicyOptions) {
  const kc = new k8s.KubeConfig();
  kc.loadFromFile(E2E_KUBECONFIG);
  return kc.makeApiClient(k8s.CustomObjectsApi).createClusterCustomObject({
    group: 'palisade.dev',
    version: 'v1alpha1',
    plural: 'fencepolicies',
    body: fencePolicy(name, o),
  });
}
