// What a FencePolicy may tell a ClusterLabs fence agent, judged against the agent's own metadata
// (lib/fenceAgents/metadata.json, generated from `fence_<agent> -o metadata` by
// scripts/fence-agents-metadata.py). Palisade runs the agent in its own process with its own
// credentials, so a parameter is a command to Palisade: the rule lets through only options the
// agent declares, with values of the declared type, and refuses every option that makes the agent
// run another program, read or write a file on Palisade's machine, or do something else than the
// action Palisade asks for. Values may not carry whitespace, quotes, shell metacharacters or a
// leading "-": fence_ipmilan and others paste values into a command line they split again
// (shlex), and device CLIs read them as words. One rule for the admission webhook (a bad policy is
// refused when written) and the controller (checked again before any agent runs).
// Pure: typed problems (code + field + parameter), never sentences to parse; problemText words them.
import type { AgentSpec } from '../fencing/types.js';
import metadata from './metadata.json' with { type: 'json' };

/** A FencePolicy's agent that Palisade runs as a program (a ClusterLabs fence agent). */
export type ExecAgentSpec = Extract<AgentSpec, { type: 'exec' }>;

export type ParamType = 'boolean' | 'string' | 'integer' | 'second' | readonly string[];

interface Table {
  common: Record<string, ParamType>;
  agents: Record<string, Record<string, ParamType> | string>;
}

const TABLE = metadata as Table;

/** Every agent the table knows, aliases included (fence_idrac is fence_ipmilan's). */
export const KNOWN_AGENTS: readonly string[] = Object.keys(TABLE.agents);

/** The agent an alias runs (fence_ilo3 -> fence_idrac -> fence_ipmilan); the name itself otherwise. */
export function agentScript(agent: string): string {
  let name = agent;
  // bounded: a cycle in the table must not hang a fence
  for (let hops = 0, next = TABLE.agents[name]; typeof next === 'string' && hops < 8; hops++) {
    name = next;
    next = TABLE.agents[name];
  }
  return name;
}

/** The options an agent declares, with their types; undefined for an agent the table does not know. */
export function agentParameters(agent: string): Readonly<Record<string, ParamType>> | undefined {
  // fence_ilo4 -> fence_idrac -> fence_ipmilan: aliases may chain
  const own = TABLE.agents[agentScript(agent)];
  if (own === undefined || typeof own === 'string') return undefined;
  return { ...TABLE.common, ...own };
}

/** Why a parameter is refused whatever its value. */
export type ForbiddenCategory = 'program' | 'path' | 'file' | 'reserved';

/**
 * Options that make the agent run something else (a binary, a script through a shell, sudo, an
 * ssh option such as ProxyCommand, a kubeconfig's exec plugin, an openrc sourced by /bin/sh).
 */
const PROGRAM = new Set([
  '--use-sudo',
  '--password-script',
  '--snmp-priv-passwd-script',
  '--exec',
  '--runonfail',
  '--runonwarn',
  '--ssh-options',
  '--openrc',
  '--kubeconfig',
]);

/** Options that name a file or device on Palisade's machine, to read, write or act on. */
const FILE = new Set([
  '--debug-file',
  '--logfile',
  '--identity-file',
  '--cookie-file',
  '--token-file',
  '--status-file',
  '--serviceaccount',
  '--cacert',
  '--tlscacert',
  '--tlscert',
  '--tlskey',
  '--devices',
]);

/** Palisade sets the action; these would make the agent do something else than it (or nothing). */
const RESERVED = new Set(['--action', '-o', '--help', '--version']);

/** The category of a parameter refused whatever its value, or undefined. */
export function forbiddenCategory(parameter: string): ForbiddenCategory | undefined {
  if (RESERVED.has(parameter)) return 'reserved';
  if (PROGRAM.has(parameter) || /^--sudo/.test(parameter)) return 'program';
  // every *-path: ipmitool, ssh, telnet, sudo, snmpget... (and --store-path, --api-path: one rule)
  if (/-path$/.test(parameter)) return 'path';
  if (FILE.has(parameter)) return 'file';
  return undefined;
}

/**
 * Credentials: never written in the policy (anyone who may read FencePolicies would see them),
 * only from Secrets (secretRefs).
 */
const CREDENTIALS = new Set([
  '--password',
  '--snmp-priv-passwd',
  '--community',
  '--secret-key',
  '--apikey',
  '--token',
  '--hexadecimal-kg',
]);

/**
 * Credentials the agents pass on quoted or through a library (ipmitool -P 'x', HTTP basic auth,
 * SNMP quoted): any text but a control character. Every other value follows the strict rule.
 */
const FREE_TEXT_CREDENTIALS = new Set([
  '--password',
  '--snmp-priv-passwd',
  '--community',
  '--secret-key',
  '--apikey',
  '--token',
]);

/** Parameters naming the machine the agent talks to: a host name or an IP address, nothing else. */
const HOST_PARAMETERS = new Set(['--ip', '--crosscableip', '--proxyhost']);

export const MAX_VALUE_LENGTH = 1024;

