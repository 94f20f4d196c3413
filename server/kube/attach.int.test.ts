import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiServer, startApiServer } from '../../sim/apiserver/index.js';
import { runningEmbeddedCluster } from './attach.js';

let dir: string;
let api: ApiServer;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'palisade-attach-'));
  api = await startApiServer({ kubeconfigPath: join(dir, 'running') });
  await writeFile(join(dir, 'stale'), api.kubeconfig.replace(`:${api.port}`, ':9'));
  await writeFile(join(dir, 'other'), api.kubeconfig.replaceAll('palisade-embedded', 'prod'));
  await writeFile(join(dir, 'broken'), 'clusters: [');
});
afterAll(async () => {
  await api?.stop();
  await rm(dir, { recursive: true, force: true });
});

describe('runningEmbeddedCluster', () => {
  it('finds the embedded cluster that answers', async () => {
    expect(await runningEmbeddedCluster(join(dir, 'running'))).toBe(api.url);
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
