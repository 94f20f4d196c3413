// In-cluster configuration: a pod's ServiceAccount (token, CA, namespace under
// /var/run/secrets/kubernetes.io/serviceaccount) and KUBERNETES_SERVICE_HOST/PORT, as context
// `in-cluster`; requests trust the ServiceAccount's CA and carry its token, re-read as it rotates.
import https from 'node:https';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as k8s from '@kubernetes/client-node';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createCertificateAuthority } from '../../lib/pki/certificates.js';
import { clustersInCluster, inClusterAvailable, podNamespace, SERVICE_ACCOUNT_DIR } from './kubeconfig.js';

let root: string;
let server: https.Server;
let port: number;
const seen: (string | undefined)[] = [];
const sa = (name: string) => join(root, SERVICE_ACCOUNT_DIR, name);

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'palisade-incluster-'));
  await mkdir(join(root, SERVICE_ACCOUNT_DIR), { recursive: true });
  const ca = await createCertificateAuthority('test-cluster-ca');
  const serving = await ca.issueServing('kube-apiserver', ['127.0.0.1']);
  await writeFile(sa('ca.crt'), ca.certPem);
  await writeFile(sa('token'), 'token-1');
  await writeFile(sa('namespace'), 'palisade');
  server = https.createServer({ cert: serving.certPem, key: serving.keyPem }, (req, res) => {
    seen.push(req.headers.authorization);
    req.resume();
    const body = JSON.stringify({ kind: 'NamespaceList', apiVersion: 'v1', metadata: {}, items: [] });
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  await new Promise<void>((r) => server.close(() => r()));
  await rm(root, { recursive: true, force: true });
});
afterEach(() => vi.useRealTimers());

const env = () => ({ KUBERNETES_SERVICE_HOST: '127.0.0.1', KUBERNETES_SERVICE_PORT: String(port) });

describe('inClusterAvailable', () => {
  it('needs KUBERNETES_SERVICE_HOST and the mounted token', () => {
    expect(inClusterAvailable({ env: env(), root })).toBe(true);
    expect(inClusterAvailable({ env: {}, root })).toBe(false);
    expect(inClusterAvailable({ env: env(), root: join(root, 'elsewhere') })).toBe(false);
  });
});

describe('podNamespace', () => {
  it("is the ServiceAccount mount's namespace (fence-agent credentials default to it), else undefined", () => {
    expect(podNamespace({ root })).toBe('palisade');
    expect(podNamespace({ root: join(root, 'elsewhere') })).toBeUndefined();
  });
});

describe('clustersInCluster', () => {
  it('is one cluster, context in-cluster, at the service address, in the pod namespace', () => {
    const [c, ...rest] = clustersInCluster({ env: env(), root, modeOf: () => 'protected' });
    expect(rest).toEqual([]);
    expect([c.id, c.context, c.mode, c.infra]).toEqual(['in-cluster', 'in-cluster', 'protected', undefined]);
    expect(c.kc.getCurrentCluster()?.server).toBe(`https://127.0.0.1:${port}`);
    expect(c.kc.getContextObject('in-cluster')?.namespace).toBe('palisade');
    // process.env was only lent
    expect(process.env.KUBERNETES_SERVICE_PORT).not.toBe(String(port));
  });

  it('trusts the ServiceAccount CA, sends its token, and picks up a rotated token', async () => {
    const [c] = clustersInCluster({ env: env(), root });
    const core = c.kc.makeApiClient(k8s.CoreV1Api);
    await core.listNamespace();
    expect(seen.at(-1)).toBe('Bearer token-1');
    vi.useFakeTimers({ toFake: ['Date'] });
    await writeFile(sa('token'), 'token-2');
    // the kubelet rotates the file; client-node re-reads it once a minute
    vi.setSystemTime(Date.now() + 61_000);
    await core.listNamespace();
    expect(seen.at(-1)).toBe('Bearer token-2');
  });

  it.each([
    [
      { contexts: ['prod'] },
      /--context \/ clusters\[\]\.context: no kubeconfig was given.*"in-cluster", not "prod"/,
    ],
    [
      { also: [{ context: 'cell-a', field: 'protection.cells[0].context' }] },
      /^protection\.cells\[0\]\.context: .*not "cell-a"/,
    ],
  ])('refuses a context other than in-cluster, naming the field (%o)', (opts, message) => {
    expect(() => clustersInCluster({ env: env(), root, ...opts })).toThrow(message);
  });

  it('accepts in-cluster named in the configuration', () => {
    const specs = clustersInCluster({
      env: env(),
      root,
      contexts: ['in-cluster'],
      also: [{ context: 'in-cluster', field: 'protection.core' }],
    });
    expect(specs.map((s) => s.context)).toEqual(['in-cluster']);
  });

  it('says what is missing', async () => {
    expect(() => clustersInCluster({ env: { KUBERNETES_SERVICE_HOST: '127.0.0.1' }, root })).toThrow(
      /KUBERNETES_SERVICE_PORT is not set/,
    );
    expect(() => clustersInCluster({ env: env(), root: join(root, 'elsewhere') })).toThrow(
      /cannot read the ServiceAccount's token .*elsewhere.*: no such file/,
    );
  });
});
