// Runs a ClusterLabs fence agent as a subprocess. An agent's failure is a result to record
// on the NodeFence (with its own words), never an exception: the fencing controller retries
// or gives up on it. A timeout kills the agent's whole process group, so an ipmitool stuck
// on an unreachable BMC does not outlive the attempt. The agent gets no arguments: its options
// (the BMC password among them) go to its stdin, so no credential shows in `ps` or
// /proc/<pid>/cmdline; and it gets a minimal environment (a fixed PATH, the C locale), never
// Palisade's own (which holds, e.g., the PostgreSQL URL and the Kubernetes service address).
// fence_ipmilan would put the password on ipmitool's command line: it runs Palisade's ipmitool
// shim instead, with the password in its environment (lib/fenceAgents/invocation.ts).
import { spawn } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { fileURLToPath } from 'node:url';
import {
  type AgentInvocation,
  type AgentProcessInput,
  agentProcessInput,
  candidatePaths,
  SYSTEM_DIRS,
  describeInvocation,
  installHint,
  type PowerState,
  parseStatus,
  redact,
  runsIpmitool,
  withAction,
} from '../../lib/fenceAgents/invocation.js';
import { component, type Logger } from '../log.js';

export type AgentResult = 'Succeeded' | 'Failed' | 'TimedOut';

export interface AgentRun {
  result: AgentResult;
  exitCode: number | null;
  /** stdout and stderr interleaved, secrets redacted, at most OUTPUT_LIMIT characters */
  output: string;
  durationMs: number;
}

export interface RunOptions {
  timeoutMs: number;
  /** cancels the run (Failed, "cancelled") */
  signal?: AbortSignal;
  /** where the run is logged (component 'fenceAgent'): the command line with its credentials hidden, the result */
  logger?: Logger;
}

/** what a NodeFence attempt keeps of an agent's output: its last lines matter most */
export const OUTPUT_LIMIT = 4096;
/** kept while running; far above OUTPUT_LIMIT so trimming never cuts a secret we must redact */
const BUFFER_LIMIT = 64 * 1024;
/** after SIGTERM to the group, how long before SIGKILL */
const KILL_GRACE_MS = 1000;

