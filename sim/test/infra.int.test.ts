// The infrastructure control API and `npm run infra`: faults, ground truth, BMC,
// the live event stream, and clear errors.
import { execFile } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../apiserver/test/harness.js';
import { type EmbeddedCluster, backendFromEnv, startEmbeddedCluster } from '../cluster.js';
import { parseScenario } from '../scenario/load.js';
import { tinyDurations } from './clusterHarness.js';

const run = promisify(execFile);
let c: EmbeddedCluster;
let kubeconfig: string;

beforeAll(async () => {
  kubeconfig = join(mkdtempSync(join(tmpdir(), 'palisade-infra-')), 'kubeconfig');
  const scenario = parseScenario(
    `name: infra-test\n${tinyDurations}\nnodes:\n  zones: [{ name: zone-a, racks: [{ name: a1, count: 2 }] }]\n`,
    'test',
  );
  c = await startEmbeddedCluster({ scenario, kubeconfigPath: kubeconfig, backend: backendFromEnv() });
});
afterAll(() => c.stop());

const api = (method: string, path: string, body?: object, token = c.infraApi.token) =>
  fetch(c.infraApi.url + path, {
    method,
    headers: { authorization: `Bearer ${token}` },
    body: body ? JSON.stringify(body) : undefined,
  });

async function cli(...args: string[]) {
  try {
    const { stdout, stderr } = await run(process.execPath, [
      '--import',
      'tsx',
      'sim/infra/cli.ts',
      '--kubeconfig',
      kubeconfig,
      ...args,
    ]);
    return { code: 0, stdout, stderr };
  } catch (e: any) {
    return { code: e.code as number, stdout: e.stdout as string, stderr: e.stderr as string };
  }
}

describe('infrastructure control API', () => {
  it('refuses requests without the token', async () => {
    expect((await api('GET', '/v1/status', undefined, 'wrong')).status).toBe(401);
  });

  it('names unknown nodes, verbs and bad bodies', async () => {
    const unknownNode = await api('POST', '/v1/nodes/nope/partition');
    expect(unknownNode.status).toBe(404);
    expect(await unknownNode.json()).toEqual({ error: 'no such node: nope' });
    const unknownVerb = await api('POST', '/v1/nodes/a1-1/explode');
    expect(unknownVerb.status).toBe(400);
    expect(((await unknownVerb.json()) as { error: string }).error).toContain('unknown verb "explode"');
    const badBody = await api('POST', '/v1/nodes/a1-1/storage-fence', { volume: 3 });
    expect(badBody.status).toBe(400);
    expect(((await badBody.json()) as { error: string }).error).toContain('volume');
  });

  it('streams events live and answers BMC power queries', async () => {
    const ctl = new AbortController();
    const res = await fetch(`${c.infraApi.url}/v1/events`, {
      headers: { authorization: `Bearer ${c.infraApi.token}` },
      signal: ctl.signal,
    });
    const reader = res.body!.getReader();
    let text = '';
    const reading = (async () => {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        text += new TextDecoder().decode(value);
      }
    })().catch(() => undefined);
    expect(await (await api('GET', '/v1/bmc/a1-2')).json()).toEqual({ node: 'a1-2', power: 'on' });
    expect(await (await api('POST', '/v1/bmc/a1-2/off')).json()).toEqual({ node: 'a1-2', power: 'off' });
    await eventually(() => text.includes('event: power-off'), 'power-off event on the stream');
    expect(await (await api('POST', '/v1/bmc/a1-2/on')).json()).toEqual({ node: 'a1-2', power: 'on' });
    await eventually(() => text.includes('event: power-on'), 'power-on event');
    ctl.abort();
    await reading;
  });
});

describe('npm run infra', () => {
  it('prints status and partitions and heals a node, finding the API from the kubeconfig', async () => {
    const status = await cli('status');
    expect(status.code).toBe(0);
    expect(status.stdout).toMatch(/^NODE\s+POWER\s+NETWORK\s+KUBELET\s+PROCESSES\s+STORAGE/);
    expect(status.stdout).toMatch(/a1-1\s+on\s+connected\s+running/);
    const part = await cli('partition', 'a1-1');
    expect(part.stdout).toContain('partition: a1-1 is now power=on network=partitioned kubelet=running');
    const json = JSON.parse((await cli('--json', 'status')).stdout);
    expect(json.nodes.find((n: any) => n.name === 'a1-1').partitioned).toBe(true);
    expect((await cli('heal', 'a1-1')).code).toBe(0);
    expect(c.infra.node('a1-1').partitioned).toBe(false);
  });

  it('fails clearly on bad usage and missing clusters', async () => {
    const bad = await cli('explode', 'a1-1');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('error: unknown verb "explode"');
    expect(bad.stderr).toContain('usage: npm run infra --');
    const noNode = await cli('partition');
    expect(noNode.stderr).toContain('partition needs a node name');
    const missing = await run(process.execPath, [
      '--import',
      'tsx',
      'sim/infra/cli.ts',
      '--kubeconfig',
      '/nonexistent/kubeconfig',
      'status',
    ]).catch((e) => e);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain(
      'cannot read /nonexistent/infra.json (ENOENT): is the embedded cluster running?',
    );
  });

  it('lists processes and violations', async () => {
    expect((await cli('violations')).stdout).toContain('no safety violations');
    expect((await cli('processes')).stdout).toMatch(/^NODE\s+NAMESPACE\/POD/);
  });
});