export type AgentProblem =
  | { code: 'unknown-agent'; field: string; agent: string }
  | { code: 'unknown-parameter'; field: string; parameter: string; agent: string }
  | { code: 'forbidden-parameter'; field: string; parameter: string; category: ForbiddenCategory }
  | { code: 'credential-in-policy'; field: string; parameter: string }
  | { code: 'not-boolean'; field: string; parameter: string }
  | { code: 'not-integer'; field: string; parameter: string }
  | { code: 'not-a-choice'; field: string; parameter: string; choices: readonly string[] }
  | { code: 'not-a-host'; field: string; parameter: string }
  | { code: 'control-character'; field: string; parameter: string }
  | { code: 'unsafe-characters'; field: string; parameter: string; characters: string }
  | { code: 'leading-dash'; field: string; parameter: string }
  | { code: 'too-long'; field: string; parameter: string }
  | { code: 'credentials-namespace'; field: string; namespace: string; allowed: readonly string[] };

export type AgentProblemCode = AgentProblem['code'];

export type AgentVerdict = { ok: true } | { ok: false; problems: AgentProblem[] };

/** C0, DEL, C1 and the Unicode line separators: a new line would be a new option on stdin. */
const CONTROL = /[\p{Cc}\u2028\u2029]/u;
/** whitespace, quotes and what a shell or shlex gives meaning to */
const UNSAFE = /[\s'"`$\\;&|<>(){}*?!~#]/gu;
const IPV4 = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;
const IPV6 = /^[0-9A-Fa-f:]+(%[A-Za-z0-9]+)?$/;
const HOST_LABEL = /^[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/;

function isHost(v: string): boolean {
  if (IPV4.test(v)) return true;
  const bare = v.startsWith('[') && v.endsWith(']') ? v.slice(1, -1) : v;
  if (bare.includes(':')) return IPV6.test(bare) && (bare.match(/:/g)?.length ?? 0) >= 2;
  // a name: dot-separated labels, not all digits (that would be a malformed IPv4)
  const labels = v.replace(/\.$/, '').split('.');
  return v.length <= 253 && labels.every((l) => HOST_LABEL.test(l)) && !/^[\d.]+$/.test(v);
}

/** Problems of one value (policy or Secret) for one declared parameter; strict unless a free-text credential from a Secret. */
function valueProblems(
  field: string,
  parameter: string,
  type: ParamType,
  value: string,
  fromSecret: boolean,
): AgentProblem[] {
  const at = { field, parameter };
  if (value.length > MAX_VALUE_LENGTH) return [{ code: 'too-long', ...at }];
  if (CONTROL.test(value)) return [{ code: 'control-character', ...at }];
  if (fromSecret && FREE_TEXT_CREDENTIALS.has(parameter)) return [];
  if (type === 'boolean') return value === '' ? [] : [{ code: 'not-boolean', ...at }];
  if (type === 'integer' || type === 'second')
    return /^\d{1,9}$/.test(value) ? [] : [{ code: 'not-integer', ...at }];
  if (Array.isArray(type)) {
    const lower = value.toLowerCase();
    return type.some((c) => c.toLowerCase() === lower)
      ? []
      : [{ code: 'not-a-choice', ...at, choices: type }];
  }
  const unsafe = [...new Set(value.match(UNSAFE) ?? [])].join('');
  if (unsafe) return [{ code: 'unsafe-characters', ...at, characters: unsafe }];
  if (value.startsWith('-')) return [{ code: 'leading-dash', ...at }];
  if (HOST_PARAMETERS.has(parameter) && !isHost(value)) return [{ code: 'not-a-host', ...at }];
  return [];
}

const key = (name: string) => `[${JSON.stringify(name)}]`;

/** Whether a parameter name may be given at all; its type when it may. */
function nameProblems(
  agent: string,
  params: Readonly<Record<string, ParamType>>,
  field: string,
  parameter: string,
): { problem: AgentProblem } | { type: ParamType } {
  const category = forbiddenCategory(parameter);
  if (category) return { problem: { code: 'forbidden-parameter', field, parameter, category } };
  const type = params[parameter];
  if (type === undefined) return { problem: { code: 'unknown-parameter', field, parameter, agent } };
  return { type };
}

type AgentFields = Pick<
  ExecAgentSpec,
  'agent' | 'sharedParameters' | 'nodeParameters' | 'secretRefs' | 'credentialsNamespace'
>;

/**
 * Judge a FencePolicy's exec agent: the agent, every parameter name and value written in the
 * policy, every secretRef's parameter, and the credentials namespace (when Secrets are read).
 */
export function judgeExecAgent(
  spec: AgentFields,
  opts: { credentialsNamespaces: readonly string[] },
): AgentVerdict {
  const v = judgeAgentParameters(spec);
  const problems = v.ok ? [] : [...v.problems];
  const ns = spec.credentialsNamespace;
  if (spec.secretRefs.length > 0 && !opts.credentialsNamespaces.includes(ns))
    problems.push({
      code: 'credentials-namespace',
      field: 'spec.agent.credentialsNamespace',
      namespace: ns,
      allowed: opts.credentialsNamespaces,
    });
  return problems.length ? { ok: false, problems } : { ok: true };
}

/** The agent and its parameters only (what the runner checks again before every run). */
export function judgeAgentParameters(spec: Omit<AgentFields, 'credentialsNamespace'>): AgentVerdict {
  const problems: AgentProblem[] = [];
  const params = agentParameters(spec.agent);
  if (!params)
    return { ok: false, problems: [{ code: 'unknown-agent', field: 'spec.agent.agent', agent: spec.agent }] };
  const written = (field: string, parameter: string, values: [string, string][]) => {
    const n = nameProblems(spec.agent, params, field, parameter);
    if ('problem' in n) return void problems.push(n.problem);
    if (CREDENTIALS.has(parameter))
      return void problems.push({ code: 'credential-in-policy', field, parameter });
    for (const [where, v] of values) problems.push(...valueProblems(where, parameter, n.type, v, false));
  };
  for (const [p, v] of Object.entries(spec.sharedParameters)) {
    const field = `spec.agent.sharedParameters${key(p)}`;
    written(field, p, [[field, v]]);
  }
  for (const [p, byNode] of Object.entries(spec.nodeParameters)) {
    const field = `spec.agent.nodeParameters${key(p)}`;
    written(
      field,
      p,
      Object.entries(byNode).map(([node, v]) => [`${field}${key(node)}`, v]),
    );
  }
  spec.secretRefs.forEach((ref, i) => {
    const n = nameProblems(spec.agent, params, `spec.agent.secretRefs[${i}].parameter`, ref.parameter);
    if ('problem' in n) problems.push(n.problem);
  });
  return problems.length ? { ok: false, problems } : { ok: true };
}

/**
 * A value read from a Secret, just before the run: a line break would be a new option on the
 * agent's stdin; a non-credential value follows the strict rule like a written one.
 */
export function judgeSecretValue(
  agent: string,
  parameter: string,
  value: string,
  /** where the value came from, e.g. "Secret bmc, key password" */
  where = `the Secret value for ${parameter}`,
): AgentProblem | undefined {
  const type = agentParameters(agent)?.[parameter] ?? 'string';
  return valueProblems(where, parameter, type, value, true)[0];
}

const CATEGORY_WORDS: Record<ForbiddenCategory, string> = {
  program: 'makes the agent run another program (a binary, a script, sudo or an ssh option)',
  path: 'is a *-path parameter, naming a program or location the agent uses: Palisade always uses the agent’s default',
  file: 'names a file or device on Palisade’s own machine',
  reserved: 'is set by Palisade (the action comes from spec.agent.action)',
};

/** One problem in words, naming the field (the webhook's and the NodeFence's message). */
export function problemText(p: AgentProblem): string {
  switch (p.code) {
    case 'unknown-agent':
      return `${p.field}: "${p.agent}" is not a fence agent Palisade knows (lib/fenceAgents/metadata.json lists ${KNOWN_AGENTS.length}, e.g. fence_ipmilan, fence_redfish)`;
    case 'unknown-parameter':
      return `${p.field}: ${p.agent} has no parameter "${p.parameter}" (its metadata does not declare it)`;
    case 'forbidden-parameter':
      return `${p.field}: "${p.parameter}" is refused: it ${CATEGORY_WORDS[p.category]}`;
    case 'credential-in-policy':
      return `${p.field}: "${p.parameter}" is a credential: give it through spec.agent.secretRefs (a Secret), never in the policy, which everyone who may read FencePolicies sees`;
    case 'not-boolean':
      return `${p.field}: "${p.parameter}" is a flag: its value must be "" (given) or the parameter left out`;
    case 'not-integer':
      return `${p.field}: "${p.parameter}" takes a whole number (digits only)`;
    case 'not-a-choice':
      return `${p.field}: "${p.parameter}" must be one of ${p.choices.join(', ')}`;
    case 'not-a-host':
      return `${p.field}: "${p.parameter}" must be a host name or an IP address`;
    case 'control-character':
      return `${p.field}: the value of "${p.parameter}" contains a control character or line break`;
    case 'unsafe-characters':
      return `${p.field}: the value of "${p.parameter}" contains ${JSON.stringify(p.characters)}: whitespace, quotes and shell metacharacters are refused (agents split values into command lines)`;
    case 'leading-dash':
      return `${p.field}: the value of "${p.parameter}" starts with "-", which a tool would read as an option`;
    case 'too-long':
      return `${p.field}: the value of "${p.parameter}" is longer than ${MAX_VALUE_LENGTH} characters`;
    case 'credentials-namespace':
      return `${p.field}: "${p.namespace}" is not a namespace Palisade reads fence-agent credentials from (palisade.yaml fencing.credentialsNamespaces: ${p.allowed.join(', ') || 'none'})`;
  }
}

/** Every problem, separated by "; ": what the webhook answers and the controller records. */
export function verdictText(v: AgentVerdict): string {
  return v.ok ? '' : v.problems.map(problemText).join('; ');
}
