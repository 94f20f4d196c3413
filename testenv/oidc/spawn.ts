// main.ts as a child process, for tests that want the provider outside their own process (as
// Palisade's server or Playwright see it): the config goes through a file (it holds passwords),
// the ready line is awaited, stop() sends SIGTERM. The child also stops if we die (its stdin
// is our pipe).
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { MainConfig, ReadyLine } from './cli.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const MAIN = fileURLToPath(new URL('./main.ts', import.meta.url));

export interface SpawnedIdentityProvider extends ReadyLine {
  child: ChildProcess;
  /** what the provider logged on stderr so far */
  log(): string;
  stop(): Promise<void>;
}

export async function spawnIdentityProvider(
  config: MainConfig,
  { timeoutMs = 30_000 }: { timeoutMs?: number } = {},
): Promise<SpawnedIdentityProvider> {
  const dir = await mkdtemp(join(tmpdir(), 'palisade-idp-config-'));
  const file = join(dir, 'config.json');
  await writeFile(file, JSON.stringify(config), { mode: 0o600 });
  // node --import tsx (not npx tsx): one process, so its pid is the provider's
  const child = spawn(process.execPath, ['--import', 'tsx', MAIN, '--config', file], {
    cwd: ROOT,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (d: string) => {
    stderr = (stderr + d).slice(-64 * 1024);
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    const ready = await new Promise<ReadyLine>((resolve, reject) => {
      let out = '';
      const timer = setTimeout(
        () => reject(new Error(`no ready line after ${timeoutMs} ms:\n${stderr}`)),
        timeoutMs,
      );
      child.stdout!.setEncoding('utf8').on('data', (d: string) => {
        out += d;
        const nl = out.indexOf('\n');
        if (nl < 0) return;
        clearTimeout(timer);
        try {
          resolve(JSON.parse(out.slice(0, nl)));
        } catch {
          reject(new Error(`not a ready line: ${out.slice(0, nl)}`));
        }
      });
      child.once('exit', (code, signal) => {
        clearTimeout(timer);
        reject(new Error(`the identity provider exited (${code ?? signal}) before it was ready:\n${stderr}`));
      });
    });
    const stop = async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(timer);
    };
    return { ...ready, child, log: () => stderr, stop };
  } catch (e) {
    child.kill('SIGKILL');
    throw e;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