export function findAgent(agent: string): string | undefined {
  return candidatePaths(agent, process.env.PATH).find((p) => {
    try {
      accessSync(p, constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

/** beside this module in the source, beside main.js in dist/server (scripts/build-server.mjs) */
const SHIM = fileURLToPath(new URL('./ipmitool-env.sh', import.meta.url));

/** Palisade's ipmitool shim, if it is there and executable */
export function ipmitoolShim(): string | undefined {
  try {
    accessSync(SHIM, constants.X_OK);
    return SHIM;
  } catch {
    return undefined;
  }
}

function trimOutput(text: string): string {
  const t = text.trim();
  if (t.length <= OUTPUT_LIMIT) return t;
  const cut = t.length - OUTPUT_LIMIT;
  return `[${cut} characters trimmed]\n${t.slice(cut)}`;
}

/** All an agent's process gets: nothing of Palisade's own environment. */
export function agentEnv(): Record<string, string> {
  return {
    // agents call helpers such as ipmitool by absolute path, but some look on PATH
    PATH: SYSTEM_DIRS.join(':'),
    // fence-agents 4.12 on Python 3.11 warn about `pipes` on every run: noise in every record
    PYTHONWARNINGS: 'ignore::DeprecationWarning',
    LANG: 'C',
    LC_ALL: 'C',
  };
}

function killGroup(pid: number | undefined, sig: NodeJS.Signals) {
  if (!pid) return;
  try {
    process.kill(-pid, sig);
  } catch {
    // the group is gone already
  }
}

/** Status queries exit 0 (on) or 2 (off): both are answers. Other actions succeed with 0. */
function resultOf(inv: AgentInvocation, code: number | null): AgentResult {
  if (code === 0) return 'Succeeded';
  return inv.action === 'status' && code === 2 ? 'Succeeded' : 'Failed';
}

export function runAgent(inv: AgentInvocation, opts: RunOptions): Promise<AgentRun> {
  const started = Date.now();
  const log = component('fenceAgent', { agent: inv.agent, node: inv.node, action: inv.action }, opts.logger);
  const done = (result: AgentResult, exitCode: number | null, output: string): AgentRun => {
    const run = {
      result,
      exitCode,
      output: trimOutput(redact(output, inv.secrets)),
      durationMs: Date.now() - started,
    };
    const facts = { result, exitCode, durationMs: run.durationMs, lastLine: run.output.split('\n').at(-1) };
    // status queries repeat while a fence is verified (the verdict is the controller's to log)
    if (inv.action === 'status') log.debug(facts, 'status query done');
    else if (result === 'Succeeded') log.info(facts, 'fence agent succeeded');
    else log.warn(facts, 'fence agent did not succeed');
    return run;
  };
  const bin = findAgent(inv.agent);
  if (!bin) return Promise.resolve(done('Failed', null, installHint(inv.agent)));
  if (opts.signal?.aborted) return Promise.resolve(done('Failed', null, 'cancelled before the agent ran'));

  let input: AgentProcessInput;
  const shim = ipmitoolShim();
  try {
    input = agentProcessInput(inv, shim);
  } catch (e) {
    return Promise.resolve(done('Failed', null, (e as Error).message));
  }
  if (!shim && runsIpmitool(inv.agent) && inv.params['--password'])
    log.warn(
      { shim: SHIM },
      "ipmitool shim missing: the password is on ipmitool's command line until it masks it",
    );
  log.debug({ command: describeInvocation(inv) }, 'running fence agent');
  return new Promise((resolve) => {
    // its own process group: one kill reaches the agent and the tools it started; no argument
    // at all (fence-agents then read their options from stdin)
    const child = spawn(bin, [], {
      detached: true,
      stdio: ['pipe', 'pipe', 'pipe'],
      env: { ...agentEnv(), ...input.env } as NodeJS.ProcessEnv,
      cwd: '/',
    });
    // an agent that exits before reading its input closes the pipe: its exit code tells why
    child.stdin.on('error', () => undefined);
    child.stdin.end(input.stdin);
    let out = '';
    const collect = (d: Buffer) => {
      out += d.toString('utf8');
      if (out.length > BUFFER_LIMIT) out = out.slice(-BUFFER_LIMIT / 2);
    };
    child.stdout.on('data', collect);
    child.stderr.on('data', collect);
    let ended: { result: AgentResult; note: string } | undefined;
    const end = (result: AgentResult, note: string) => {
      if (ended) return;
      ended = { result, note };
      killGroup(child.pid, 'SIGTERM');
      setTimeout(() => killGroup(child.pid, 'SIGKILL'), KILL_GRACE_MS).unref();
    };
    const timer = setTimeout(() => end('TimedOut', `timed out after ${opts.timeoutMs} ms`), opts.timeoutMs);
    const onAbort = () => end('Failed', 'cancelled');
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    const finish = (code: number | null, extra = '') => {
      clearTimeout(timer);
      opts.signal?.removeEventListener('abort', onAbort);
      const note = ended ? `\n${inv.agent}: ${ended.note}` : extra;
      resolve(done(ended?.result ?? resultOf(inv, code), code, out + note));
    };
    child.once('error', (e) => finish(null, `\n${inv.agent} could not be started: ${e.message}`));
    child.once('close', (code) => finish(code));
  });
}

export interface StatusQuery {
  power: PowerState;
  run: AgentRun;
}

/** `--action=status` with the same parameters: how a fence is verified */
export async function agentStatus(inv: AgentInvocation, opts: RunOptions): Promise<StatusQuery> {
  const run = await runAgent(withAction(inv, 'status'), opts);
  return { power: run.result === 'Succeeded' ? parseStatus(run.output) : 'unknown', run };
}
