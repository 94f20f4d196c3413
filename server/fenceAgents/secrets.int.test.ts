// Reading an exec agent's credentials from Secrets through the Kubernetes API (embedded API
// server, or the real one with PALISADE_CLUSTER=real).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Cluster, createNamespace, startCluster } from '../../sim/apiserver/test/harness.js';
import { readSecretParams, SecretParamError } from './secrets.js';

let c: Cluster;
const b64 = (v: string) => Buffer.from(v).toString('base64');
const ns = 'fence-secrets';

beforeAll(async () => {
  c = await startCluster();
  await createNamespace(c, ns);
  await c.core.createNamespacedSecret({
    namespace: ns,
    body: { metadata: { name: 'bmc' }, data: { username: b64('admin'), password: b64('pä$$ word\n') } },
  });
});
afterAll(async () => c?.stop());

describe('readSecretParams', () => {
  it('maps each secretRef to its parameter, values exactly as stored', async () => {
    const params = await readSecretParams(c.kc, ns, [
      { name: 'bmc', key: 'password', parameter: '--password' },
      { name: 'bmc', key: 'username', parameter: '--username' },
    ]);
    expect(params).toEqual({ '--password': 'pä$$ word\n', '--username': 'admin' });
  });

  it('names the Secret and parameter when the Secret is missing', async () => {
    const p = readSecretParams(c.kc, ns, [{ name: 'nope', key: 'password', parameter: '--password' }]);
    await expect(p).rejects.toThrow(SecretParamError);
    await expect(p).rejects.toThrow(`Secret ${ns}/nope (for --password): not found`);
  });

  it('names the key, the parameter and the keys there are when a key is missing', async () => {
    const p = readSecretParams(c.kc, ns, [{ name: 'bmc', key: 'passwd', parameter: '--password' }]);
    await expect(p).rejects.toThrow(
      `Secret ${ns}/bmc has no key "passwd" (for --password); its keys: password, username`,
    );
  });

  // kube-apiserver merges write-only stringData into data (what `kubectl create secret
  // generic --from-literal` relies on); the embedded API server does the same
  it('reads a Secret written with stringData', async () => {
    await c.core.createNamespacedSecret({
      namespace: ns,
      body: { metadata: { name: 'plain' }, stringData: { password: 'from-stringData' } },
    });
    const params = await readSecretParams(c.kc, ns, [
      { name: 'plain', key: 'password', parameter: '--password' },
    ]);
    expect(params).toEqual({ '--password': 'from-stringData' });
  });

  it('reads nothing for no refs', async () => {
    expect(await readSecretParams(c.kc, ns, [])).toEqual({});
  });
});
