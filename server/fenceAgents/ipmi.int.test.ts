// The real fencing path over IPMI, nothing mocked: ClusterLabs fence_ipmilan (through
// ipmitool, RMCP+) against OpenIPMI ipmi_sim BMCs whose chassis control drives the simulated
// nodes' power. No Kubernetes needed: the Infrastructure is the machines. In CI the tools must
// be installed (.ci/run installs them); elsewhere the suite is skipped naming what is missing.
import { type ChildProcess, spawn } from 'node:child_process';
import dgram from 'node:dgram';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentSpec } from '../../lib/fencing/types.js';
import {
  type AgentAction,
  buildInvocation,
  type ExecAgentSpec,
  parseStatus,
} from '../../lib/fenceAgents/invocation.js';
import { eventually } from '../../sim/apiserver/test/harness.js';
import type { InfraEvent } from '../../sim/infra/groundTruth.js';
import { Infrastructure } from '../../sim/infra/infrastructure.js';
import {
  type BmcEndpoint,
  type Bmcs,
  IPMI_INSTALL,
  missingIpmiTools,
  startBmcs,
} from '../../sim/infra/ipmi/bmcs.js';
import { freeUdpPort } from '../../sim/infra/ipmi/udp.js';
import { agentStatus, runAgent } from './run.js';

const missing = missingIpmiTools();
const inCi = process.env.CI === 'true';
const skipReason = missing.length ? ` (skipped: ${missing.join(', ')} not installed; ${IPMI_INSTALL})` : '';
const TIMEOUT = { timeoutMs: 30_000 };

/** a FencePolicy agent for these BMCs, the way the console would write one */
function policyAgent(
  endpoints: Record<string, BmcEndpoint>,
  action: 'off' | 'reboot' = 'off',
): ExecAgentSpec {
  const per = (f: (e: BmcEndpoint) => string) =>
    Object.fromEntries(Object.entries(endpoints).map(([n, e]) => [n, f(e)]));
  return agentSpec.parse({
    type: 'exec',
    agent: 'fence_ipmilan',
    action,
    // --cipher=3 skips ipmitool's cipher-suite probe; --power-wait is left at its default (2 s)
    sharedParameters: { '--lanplus': '', '--cipher': '3', '--username': 'palisade' },
    nodeParameters: { '--ip': per((e) => e.host), '--ipport': per((e) => String(e.port)) },
    secretRefs: [{ name: 'bmc', key: 'password', parameter: '--password' }],
  }) as ExecAgentSpec;
}

/** processes whose command line mentions this text (ipmitool -p <port>, fence_ipmilan --ipport=) */
function processesMentioning(text: string): number[] {
  const found: number[] = [];
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
      if (cmd.some((a) => a.includes(text)) && Number(pid) !== process.pid) found.push(Number(pid));
    } catch {
      // exited while we looked
    }
  }
  return found;
}

/** a process's argv, or undefined once it has exited */
function commandLine(pid: number): string[] | undefined {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').slice(0, -1);
  } catch {
    return undefined;
  }
}

async function udpPortFree(port: number): Promise<boolean> {
  const s = dgram.createSocket('udp4');
  try {
    await new Promise<void>((resolve, reject) => {
      s.once('error', reject);
      s.bind(port, '127.0.0.1', () => resolve());
    });
    return true;
  } catch {
    return false;
  } finally {
    s.close();
  }
}

it.runIf(inCi)('CI has the IPMI tools installed', () => {
  expect(missing, `install them: ${IPMI_INSTALL}`).toEqual([]);
});

