// runAgent's contract with a stand-in agent (a bash script on PATH): parameters on stdin and
// none on argv, a minimal environment, results, exit codes, redaction, trimming, timeouts that
// kill the whole process group, cancellation. The real agent against real BMCs is in
// ipmi.int.test.ts.
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AgentAction, type AgentInvocation, SYSTEM_DIRS } from '../../lib/fenceAgents/invocation.js';
import { eventually } from '../../sim/apiserver/test/harness.js';
import { agentStatus, OUTPUT_LIMIT, runAgent } from './run.js';
import { captureLogs } from '../test/logCapture.js';

const FAKE = `#!/bin/bash
args="$*"
while IFS= read -r line; do
  case $line in mode=*) mode=\${line#mode=} ;; password=*) pw=\${line#password=} ;; pidfile=*) pidfile=\${line#pidfile=} ;; esac
  input="$input$line "
done
case $mode in
  echo) echo "argv: [$args] stdin: \${input% }"; echo "on stderr" >&2 ;;
  env) env | sort ;;
  status-off) echo "Status: OFF"; exit 2 ;;
  fail) echo "ERROR: login refused for password $pw" >&2; exit 1 ;;
  big) head -c 20000 /dev/zero | tr '\\0' x; echo; echo "the end" ;;
  hang) sleep 60 & echo $! > "$pidfile"; wait ;;
esac
`;

let dir: string;
const oldPath = process.env.PATH;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'palisade-agent-'));
  writeFileSync(join(dir, 'fence_fake'), FAKE);
  chmodSync(join(dir, 'fence_fake'), 0o755);
  process.env.PATH = `${dir}:${oldPath}`;
  process.env.PALISADE_TEST_SECRET_ENV = 'not-for-agents';
});
afterAll(() => {
  process.env.PATH = oldPath;
  delete process.env.PALISADE_TEST_SECRET_ENV;
  rmSync(dir, { recursive: true, force: true });
});

const inv = (mode: string, action: AgentAction = 'off', agent = 'fence_fake'): AgentInvocation => ({
  agent,
  node: 'n1',
  action,
  params: { '--mode': mode, '--lanplus': '', '--password': 'hunter2', '--pidfile': join(dir, 'pid') },
  secrets: ['hunter2'],
});

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe('runAgent', () => {
  it('passes the parameters on stdin and none on argv, keeps stdout and stderr, and hides secrets', async () => {
    const r = await runAgent(inv('echo'), { timeoutMs: 10_000 });
    expect(r).toMatchObject({ result: 'Succeeded', exitCode: 0 });
    expect(r.output).toBe(
      `argv: [] stdin: mode=echo lanplus=1 password=*** pidfile=${join(dir, 'pid')} action=off\non stderr`,
    );
    expect(r.durationMs).toBeGreaterThanOrEqual(0);
  });

  it("gives the agent a minimal environment, nothing of Palisade's own", async () => {
    const r = await runAgent(inv('env'), { timeoutMs: 10_000 });
    const env = Object.fromEntries(r.output.split('\n').map((l) => l.split(/=(.*)/s).slice(0, 2)));
    expect(env).toMatchObject({ PATH: SYSTEM_DIRS.join(':'), LC_ALL: 'C', LANG: 'C', PWD: '/' });
    expect(r.output).not.toContain('not-for-agents');
    // bash adds PWD, SHLVL and _ of its own
    expect(Object.keys(env).sort()).toEqual([
      'LANG',
      'LC_ALL',
      'PATH',
      'PWD',
      'PYTHONWARNINGS',
      'SHLVL',
      '_',
    ]);
  });

  it('records a failing agent in its own words, never throws', async () => {
    const r = await runAgent(inv('fail'), { timeoutMs: 10_000 });
    expect(r).toMatchObject({
      result: 'Failed',
      exitCode: 1,
      output: 'ERROR: login refused for password ***',
    });
  });

  it('logs each run (command line, result) without its password', async () => {
    const logs = captureLogs();
    await runAgent(inv('echo'), { timeoutMs: 10_000, logger: logs.logger });
    await runAgent(inv('fail'), { timeoutMs: 10_000, logger: logs.logger });
    expect(logs.lines.join('')).not.toContain('hunter2');
    expect(
      logs
        .of('fenceAgent')
        .map(({ level, msg, command, result, lastLine }) => ({ level, msg, command, result, lastLine })),
    ).toEqual([
      {
        level: 'debug',
        msg: 'running fence agent',
        command: `fence_fake < mode=echo lanplus=1 password=[redacted] pidfile=${join(dir, 'pid')} action=off`,
      },
      { level: 'info', msg: 'fence agent succeeded', result: 'Succeeded', lastLine: 'on stderr' },
      {
        level: 'debug',
        msg: 'running fence agent',
        command: `fence_fake < mode=fail lanplus=1 password=[redacted] pidfile=${join(dir, 'pid')} action=off`,
      },
      {
        level: 'warn',
        msg: 'fence agent did not succeed',
        result: 'Failed',
        lastLine: 'ERROR: login refused for password ***',
      },
    ]);
    expect(logs.of('fenceAgent')[0]).toMatchObject({ agent: 'fence_fake', node: 'n1', action: 'off' });
  });

  it('a status query answering OFF (exit 2) is a success with power off', async () => {
    const s = await agentStatus(inv('status-off', 'off'), { timeoutMs: 10_000 });
    expect(s.power).toBe('off');
    expect(s.run).toMatchObject({ result: 'Succeeded', exitCode: 2 });
    // the same exit code from a fencing action is a failure
    expect((await runAgent(inv('status-off', 'off'), { timeoutMs: 10_000 })).result).toBe('Failed');
  });

  it('keeps the last part of a long output', async () => {
    const r = await runAgent(inv('big'), { timeoutMs: 10_000 });
    expect(r.output.length).toBeLessThan(OUTPUT_LIMIT + 100);
    expect(r.output).toMatch(/^\[\d+ characters trimmed\]\n/);
    expect(r.output.endsWith('the end')).toBe(true);
  });

  it('kills the whole process group on timeout', async () => {
    const r = await runAgent(inv('hang'), { timeoutMs: 500 });
    expect(r.result).toBe('TimedOut');
    expect(r.exitCode).toBeNull();
    expect(r.output).toMatch(/fence_fake: timed out after 500 ms/);
    const grandchild = Number(readFileSync(join(dir, 'pid'), 'utf8'));
    await eventually(() => !alive(grandchild), "the agent's own child killed", 5000);
  });

  it('stops when cancelled', async () => {
    const ac = new AbortController();
    const run = runAgent(inv('hang'), { timeoutMs: 10_000, signal: ac.signal });
    setTimeout(() => ac.abort(), 200);
    const r = await run;
    expect(r).toMatchObject({ result: 'Failed', exitCode: null });
    expect(r.output).toMatch(/cancelled/);
  });

  it('never starts an agent whose input would hold a line break', async () => {
    const bad = { ...inv('echo'), params: { '--mode': 'echo\nsudo-path=/bin/sh' } };
    const r = await runAgent(bad, { timeoutMs: 10_000 });
    expect(r).toMatchObject({ result: 'Failed', exitCode: null });
    expect(r.output).toMatch(/its value holds a line break/);
  });

  it('an agent that is not installed fails with how to install it', async () => {
    const r = await runAgent(inv('echo', 'off', 'fence_notthere'), { timeoutMs: 10_000 });
    expect(r).toMatchObject({ result: 'Failed', exitCode: null });
    expect(r.output).toMatch(/fence_notthere is not installed .*apt-get install fence-agents/);
  });
});
