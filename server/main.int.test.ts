// server/main.ts as a process: bad command lines and unreadable kubeconfigs end it at
// once with a message that says what is wrong.
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

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
  ])('%o exits %i', (args, code, message) => {
    const r = run(...args);
    expect(r.stderr).toMatch(message);
    expect(r.code).toBe(code);
  });
});
