// A ClusterLabs fence agent run, built from a FencePolicy's exec agent spec for one node.
// Pure: the runner (server/fenceAgents) spawns it, the Secrets are read elsewhere. Policies name
// the agents' long options (`--ip`, bare `--lanplus`), the same names FAR and Pacemaker use; the
// runner hands them to the agent on stdin as `name=value` lines (fence-agents read options from
// stdin when run with no arguments, as Pacemaker runs them), so no credential is ever on a
// command line that `ps` or /proc shows. Nothing is built from a spec the agent's metadata does
// not allow (lib/fenceAgents/policy.ts): the controller checks first, this checks again.
import {
  type AgentProblem,
  agentParameters,
  agentScript,
  type ExecAgentSpec,
  judgeAgentParameters,
  judgeSecretValue,
  problemText,
  verdictText,
} from './policy.js';

export type { ExecAgentSpec } from './policy.js';

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

export class InvocationError extends Error {
  constructor(
    message: string,
    /** what the policy rule refused, when that is why */
    readonly problems: AgentProblem[] = [],
  ) {
    super(message);
    this.name = 'InvocationError';
  }
}

/** parameters whose value is a credential (redacted wherever the run is shown) */
const SECRET_NAME = /pass|secret|token|key|kg|community/i;

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
 * `secretValues` is parameter -> value as read from the referenced Secrets. Throws
 * InvocationError for a spec the agent rule refuses, or a Secret value it refuses.
 */
export function buildInvocation(
  spec: ExecAgentSpec,
  node: string,
  secretValues: Record<string, string>,
  action: AgentAction = spec.action,
): AgentInvocation {
  const verdict = judgeAgentParameters(spec);
  if (!verdict.ok)
    throw new InvocationError(
      `the agent's parameters are refused: ${verdictText(verdict)}`,
      verdict.problems,
    );
  const params: Record<string, string> = { ...spec.sharedParameters };
  for (const [k, byNode] of Object.entries(spec.nodeParameters)) params[k] = nodeValue(k, byNode, node);
  const secrets = new Set<string>();
  for (const ref of spec.secretRefs) {
    const v = secretValues[ref.parameter];
    if (v === undefined)
      throw new InvocationError(
        `secret ${ref.name}/${ref.key} for ${ref.parameter} was not read (the runner must resolve every secretRef)`,
      );
    const refused = judgeSecretValue(spec.agent, ref.parameter, v, `Secret ${ref.name}, key ${ref.key}`);
    if (refused) throw new InvocationError(problemText(refused), [refused]);
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

/**
 * One stdin line's value. A flag ('' for a boolean, or for an agent the table does not know) is
 * "1". fencing.py strips the line and one pair of surrounding double quotes, so a value with
 * whitespace at either end, or quoted itself, is sent quoted to arrive exactly as it is.
 */
function stdinValue(agent: string, param: string, v: string): string {
  const type = agentParameters(agent)?.[param];
  if (v === '' && (type === 'boolean' || type === undefined)) return '1';
  return /^\s|\s$|^".*"$/s.test(v) ? `"${v}"` : v;
}

/** what no stdin line may hold: a line break would start another option */
const LINE_BREAK = /[\r\n\u0085\u2028\u2029]/;

/**
 * stdin lines `name=value` (the long option without its dashes), then `action=...`. Throws
 * InvocationError for a name that is no long option or a line break anywhere, whoever built the
 * invocation (buildInvocation refuses both before).
 */
export function agentInputLines(inv: AgentInvocation): string[] {
  const lines = Object.entries(inv.params).map(([k, v]) => {
    if (!/^--[A-Za-z0-9][A-Za-z0-9_.-]*$/.test(k) || LINE_BREAK.test(v))
      throw new InvocationError(
        `parameter ${JSON.stringify(k)}: not a long option, or its value holds a line break`,
      );
    return `${k.slice(2)}=${stdinValue(inv.agent, k, v)}`;
  });
  return [...lines, `action=${inv.action}`];
}

/** What the runner writes to the agent's stdin. */
export function agentInput(inv: AgentInvocation): string {
  return `${agentInputLines(inv).join('\n')}\n`;
}

/** fence_ipmilan, or an alias of it (fence_idrac, fence_ilo3-5, fence_imm, fence_ipmilanplus) */
export const runsIpmitool = (agent: string): boolean => agentScript(agent) === 'fence_ipmilan';

/** What the agent's process gets besides the runner's fixed environment. */
export interface AgentProcessInput {
  stdin: string;
  env: Record<string, string>;
}

/**
 * The agent's stdin and extra environment. fence_ipmilan hands its password to ipmitool as
 * `-P <password>`, on ipmitool's command line until ipmitool overwrites it (milliseconds, more
 * on a loaded machine). Given Palisade's ipmitool shim (server/fenceAgents/ipmitool-env.sh),
 * an ipmitool agent gets no password on stdin but `ipmitool-path=<shim>`, and the password as
 * IPMI_PASSWORD in its environment, which the shim has ipmitool read with -E. Without a shim,
 * or for other agents, every option goes to stdin.
 */
export function agentProcessInput(inv: AgentInvocation, ipmitoolShim?: string): AgentProcessInput {
  const password = inv.params['--password'];
  if (!ipmitoolShim || !runsIpmitool(inv.agent) || !password) return { stdin: agentInput(inv), env: {} };
  const { '--password': _, ...params } = inv.params;
  params['--ipmitool-path'] = ipmitoolShim;
  return { stdin: agentInput({ ...inv, params }), env: { IPMI_PASSWORD: password } };
}

/** Replace every secret value in text; longest first so one secret inside another is covered. */
export function redact(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const s of [...secrets].filter(Boolean).sort((a, b) => b.length - a.length))
    out = out.split(s).join('***');
  return out;
}

/** the run for logs and the NodeFence record (what goes to stdin), credentials hidden */
export function describeInvocation(inv: AgentInvocation): string {
  return redact(`${inv.agent} < ${agentInputLines(inv).join(' ')}`, inv.secrets);
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
