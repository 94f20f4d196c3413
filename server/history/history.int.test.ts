// The incident history against the embedded cluster: a simulated fault from the console, the
// node going Unknown and a fence's steps reach the timeline, the audit and replay; after the
// console restarts on the same store — and after the fault's Event is gone (the Event TTL) — the
// timeline, the audit and replay still have them, and the incident view's trend its samples.
import { join } from 'node:path';
import * as k8s from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FENCE_API } from '../actions/live.js';
import { eventually } from '../../sim/apiserver/test/harness.js';
import { startConsole } from '../console.js';
import { clustersFromKubeconfig } from '../kube/kubeconfig.js';
import { type ClusterAndConsole, startClusterAndConsole } from '../test/consoleHarness.js';
import { tokenOf, trpcClient } from '../test/client.js';

let h: ClusterAndConsole;
let trpc: ReturnType<typeof trpcClient>;
let cluster: string;
const NODE = 'hist-1';
const history = () => ({
  location: { kind: 'pglite' as const, dir: join(h.dir, 'history') },
  retentionMs: 86_400_000,
});

beforeAll(async () => {
  h = await startClusterAndConsole({
    name: 'history',
    rack: 'hist',
    count: 2,
    // the fencing controllers on: the recorder reads NodeFences where they are served
    console: {
      fencing: true,
      history: { location: { kind: 'temporary' }, retentionMs: 86_400_000 },
    },
  });
  // the harness made its directory only now: restart the console on a store inside it
  await h.console.stop();
  h.console = await startConsole({
    clusters: await clustersFromKubeconfig(join(h.dir, 'kubeconfig')),
    ui: false,
    history: history(),
  });
  await Promise.all([...h.console.clusters.values()].map((x) => x.synced()));
  trpc = trpcClient(h.console.url, tokenOf(h.cluster.kc));
  cluster = [...h.console.clusters.keys()][0];
  await h.console.history!.ready;
}, 120_000);

afterAll(async () => {
  await h?.stop();
});

const window = () => ({
  cluster,
  from: new Date(Date.now() - 3_600_000).toISOString(),
  to: new Date(Date.now() + 60_000).toISOString(),
});

