// The supervised informer survives the API server being unreachable: a TCP proxy between
// it and an embedded API server is stopped and started again on the same port. While
// the proxy is down the informer reports itself unsynced with the error; afterwards it
// relists, and what changed meanwhile (a node created, one deleted) reaches the handlers.
// It logs each cause of the outage once (the retries against a closed port are one warning)
// and says when it is back.
import * as k8s from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NodeView } from '../../lib/console/protocol.js';
import { nodeView } from '../../lib/console/views.js';
import { type Cluster, eventually, startCluster } from '../../sim/apiserver/test/harness.js';
import { captureLogs } from '../test/logCapture.js';
import { SupervisedInformer } from './informer.js';
import { TcpProxy } from './test/tcpProxy.js';

let cluster: Cluster;
let proxy: TcpProxy;
let informer: SupervisedInformer<k8s.V1Node, NodeView>;
const seen: string[] = [];
const logs = captureLogs();

const node = (name: string): k8s.V1Node => ({ metadata: { name } });

beforeAll(async () => {
  cluster = await startCluster();
  proxy = new TcpProxy(cluster.server.port);
  await proxy.start();
  const kc = new k8s.KubeConfig();
  kc.loadFromString(cluster.server.kubeconfig.replace(cluster.server.url, `https://127.0.0.1:${proxy.port}`));
  const core = kc.makeApiClient(k8s.CoreV1Api);
  informer = new SupervisedInformer(
    kc,
    { kind: 'nodes', path: '/api/v1/nodes', list: (p) => core.listNode(p), project: (n) => nodeView(n) },
    { maxBackoffMs: 300 },
    logs.logger.child({ cluster: 'test' }),
  );
  informer.on({
    add: (n) => seen.push(`add ${n.name}`),
    delete: (n) => seen.push(`delete ${n.name}`),
  });
  informer.start();
  await informer.synced();
});

afterAll(async () => {
  await informer?.stop();
  await proxy?.stop();
  await cluster?.stop();
});

describe('SupervisedInformer', () => {
  it('recovers after the API server was unreachable, and catches up on what it missed', async () => {
    expect(cluster.kc.getCurrentCluster()?.server).not.toContain(String(proxy.port));
    await cluster.core.createNode({ body: node('before') });
    await eventually(() => informer.get('before'), 'node "before" seen live');

    await proxy.stop();
    await eventually(
      () => !informer.health.synced && informer.health.restarts > 0,
      'informer reports the outage',
    );
    expect(informer.health.lastError).toBeTruthy();
    await cluster.core.deleteNode({ name: 'before' });
    await cluster.core.createNode({ body: node('during') });
    // several failed attempts against a closed port, with backoff, before it comes back
    await eventually(() => informer.health.restarts >= 3, 'retries while unreachable');

    await proxy.start();
    await eventually(() => informer.health.synced, 'informer synced again', 10_000);
    await eventually(() => informer.get('during') && !informer.get('before'), 'caught up');
    expect(seen.sort()).toEqual(['add before', 'add during', 'delete before']);

    // and it is watching again, not just relisted
    await cluster.core.createNode({ body: node('after') });
    await eventually(() => informer.get('after'), 'node "after" seen live');

    // every failure logged, each cause at warn once (a repeat is debug), then back at info
    const failures = logs.records().filter((r) => r.msg.startsWith('list-watch failed'));
    expect(failures).toHaveLength(informer.health.restarts);
    const warned = failures.filter((r) => r.level === 'warn');
    expect(warned.length).toBeGreaterThan(0);
    expect(warned.length).toBeLessThan(failures.length);
    for (const [i, r] of failures.entries())
      expect(r.level).toBe(i > 0 && failures[i - 1].err === r.err ? 'debug' : 'warn');
    expect(logs.of('informer', 'synced again')).toEqual([
      expect.objectContaining({ level: 'info', cluster: 'test', kind: 'nodes' }),
    ]);
  });

  it('stops quietly: no restarts after a deliberate stop', async () => {
    const restarts = informer.health.restarts;
    await informer.stop();
    const logged = logs.lines.length;
    await proxy.stop();
    await new Promise((r) => setTimeout(r, 500));
    expect(informer.health.restarts).toBe(restarts);
    expect(logs.lines.length).toBe(logged);
    await proxy.start();
  });
});
