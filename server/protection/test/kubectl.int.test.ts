// Deletion protection through Debian's kubectl 1.20, as an SRE meets it: `kubectl get ppr`
// prints the protector's columns, the first deletion goes through, the one that would cross
// the floor is refused with Podseidon's exact message, and a server-side dry run reserves nothing.
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../../../sim/apiserver/test/harness.js';
import {
  createFixturePods,
  createProtector,
  type Env,
  getProtector,
  markReady,
  startEnv,
} from './protectionHarness.js';

const KUBECTL = join(fileURLToPath(new URL('../../../', import.meta.url)), '.palisade/bin/kubectl');
const ns = 'shop';
let env: Env;
let kubeconfig: string;

/** kubectl, asynchronously: the API server it talks to runs in this very process */
function kubectl(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      KUBECTL,
      ['--kubeconfig', kubeconfig, '-n', ns, ...args],
      { timeout: 30_000 },
      (err, stdout, stderr) =>
        resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr: stderr.trim() }),
    );
  });
}

const aggregated = async (n: number) => {
  const p = await getProtector(env.custom, ns, 'web');
  return (
    p.status?.summary?.aggregatedAvailableReplicas === n &&
    p.status?.summary?.estimatedAvailableReplicas === n
  );
};

beforeAll(async () => {
  if (!existsSync(KUBECTL))
    throw new Error(`kubectl 1.20 not found at ${KUBECTL}: run scripts/ensure-kubectl.sh first`);
  env = await startEnv('protection-kubectl', [ns]);
  kubeconfig = join(mkdtempSync(join(tmpdir(), 'palisade-ppr-kubectl-')), 'kubeconfig');
  writeFileSync(kubeconfig, env.cluster.apiserver.kubeconfig);
  await createProtector(env.custom, ns, 'web', { minAvailable: 2, selector: { app: 'web' } });
  await createFixturePods(env.core, ns, ['web-0', 'web-1', 'web-2'], { app: 'web' });
  const since = new Date(Date.now() - 60_000);
  for (const p of ['web-0', 'web-1', 'web-2']) await markReady(env.core, ns, p, since);
  await eventually(() => aggregated(3), 'three pods aggregated', 20_000);
}, 90_000);

afterAll(async () => {
  await env?.stop();
});

describe('kubectl and a PodProtector', () => {
  it('kubectl get ppr shows required, aggregated and estimated', async () => {
    const r = await kubectl('get', 'ppr');
    expect(r.code).toBe(0);
    const [head, row] = r.stdout.trim().split('\n');
    expect(head.split(/\s+/).slice(0, 4)).toEqual(['NAME', 'REQUIRED', 'AGGREGATED', 'ESTIMATED']);
    expect(row.split(/\s+/).slice(0, 4)).toEqual(['web', '2', '3', '3']);
  });

  it('a server-side dry run at quota is admitted and reserves nothing', async () => {
    const r = await kubectl('delete', 'pod', 'web-0', '--dry-run=server', '--wait=false');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('pod "web-0" deleted (server dry run)');
    expect(await aggregated(3)).toBe(true);
  });

  it('admits the deletion the quota allows, then refuses the one below the floor', async () => {
    expect((await kubectl('delete', 'pod', 'web-0', '--wait=false')).code).toBe(0);
    await eventually(() => aggregated(2), 'the deletion aggregated', 20_000);
    const r = await kubectl('delete', 'pod', 'web-1', '--wait=false');
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      'Error from server: admission webhook "podseidon.kubewharf.io" denied the request: PodProtector shop/web reports too few available replicas to admit pod deletion',
    );
    expect((await kubectl('get', 'pod', 'web-1', '-o', 'name')).stdout.trim()).toBe('pod/web-1');
  });
});
