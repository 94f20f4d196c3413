import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Cluster, startCluster } from '../../sim/apiserver/test/harness.js';
import { runningEmbeddedCluster } from './attach.js';

let dir: string;
let cluster: Cluster;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'palisade-attach-'));
  // the embedded API server, or with PALISADE_CLUSTER=real the kube-apiserver that
  // `npm run cluster -- --real` would have started: both write the same kubeconfig shape
  cluster = await startCluster();
  const api = cluster.server;
  await writeFile(join(dir, 'running'), api.kubeconfig);
  await writeFile(join(dir, 'stale'), api.kubeconfig.replace(`:${api.port}`, ':9'));
  await writeFile(join(dir, 'other'), api.kubeconfig.replaceAll('palisade-embedded', 'prod'));
  await writeFile(join(dir, 'broken'), 'clusters: [');
});
afterAll(async () => {
  await cluster?.stop();
  await rm(dir, { recursive: true, force: true });
});

describe('runningEmbeddedCluster', () => {
  it('finds the embedded cluster that answers', async () => {
    expect(await runningEmbeddedCluster(join(dir, 'running'))).toBe(cluster.server.url);
  });

  it.each([
    ['no kubeconfig', 'missing'],
    ['a stale kubeconfig (nothing listens)', 'stale'],
    ['a kubeconfig without the embedded context', 'other'],
    ['a broken kubeconfig', 'broken'],
  ])('says no for %s', async (_what, file) => {
    expect(await runningEmbeddedCluster(join(dir, file))).toBeUndefined();
  });
});