describe.skipIf(missing.length > 0 && !inCi)(`fence_ipmilan against ipmi_sim BMCs${skipReason}`, () => {
  let infra: Infrastructure;
  let bmcs: Bmcs;
  let password: string;
  const events: InfraEvent[] = [];
  const timings: string[] = [];

  beforeAll(async () => {
    infra = new Infrastructure();
    infra.addNode('n1');
    infra.addNode('n2');
    infra.truth.on('event', (e: InfraEvent) => events.push(e));
    const started = Date.now();
    bmcs = await startBmcs(infra);
    timings.push(`startBmcs (2 nodes): ${Date.now() - started} ms`);
    password = bmcs.endpoint('n1').password;
  });

  afterAll(async () => {
    await bmcs?.stop();
    infra?.stop();
    if (timings.length) console.info(`fence_ipmilan timings:\n  ${timings.join('\n  ')}`);
  });

  const run = async (node: string, action: AgentAction, secret = password) => {
    const inv = buildInvocation(policyAgent(bmcs.endpoints()), node, { '--password': secret }, action);
    const r = await runAgent(inv, TIMEOUT);
    timings.push(`${action} ${node}: ${r.durationMs} ms (${r.result})`);
    return r;
  };

  it('status reads the node ON, through a live power query', async () => {
    const r = await run('n1', 'status');
    expect(r).toMatchObject({ result: 'Succeeded', exitCode: 0 });
    expect(parseStatus(r.output)).toBe('on');
  });

  it('off powers the node off in the infrastructure; status then reads OFF', async () => {
    const r = await run('n1', 'off');
    expect(r).toMatchObject({ result: 'Succeeded', exitCode: 0 });
    expect(r.output).toMatch(/Success: Powered OFF/);
    expect(infra.node('n1').power).toBe('off');
    expect(infra.node('n2').power).toBe('on');
    expect(events.filter((e) => e.type === 'power-off').map((e) => e.node)).toEqual(['n1']);
    const s = await agentStatus(
      buildInvocation(policyAgent(bmcs.endpoints()), 'n1', { '--password': password }),
      TIMEOUT,
    );
    expect(s.power).toBe('off');
    expect(s.run.exitCode).toBe(2);
  });

  it('the BMC password is on no command line while the agent and ipmitool run', async () => {
    // Palisade gives fence_ipmilan no password: its ipmitool shim has ipmitool read it from the
    // environment (-E), so no process, not even ipmitool before it masks -P, shows it in ps
    const withPassword = new Set<string>();
    const ipmitoolArgs = new Set<string>();
    const port = String(bmcs.endpoint('n2').port);
    let running = true;
    const watch = (async () => {
      while (running) {
        for (const pid of processesMentioning(password)) withPassword.add(String(pid));
        for (const pid of processesMentioning(port)) {
          const argv = commandLine(pid);
          if (argv?.[0]?.endsWith('ipmitool')) ipmitoolArgs.add(argv.slice(1).join(' '));
        }
        await new Promise((r) => setTimeout(r, 5));
      }
    })();
    const r = await run('n2', 'status');
    running = false;
    await watch;
    expect(r.result).toBe('Succeeded');
    expect([...withPassword]).toEqual([]);
    // ipmitool ran, reading the password from IPMI_PASSWORD rather than from -P
    expect([...ipmitoolArgs].length).toBeGreaterThan(0);
    for (const args of ipmitoolArgs) {
      expect(args).toMatch(/(^| )-E( |$)/);
      expect(args).not.toMatch(/(^| )-P( |$)/);
    }
  });

  it('status follows power changed elsewhere (the console powering a node on)', async () => {
    infra.powerOn('n1');
    expect(parseStatus((await run('n1', 'status')).output)).toBe('on');
  });

  it('on powers a fenced node back on', async () => {
    expect((await run('n1', 'off')).result).toBe('Succeeded');
    const r = await run('n1', 'on');
    expect(r).toMatchObject({ result: 'Succeeded', exitCode: 0 });
    expect(infra.node('n1').power).toBe('on');
  });

  it('reboot is off then on', async () => {
    const before = events.length;
    const r = await run('n2', 'reboot');
    expect(r).toMatchObject({ result: 'Succeeded', exitCode: 0 });
    const seen = events
      .slice(before)
      .filter((e) => e.node === 'n2')
      .map((e) => e.type);
    expect(seen).toEqual(['power-off', 'power-on']);
    expect(infra.node('n2').power).toBe('on');
  });

  it("a wrong password fails with the agent's message, and the password never shows", async () => {
    const r = await run('n2', 'off', 'wrong-password1');
    expect(r).toMatchObject({ result: 'Failed', exitCode: 1 });
    expect(r.output).toMatch(/Unable to obtain correct plug status/);
    expect(r.output).not.toContain('wrong-password1');
    expect(infra.node('n2').power).toBe('on');
  });

  it('an unreachable BMC times out and leaves no agent or ipmitool behind', async () => {
    const port = await freeUdpPort(); // nobody serves it: ipmitool would retry for ~20 s
    const spec = policyAgent({ n1: { host: '127.0.0.1', port, username: 'palisade', password } });
    const r = await runAgent(buildInvocation(spec, 'n1', { '--password': password }, 'off'), {
      timeoutMs: 1500,
    });
    timings.push(`off (no BMC, 1.5 s timeout): ${r.durationMs} ms (${r.result})`);
    expect(r.result).toBe('TimedOut');
    expect(r.output).toMatch(/timed out after 1500 ms/);
    await eventually(() => processesMentioning(`${port}`).length === 0, 'agent and ipmitool gone', 5000);
  });

  it('serves a node added later, and names nodes it does not serve', async () => {
    infra.addNode('n3');
    const ep = await bmcs.ensure('n3');
    expect(bmcs.endpoint('n3')).toEqual(ep);
    expect(parseStatus((await run('n3', 'status')).output)).toBe('on');
    expect(() => bmcs.endpoint('n9')).toThrow(/no BMC serves node n9/);
    await expect(bmcs.ensure('n9')).rejects.toThrow(/no such node: n9/);
  });

  it('a SIGKILLed parent leaves no ipmi_sim running', async () => {
    const state = mkdtempSync(join(tmpdir(), 'palisade-bmc-kill-'));
    const fixture = 'sim/infra/ipmi/holdBmcs.fixture.ts';
    const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', fixture, state], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout!.on('data', (d) => (out += d));
    try {
      const line = await eventually(
        () => out.split('\n').find((l) => l.startsWith('{')),
        'endpoints',
        30_000,
      );
      const ports = Object.values(JSON.parse(line) as Record<string, BmcEndpoint>).map((e) => e.port);
      expect(ports).toHaveLength(2);
      for (const p of ports) expect(await udpPortFree(p)).toBe(false);
      child.kill('SIGKILL');
      for (const p of ports) await eventually(() => udpPortFree(p), `BMC on port ${p} gone`, 10_000);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
      rmSync(state, { recursive: true, force: true });
    }
  });
});