describe('the incident history', () => {
  let beforeFault = '';
  let afterUnknown = '';

  it('records a simulated fault, the node going Unknown, and the fault in the audit', async () => {
    beforeFault = new Date().toISOString();
    await eventually(async () => {
      const r = await trpc.history.replay.query({ cluster, at: beforeFault });
      expect(r.nodes.find((n) => n.node === NODE)?.ready).toBe('Ready');
      return true;
    }, 'the node Ready in the history');
    await trpc.infra.act.mutate({ cluster, node: NODE, verb: 'partition' });
    await eventually(
      async () => {
        const { entries } = await trpc.history.timeline.query({ ...window(), q: NODE });
        const kinds = entries.map((e) => `${e.kind}:${e.reason}`);
        expect(kinds).toContain('fault:SimulatedPartition');
        // ...and what the infrastructure itself reports, as it would for a fault from its API or CLI
        expect(kinds).toContain('fault:InfraPartition');
        expect(kinds).toContain('node-condition:Unknown');
        return true;
      },
      'the fault and the Unknown node on the timeline',
      45_000,
    );
    afterUnknown = new Date().toISOString();
    const audit = await trpc.actions.audit.query({ cluster, action: 'simulation' });
    expect(audit.some((r) => r.target.name === NODE && r.what.includes('partition'))).toBe(true);
  }, 60_000);

  it('replays the node: Ready before the fault, Unknown after', async () => {
    const at = async (t: string) =>
      (await trpc.history.replay.query({ cluster, at: t })).nodes.find((n) => n.node === NODE);
    expect((await at(beforeFault))?.ready).toBe('Ready');
    expect(await at(afterUnknown)).toMatchObject({ ready: 'Unknown', fault: { verb: 'partition' } });
  });

  it('records a fence’s steps, and the audit lists them as Palisade’s', async () => {
    const custom = h.cluster.kc.makeApiClient(k8s.CustomObjectsApi);
    const name = `${NODE}-fence`;
    await custom.createClusterCustomObject({
      ...FENCE_API,
      body: {
        apiVersion: 'palisade.dev/v1alpha1',
        kind: 'NodeFence',
        metadata: { name },
        spec: { nodeName: NODE, policy: 'none-such' },
      },
    });
    const t = (s: number) => new Date(Date.now() - 10_000 + s * 1000).toISOString();
    await custom.patchClusterCustomObjectStatus(
      {
        ...FENCE_API,
        name,
        body: {
          status: {
            phase: 'Released',
            steps: [
              { phase: 'Detected', at: t(0), message: `node ${NODE} Unknown` },
              { phase: 'Fenced', at: t(1), message: 'powered off' },
              { phase: 'Released', at: t(2), message: 'pods and volume attachments released' },
            ],
          },
        },
      },
      k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
    );
    await eventually(async () => {
      const audit = await trpc.actions.audit.query({ cluster, action: 'fence' });
      expect(audit.map((r) => r.label)).toEqual(
        expect.arrayContaining(['Fence: Detected', 'Fence: Fenced', 'Fence: Released']),
      );
      expect(audit.every((r) => r.outcome === 'automatic' && r.by === 'palisade')).toBe(true);
      return true;
    }, 'the fence steps in the audit');
  }, 30_000);

  it('exports the incident Palisade declared: the fault, the node and the fence steps, oldest first', async () => {
    const name = await eventually(
      async () => (await trpc.incident.view.query({ cluster })).incident?.name,
      'an Incident declared for the partition',
      30_000,
    );
    const json = await trpc.incident.export.query({ cluster, name, format: 'json' });
    expect(json).toMatchObject({ filename: `${name}.json`, contentType: 'application/json' });
    const x = JSON.parse(json.body) as {
      incident: { name: string };
      timeline: { at: string; kind: string; reason: string }[];
    };
    expect(x.incident.name).toBe(name);
    const seen = x.timeline.map((e) => `${e.kind}:${e.reason}`);
    expect(seen).toEqual(
      expect.arrayContaining([
        'fault:SimulatedPartition',
        'node-condition:Unknown',
        'fence-step:Detected',
        'fence-step:Released',
      ]),
    );
    const times = x.timeline.map((e) => e.at);
    expect(times).toEqual([...times].sort());
    expect(seen.indexOf('fault:SimulatedPartition')).toBeLessThan(seen.indexOf('node-condition:Unknown'));
    const md = await trpc.incident.export.query({ cluster, name, format: 'markdown' });
    expect(md.filename).toBe(`${name}.md`);
    expect(md.body).toMatch(new RegExp(`^# ${name}: `));
    expect(md.body).toContain('| fault | Node hist-1 |');
    await expect(
      trpc.incident.export.query({ cluster, name: 'inc-20000101-000000', format: 'json' }),
    ).rejects.toThrow(/incident inc-20000101-000000 not found/);
    await expect(trpc.incident.export.query({ cluster, name: 'x', format: 'json' })).rejects.toThrow(
      /must be an incident name/,
    );
  }, 60_000);

  it('keeps it all after a restart and after the Event is gone', async () => {
    // the incident view's trend: a sample taken now is in the store
    await h.console.incident.sampleAll();
    const sampled = h.console.incident.samplesOf(cluster).at(-1)!;
    await h.console.stop();
    // the Event TTL: the cluster forgets the fault's Event
    const core = h.cluster.kc.makeApiClient(k8s.CoreV1Api);
    const events = await core.listNamespacedEvent({ namespace: 'default' });
    for (const e of events.items.filter((x) => x.reason === 'SimulatedPartition'))
      await core.deleteNamespacedEvent({ namespace: 'default', name: e.metadata!.name! });
    h.console = await startConsole({
      clusters: await clustersFromKubeconfig(join(h.dir, 'kubeconfig')),
      ui: false,
      history: history(),
    });
    await Promise.all([...h.console.clusters.values()].map((x) => x.synced()));
    trpc = trpcClient(h.console.url, tokenOf(h.cluster.kc));
    await h.console.history!.ready;
    // ...and back in the new process's trend before it has sampled anything of its own age
    await h.console.incident.restored;
    expect(h.console.incident.samplesOf(cluster)).toContainEqual(sampled);
    const { entries } = await trpc.history.timeline.query({ ...window(), kinds: ['fault'] });
    expect(entries.some((e) => e.subject.name === NODE && e.reason === 'SimulatedPartition')).toBe(true);
    const audit = await trpc.actions.audit.query({ cluster });
    expect(audit.some((r) => r.action === 'simulation' && r.target.name === NODE)).toBe(true);
    expect(audit.some((r) => r.label === 'Fence: Released')).toBe(true);
    expect(
      (await trpc.history.replay.query({ cluster, at: beforeFault })).nodes.find((n) => n.node === NODE)
        ?.ready,
    ).toBe('Ready');
    await trpc.infra.act.mutate({ cluster, node: NODE, verb: 'heal' });
  }, 60_000);

  it('refuses a window that ends before it starts, naming the field', async () => {
    const w = window();
    await expect(trpc.history.timeline.query({ ...w, from: w.to, to: w.from })).rejects.toThrow(
      /to: must not be before from/,
    );
  });
});
