// server/main.ts as a process: bad command lines and unreadable kubeconfigs end it at
// once with a message that says what is wrong.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const dir = mkdtempSync(join(tmpdir(), 'palisade-main-'));
const badMode = join(dir, 'palisade.yaml');
writeFileSync(badMode, 'clusters:\n  - context: prod\n    mode: readonly\n');

function run(...args: string[]) {
  const r = spawnSync('npx', ['tsx', 'server/main.ts', ...args], {
    encoding: 'utf8',
    env: { ...process.env, KUBECONFIG: '' },
    timeout: 30_000,
  });
  return { code: r.status, stderr: r.stderr };
}

describe('server/main.ts', () => {
  it.each([
    [
      ['--kubeconfig', '/nonexistent/kubeconfig'],
      1,
      /cannot read kubeconfig \/nonexistent\/kubeconfig: no such file/,
    ],
    [['--port', 'eighty'], 2, /--port: must be an integer between 0 and 65535, got "eighty"/],
    [['--colour'], 2, /Unknown option '--colour'/],
    // sign-in is always on: the old escape hatch is gone, and says so
    [['--insecure-no-auth'], 2, /--insecure-no-auth is gone: sign-in is always on/],
    [
      ['--config', '/nonexistent/palisade.yaml'],
      1,
      /cannot read config \/nonexistent\/palisade\.yaml: no such file/,
    ],
    [
      ['--config', badMode],
      1,
      /config .*palisade\.yaml: clusters\[0\]\.mode: must be one of normal, read-only, protected/,
    ],
  ])('%o exits %i', (args, code, message) => {
    const r = run(...args);
    expect(r.stderr).toMatch(message);
    expect(r.code).toBe(code);
  });
});
