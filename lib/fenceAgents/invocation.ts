// A ClusterLabs fence agent run, built from a FencePolicy's exec agent spec for one node.
// Pure: the runner (server/fenceAgents) spawns it, the Secrets are read elsewhere. Agents
// take long options (`--ip=10.0.0.5`, bare `--lanplus`), the same names FAR and Pacemaker use.
import type { AgentSpec } from '../fencing/types.js';

export type ExecAgentSpec = Extract<AgentSpec, { type: 'exec' }>;

/** fence and recover actions, plus the status query that verifies them */
export type AgentAction = 'off' | 'reboot' | 'on' | 'status';

export interface AgentInvocation {
  agent: string;
  node: string;
  action: AgentAction;
  /** parameter -> value ('' for a bare flag), without the action */
  params: Record<string, string>;
  /** values never to show: secret parameters and anything named like a password */
  secrets: string[];
}

export class InvocationError extends Error {}

const LONG_OPTION = /^--[a-z0-9][a-z0-9_-]*$/;
/** parameters whose value is a credential even when written in plain sharedParameters */
const SECRET_NAME = /pass|secret|token|key|kg/i;
/** the runner owns the action; letting a policy set it would turn a status query into a fence */
const RESERVED = new Set(['--action', '--option', '-o']);

function checkName(name: string, where: string) {
  if (!LONG_OPTION.test(name))
    throw new InvocationError(`${where}: "${name}" is not a long option such as "--ip" or "--lanplus"`);
  if (RESERVED.has(name))
    throw new InvocationError(`${where}: "${name}" is set by Palisade from agent.action, not a parameter`);
}

function nodeValue(param: string, byNode: Record<string, string>, node: string): string {
  const v = byNode[node];
  if (v !== undefined) return v;
  const known = Object.keys(byNode).sort().join(', ') || 'none';
  throw new InvocationError(
    `nodeParameters["${param}"] has no value for node "${node}" (nodes listed: ${known}); ` +
      'the agent would act on the wrong machine or none',
  );
}

/**
 * Parameters in order shared < per-node < secret: a node's own address wins over a shared
 * default, and a credential from a Secret wins over a placeholder left in the policy.
 * `secretValues` is parameter -> value as read from the referenced Secrets.
 */
export function buildInvocation(
  spec: ExecAgentSpec,
  node: string,
  secretValues: Record<string, string>,
  action: AgentAction = spec.action,
): AgentInvocation {
  const params: Record<string, string> = {};
  for (const [k, v] of Object.entries(spec.sharedParameters)) {
    checkName(k, 'sharedParameters');
    params[k] = v;
  }
  for (const [k, byNode] of Object.entries(spec.nodeParameters)) {
    checkName(k, 'nodeParameters');
    params[k] = nodeValue(k, byNode, node);
  }
  const secrets = new Set<string>();
  for (const ref of spec.secretRefs) {
    const v = secretValues[ref.parameter];
    if (v === undefined)
      throw new InvocationError(
        `secret ${ref.name}/${ref.key} for ${ref.parameter} was not read (the runner must resolve every secretRef)`,
      );
    checkName(ref.parameter, 'secretRefs');
    params[ref.parameter] = v;
    secrets.add(v);
  }
  for (const [k, v] of Object.entries(params)) if (SECRET_NAME.test(k)) secrets.add(v);
  secrets.delete('');
  return { agent: spec.agent, node, action, params, secrets: [...secrets] };
}

/** the same run with another action (verify a fence with a status query) */
export function withAction(inv: AgentInvocation, action: AgentAction): AgentInvocation {
  return { ...inv, action };
}

/** argv after the agent's name: `--name=value`, bare `--flag`, then `--action=...` */
export function agentArgs(inv: AgentInvocation): string[] {
  const args = Object.entries(inv.params).map(([k, v]) => (v === '' ? k : `${k}=${v}`));
  return [...args, `--action=${inv.action}`];
}

/** Replace every secret value in text; longest first so one secret inside another is covered. */
export function redact(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const s of [...secrets].filter(Boolean).sort((a, b) => b.length - a.length))
    out = out.split(s).join('***');
  return out;
}

/** the command line for logs and the NodeFence record, credentials hidden */
export function describeInvocation(inv: AgentInvocation): string {
  return redact([inv.agent, ...agentArgs(inv)].join(' '), inv.secrets);
}

export type PowerState = 'on' | 'off' | 'unknown';

/**
 * fence-agents print "Status: ON" / "Status: OFF" for --action=status (and exit 0 / 2).
 * The last such line counts: verbose runs may echo earlier states while polling.
 */
export function parseStatus(output: string): PowerState {
  const all = [...output.matchAll(/^\s*Status:\s*(ON|OFF)\s*$/gim)];
  const last = all.at(-1);
  if (!last) return 'unknown';
  return last[1].toUpperCase() === 'ON' ? 'on' : 'off';
}

/** Where agents live besides PATH: Debian installs fence_* in /usr/sbin, often not on a user's PATH. */
export const SYSTEM_DIRS = ['/usr/local/sbin', '/usr/local/bin', '/usr/sbin', '/usr/bin', '/sbin', '/bin'];

/** candidate paths for an executable, PATH first, each directory once */
export function candidatePaths(name: string, pathEnv = ''): string[] {
  const dirs = [...pathEnv.split(':').filter(Boolean), ...SYSTEM_DIRS].map((d) => d.replace(/\/+$/, ''));
  return [...new Set(dirs)].map((d) => `${d}/${name}`);
}

/** what to tell an operator whose machine lacks an agent */
export function installHint(agent: string): string {
  const extra = agent === 'fence_ipmilan' ? ' ipmitool' : '';
  return (
    `${agent} is not installed (looked on PATH and in ${SYSTEM_DIRS.join(', ')}): ` +
    `install it with "apt-get install fence-agents${extra}" (Debian/Ubuntu) or "dnf install fence-agents-all" (Fedora/RHEL)`
  );
}
