// The provider as its own process (main.ts): the ready line, trust through
// NODE_EXTRA_CA_CERTS, stopping on SIGTERM and when its parent dies.
import { execFile, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { OidcTestClient } from './flow.js';
import type { ClientSpec } from './provider.js';
import { type SpawnedIdentityProvider, spawnIdentityProvider } from './spawn.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const MAIN = fileURLToPath(new URL('./main.ts', import.meta.url));
const client: ClientSpec = {
  clientId: 'palisade',
  clientSecret: 'palisade-secret',
  redirectUris: ['http://127.0.0.1:39999/auth/oidc/callback'],
};

/** not exited (a zombie has: an orphan waits a second or two here before init reaps it) */
const running = (pid: number) => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
};

async function until(check: () => boolean, timeoutMs: number, what: string): Promise<number> {
  const start = Date.now();
  while (!check()) {
    if (Date.now() - start > timeoutMs) throw new Error(`${what}: not after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return Date.now() - start;
}

describe('test identity provider process', () => {
  const started: SpawnedIdentityProvider[] = [];
  afterAll(() => Promise.all(started.map((p) => p.stop())));

  it('prints one ready line, serves the flow, and is trusted through NODE_EXTRA_CA_CERTS', async () => {
    const t0 = Date.now();
    const idp = await spawnIdentityProvider({
      clients: [client],
      users: [{ username: 'dave', password: 'dave-pw', groups: ['ops'] }],
      ttl: { idToken: 30 },
    });
    started.push(idp);
    const startup = Date.now() - t0;
    expect(idp).toMatchObject({
      issuer: `https://127.0.0.1:${idp.port}`,
      discoveryUrl: `https://127.0.0.1:${idp.port}/.well-known/openid-configuration`,
      users: ['dave'],
      clients: ['palisade'],
      pid: idp.child.pid,
    });
    expect(Buffer.from(idp.spkiHash, 'base64')).toHaveLength(32);
    expect(idp.chromiumArgs).toEqual([`--ignore-certificate-errors-spki-list=${idp.spkiHash}`]);
    const caPem = readFileSync(idp.caFile, 'utf8');
    expect(caPem).toMatch(/^-----BEGIN CERTIFICATE-----/);
    const { claims } = await (await OidcTestClient.discover({ issuer: idp.issuer, caPem }, client)).signIn(
      'dave',
      'dave-pw',
    );
    expect(claims).toMatchObject({ preferred_username: 'dave', groups: ['ops'] });
    expect((claims.exp as number) - (claims.iat as number)).toBe(30);

    // any Node process (openid-client's fetch included) trusts it with NODE_EXTRA_CA_CERTS
    const probe = `fetch(${JSON.stringify(idp.discoveryUrl)}).then((r) => r.json()).then((d) => console.log(d.issuer), (e) => console.log(e.cause?.code ?? e.message))`;
    const run = promisify(execFile);
    const trusted = await run(process.execPath, ['-e', probe], {
      env: { ...process.env, NODE_EXTRA_CA_CERTS: idp.caFile },
    });
    expect(trusted.stdout.trim()).toBe(idp.issuer);
    const { NODE_EXTRA_CA_CERTS: _, ...without } = process.env;
    const untrusted = await run(process.execPath, ['-e', probe], { env: without });
    expect(untrusted.stdout.trim()).toBe('UNABLE_TO_VERIFY_LEAF_SIGNATURE');
    console.log(`provider process ready ${startup} ms after spawn`);
  });

  it('stops on SIGTERM and removes its temporary state', async () => {
    const idp = await spawnIdentityProvider({ clients: [client] });
    expect(existsSync(idp.caFile)).toBe(true);
    const exit = new Promise<number | null>((resolve) => idp.child.once('exit', (code) => resolve(code)));
    idp.child.kill('SIGTERM');
    expect(await exit).toBe(0);
    expect(existsSync(idp.state)).toBe(false);
    expect(idp.log()).toContain('stopping (SIGTERM)');
  });

  it('stops when its parent dies (SIGKILL, no chance to pass a signal on)', async () => {
    // a parent process that starts the provider (stdin a pipe it holds), reports its pid, then waits
    const parent = spawn(
      process.execPath,
      [
        '-e',
        `const c = require('node:child_process').spawn(process.execPath, ['--import', 'tsx', ${JSON.stringify(MAIN)},
           '--client-id', 'p', '--client-secret', 's', '--redirect-uri', 'http://127.0.0.1:1/cb'],
           { cwd: ${JSON.stringify(ROOT)}, stdio: ['pipe', 'pipe', 'inherit'] });
         c.stdout.once('data', (d) => process.stdout.write(d));`,
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    const line = await new Promise<string>((resolve, reject) => {
      parent.stdout!.setEncoding('utf8').once('data', resolve);
      parent.once('exit', () => reject(new Error('parent exited first')));
    });
    const { pid, state } = JSON.parse(line);
    expect(running(pid)).toBe(true);
    parent.kill('SIGKILL');
    const ms = await until(() => !running(pid), 5_000, 'provider gone after its parent');
    await until(() => !existsSync(state), 2_000, 'state removed');
    console.log(`provider exited ${ms} ms after its parent was killed`);
  });

  it('stops when npx, between it and the caller, is killed', async () => {
    // `npx tsx main.ts`: npm exits on SIGTERM without passing it on, and tsx's launcher stays
    const npx = spawn(
      'npx',
      ['tsx', MAIN, '--client-id', 'p', '--client-secret', 's', '--redirect-uri', 'http://127.0.0.1:1/cb'],
      { cwd: ROOT, stdio: ['ignore', 'pipe', 'ignore'] },
    );
    const line = await new Promise<string>((resolve, reject) => {
      npx.stdout!.setEncoding('utf8').once('data', resolve);
      npx.once('exit', () => reject(new Error('npx exited first')));
    });
    const { pid } = JSON.parse(line);
    npx.kill('SIGTERM');
    const ms = await until(() => !running(pid), 5_000, 'provider gone after npx');
    console.log(`provider exited ${ms} ms after npx got SIGTERM`);
  });
});
