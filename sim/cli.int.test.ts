import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as k8s from '@kubernetes/client-node';
import { afterEach, describe, expect, it } from 'vitest';
import { eventually, onRealControlPlane } from './apiserver/test/harness.js';

const children: ChildProcess[] = [];
afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null) c.kill('SIGKILL');
});

function cluster(args: string[]) {
  const child = spawn(process.execPath, ['--import', 'tsx', 'sim/cli.ts', ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  const out = { stdout: '', stderr: '', code: null as number | null };
  child.stdout!.on('data', (d) => (out.stdout += d));
  child.stderr!.on('data', (d) => (out.stderr += d));
  child.on('exit', (code) => (out.code = code));
  return { child, out };
}

describe('npm run cluster', () => {
  it('starts on a free port, writes the kubeconfig, names it on stdout, and stops on SIGTERM', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'palisade-cli-')), 'kubeconfig');
    // PALISADE_CLUSTER=real: the same with --real (the simulated nodes on a real control plane)
    const real = onRealControlPlane ? ['--real'] : [];
    const { child, out } = cluster([...real, '--port', '0', '--kubeconfig', path, '--profile', 'tiny']);
    await eventually(() => out.stdout.includes(`kubeconfig: ${path}`), 'the ready line', 30_000);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    const kc = new k8s.KubeConfig();
    kc.loadFromString(readFileSync(path, 'utf8'));
    expect(kc.getCurrentContext()).toBe('palisade-embedded');
    expect(kc.getCurrentCluster()?.server).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    const ns = await kc.makeApiClient(k8s.CoreV1Api).listNamespace();
    expect(ns.items.map((n) => n.metadata?.name)).toEqual([
      'default',
      'kube-node-lease',
      'kube-public',
      'kube-system',
    ]);
    child.kill('SIGTERM');
    // stopping waits on the cluster's own stop (a real control plane's API server and etcd stop
    // in turn, each with a grace period): on a machine at load 15 that took past 15 s (CI run x33)
    await eventually(() => out.code !== null, 'exit after SIGTERM', 60_000);
    expect(out.code).toBe(0);
    expect(out.stdout).toContain(
      `SIGTERM: stopping ${onRealControlPlane ? 'real control plane' : 'embedded cluster'}`,
    );
  }, 120_000);

  it.each([
    [['--port', 'abc'], '--port: must be an integer between 0 and 65535'],
    [['--profile', 'nope'], 'unknown profile "nope"'],
    [['--bogus'], "Unknown option '--bogus'"],
    [['--service-host', 'hook.ns=127.0.0.1:8443'], '--service-host: must be NAME.NAMESPACE.svc=HOST:PORT'],
    [
      ['--real', '--service-host', 'hook.ns.svc=127.0.0.1:8443'],
      '--service-host: only the embedded API server',
    ],
  ])('rejects %j with a usage error', async (args, message) => {
    const { out } = cluster(args);
    await eventually(() => out.code !== null, 'exit', 30_000);
    expect(out.code).toBe(2);
    expect(out.stderr).toContain(message);
    expect(out.stderr).toContain('usage: npm run cluster --');
  });
});
