import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { agentSpec } from '../fencing/types.js';
import type { ExecAgentSpec } from './invocation.js';
import metadata from './metadata.json' with { type: 'json' };
import {
  type AgentProblem,
  agentParameters,
  agentScript,
  forbiddenCategory,
  judgeExecAgent,
  judgeSecretValue,
  KNOWN_AGENTS,
  problemText,
  verdictText,
} from './policy.js';

const NAMESPACES = { credentialsNamespaces: ['palisade-system'] };

const spec = (agent: Record<string, unknown> = {}) =>
  agentSpec.parse({
    type: 'exec',
    agent: 'fence_ipmilan',
    sharedParameters: { '--lanplus': '', '--cipher': '3', '--username': 'admin' },
    nodeParameters: {
      '--ip': { n1: '10.0.0.5', n2: 'bmc-2.example.com' },
      '--ipport': { n1: '623', n2: '6230' },
    },
    secretRefs: [{ name: 'bmc', key: 'password', parameter: '--password' }],
    credentialsNamespace: 'palisade-system',
    ...agent,
  }) as ExecAgentSpec;

const problems = (s: ExecAgentSpec, opts = NAMESPACES): AgentProblem[] => {
  const v = judgeExecAgent(s, opts);
  return v.ok ? [] : v.problems;
};

const shared = (p: Record<string, string>) => spec({ sharedParameters: p });

describe('judgeExecAgent', () => {
  it('lets a fence_ipmilan policy as the demo writes it through', () => {
    expect(judgeExecAgent(spec(), NAMESPACES)).toEqual({ ok: true });
  });

  it('refuses the injection of issue 23 by name, each parameter with its field', () => {
    const p = problems(shared({ '--use-sudo': '', '--sudo-path': "/bin/sh -c 'id >> /tmp/x'" }));
    expect(p).toEqual([
      {
        code: 'forbidden-parameter',
        field: 'spec.agent.sharedParameters["--use-sudo"]',
        parameter: '--use-sudo',
        category: 'program',
      },
      {
        code: 'forbidden-parameter',
        field: 'spec.agent.sharedParameters["--sudo-path"]',
        parameter: '--sudo-path',
        category: 'program',
      },
    ]);
    expect(problemText(p[1])).toBe(
      'spec.agent.sharedParameters["--sudo-path"]: "--sudo-path" is refused: it makes the agent run another program (a binary, a script, sudo or an ssh option)',
    );
  });

  const refused: [string, Record<string, string>, Partial<AgentProblem>][] = [
    ['a program path', { '--ipmitool-path': '/tmp/evil' }, { code: 'forbidden-parameter', category: 'path' }],
    [
      'a password script (os.popen)',
      { '--password-script': 'cat /x' },
      { code: 'forbidden-parameter', category: 'program' },
    ],
    [
      'a debug file Palisade would write',
      { '--debug-file': '/tmp/x' },
      { code: 'forbidden-parameter', category: 'file' },
    ],
    ['the action', { '--action': 'on' }, { code: 'forbidden-parameter', category: 'reserved' }],
    ['a short option', { '-o': 'on' }, { code: 'forbidden-parameter', category: 'reserved' }],
    [
      '--version, which exits 0 without fencing',
      { '--version': '' },
      { code: 'forbidden-parameter', category: 'reserved' },
    ],
    ['an unknown option', { '--no-such': '1' }, { code: 'unknown-parameter', agent: 'fence_ipmilan' }],
    ['a password in the policy', { '--password': 'hunter2' }, { code: 'credential-in-policy' }],
    ['a flag with a value', { '--lanplus': '1' }, { code: 'not-boolean' }],
    ['an integer with letters', { '--ipport': '623x' }, { code: 'not-integer' }],
    ['a negative second', { '--power-wait': '-1' }, { code: 'not-integer' }],
    [
      'a select outside its choices',
      { '--privlvl': 'root' },
      { code: 'not-a-choice', choices: ['callback', 'user', 'operator', 'administrator'] },
    ],
    [
      'a space, which ipmitool would see as two words',
      { '--cipher': '3 -E' },
      { code: 'unsafe-characters', characters: ' ' },
    ],
    ['a command substitution', { '--target': '$(id)' }, { code: 'unsafe-characters', characters: '$()' }],
    ['a semicolon', { '--username': 'a;b' }, { code: 'unsafe-characters', characters: ';' }],
    [
      'a newline (a new option on stdin)',
      { '--username': 'admin\nsudo-path=/bin/sh' },
      { code: 'control-character' },
    ],
    ['a NUL', { '--username': 'ad\u0000min' }, { code: 'control-character' }],
    ['a leading dash (an option to the tool)', { '--target': '-f/etc/shadow' }, { code: 'leading-dash' }],
    ['a value too long', { '--username': 'a'.repeat(1025) }, { code: 'too-long' }],
  ];
  it.each(refused)('refuses %s', (_, params, want) => {
    const p = problems(shared(params));
    expect(p).toHaveLength(1);
    expect(p[0]).toMatchObject({ parameter: Object.keys(params)[0], ...want });
    expect(problemText(p[0])).toContain(
      `spec.agent.sharedParameters[${JSON.stringify(Object.keys(params)[0])}]`,
    );
  });

  const hosts: [string, boolean][] = [
    ['10.0.0.5', true],
    ['bmc-2.example.com', true],
    ['bmc-2.example.com.', true],
    ['fd00::5', true],
    ['[fd00::5]', true],
    ['localhost', true],
    ['10.0.0.256', false],
    ['-H127.0.0.1', false],
    ['bmc_2', false],
    ['http://bmc', false],
    ['a..b', false],
    ['10.0.0', false],
  ];
  it.each(hosts)('--ip %s: a host name or address? %s', (ip, ok) => {
    const p = problems(spec({ nodeParameters: { '--ip': { n1: ip } } }));
    expect(p.length === 0).toBe(ok);
    if (!ok) expect(p[0].field).toBe('spec.agent.nodeParameters["--ip"]["n1"]');
  });

  it('accepts select choices as the agent does, whatever their case', () => {
    expect(problems(shared({ '--privlvl': 'OPERATOR', '--method': 'cycle', '--auth': 'md5' }))).toEqual([]);
  });

  it('checks every node value, naming the node', () => {
    const p = problems(spec({ nodeParameters: { '--ipport': { n1: '623', n2: 'x' } } }));
    expect(p).toEqual([
      { code: 'not-integer', field: 'spec.agent.nodeParameters["--ipport"]["n2"]', parameter: '--ipport' },
    ]);
  });

  it('checks a secretRef parameter is one the agent declares and may be given', () => {
    const p = problems(
      spec({
        secretRefs: [
          { name: 'bmc', key: 'password', parameter: '--password' },
          { name: 'bmc', key: 'path', parameter: '--sudo-path' },
          { name: 'bmc', key: 'x', parameter: '--nope' },
        ],
      }),
    );
    expect(p.map((x) => [x.code, x.field])).toEqual([
      ['forbidden-parameter', 'spec.agent.secretRefs[1].parameter'],
      ['unknown-parameter', 'spec.agent.secretRefs[2].parameter'],
    ]);
  });

  it('refuses an agent the table does not know', () => {
    expect(problems(spec({ agent: 'fence_evil' }))).toEqual([
      { code: 'unknown-agent', field: 'spec.agent.agent', agent: 'fence_evil' },
    ]);
  });

  it.each([
    ['fence_idrac', 'fence_ipmilan'],
    ['fence_ilo3', 'fence_ipmilan'],
    ['fence_ilo4', 'fence_ipmilan'],
    ['fence_ilo5', 'fence_ipmilan'],
    ['fence_imm', 'fence_ipmilan'],
    ['fence_ipmilanplus', 'fence_ipmilan'],
    ['fence_ipmilan', 'fence_ipmilan'],
  ])('follows the alias chain from %s to the script it runs (%s)', (alias, script) => {
    expect(agentScript(alias)).toBe(script);
    expect(agentParameters(alias)).toEqual(agentParameters(script));
    expect(problems(spec({ agent: alias }))).toEqual([]);
  });

  it('knows an alias by its original (fence_idrac is fence_ipmilan)', () => {
    expect(problems(spec({ agent: 'fence_idrac' }))).toEqual([]);
    expect(agentParameters('fence_idrac')).toEqual(agentParameters('fence_ipmilan'));
    expect(
      problems(spec({ agent: 'fence_idrac', sharedParameters: { '--ipmitool-path': '/x' } }))[0],
    ).toMatchObject({
      code: 'forbidden-parameter',
    });
  });

  it('reads credentials only from the namespaces palisade.yaml allows, and only when it reads any', () => {
    const elsewhere = spec({ credentialsNamespace: 'kube-system' });
    expect(problems(elsewhere)).toEqual([
      {
        code: 'credentials-namespace',
        field: 'spec.agent.credentialsNamespace',
        namespace: 'kube-system',
        allowed: ['palisade-system'],
      },
    ]);
    expect(problems(elsewhere, { credentialsNamespaces: ['palisade-system', 'kube-system'] })).toEqual([]);
    expect(problems(spec({ credentialsNamespace: 'kube-system', secretRefs: [] }))).toEqual([]);
  });

  it('says every problem, naming each field', () => {
    const v = judgeExecAgent(shared({ '--use-sudo': '', '--lanplus': 'yes' }), NAMESPACES);
    expect(verdictText(v)).toBe(
      'spec.agent.sharedParameters["--use-sudo"]: "--use-sudo" is refused: it makes the agent run another program (a binary, a script, sudo or an ssh option); ' +
        'spec.agent.sharedParameters["--lanplus"]: "--lanplus" is a flag: its value must be "" (given) or the parameter left out',
    );
  });
});

describe('judgeSecretValue', () => {
  it('lets a password carry any text but a line break', () => {
    expect(judgeSecretValue('fence_ipmilan', '--password', `pä$$ w'o"rd;`)).toBeUndefined();
    expect(judgeSecretValue('fence_ipmilan', '--password', 'pw\n')).toMatchObject({
      code: 'control-character',
    });
  });

  it('holds any other value from a Secret to the strict rule', () => {
    expect(judgeSecretValue('fence_ipmilan', '--username', 'admin')).toBeUndefined();
    expect(judgeSecretValue('fence_ipmilan', '--username', 'a b')).toMatchObject({
      code: 'unsafe-characters',
    });
    expect(judgeSecretValue('fence_ipmilan', '--hexadecimal-kg', '00 -E')).toMatchObject({
      code: 'unsafe-characters',
    });
  });
});

describe('the metadata table', () => {
  const table = metadata as { agents: Record<string, Record<string, unknown> | string> };
  const every = new Set(KNOWN_AGENTS.flatMap((a) => Object.keys(agentParameters(a) ?? {})));

  it('holds the agents Debian ships that Palisade users run', () => {
    for (const a of [
      'fence_ipmilan',
      'fence_ipmilanplus',
      'fence_idrac',
      'fence_ilo3',
      'fence_ilo4',
      'fence_ilo5',
      'fence_redfish',
      'fence_amt_ws',
      'fence_virsh',
      'fence_vmware_rest',
      'fence_aws',
      'fence_gce',
      'fence_azure_arm',
      'fence_apc',
      'fence_kdump',
    ].filter((a) => a !== 'fence_amt_ws' || a in table.agents))
      expect(KNOWN_AGENTS).toContain(a);
    expect(KNOWN_AGENTS.length).toBeGreaterThan(60);
  });

  it('refuses every option whose name says it runs, names a path or a file', () => {
    const risky = [...every].filter((p) =>
      /-path$|-script$|sudo|exec|^--run|-file$|kubeconfig|openrc/.test(p),
    );
    expect(risky.filter((p) => !forbiddenCategory(p))).toEqual([]);
  });

  it('lists what it refuses, so a regenerated table shows new ones in review', () => {
    expect([...every].filter((p) => forbiddenCategory(p)).sort()).toEqual([
      '--action',
      '--amttool-path',
      '--api-path',
      '--cacert',
      '--cookie-file',
      '--corosync-cmap-path',
      '--debug-file',
      '--devices',
      '--exec',
      '--gnutlscli-path',
      '--help',
      '--identity-file',
      '--ipmitool-path',
      '--kubeconfig',
      '--logfile',
      '--mpathpersist-path',
      '--openrc',
      '--openstack-path',
      '--password-script',
      '--powerman-path',
      '--runonfail',
      '--runonwarn',
      '--sbd-path',
      '--serviceaccount',
      '--sg_persist-path',
      '--sg_turs-path',
      '--snmp-priv-passwd-script',
      '--snmpget-path',
      '--snmpset-path',
      '--snmpwalk-path',
      '--ssh-options',
      '--ssh-path',
      '--status-file',
      '--store-path',
      '--sudo-path',
      '--telnet-path',
      '--tlscacert',
      '--tlscert',
      '--tlskey',
      '--token-file',
      '--use-sudo',
      '--vboxmanage-path',
      '--version',
      '--vgs-path',
    ]);
  });

  // the table matches the agent installed here (CI installs fence-agents): regenerate on a change
  it.skipIf(!existsSync('/usr/sbin/fence_ipmilan'))("matches fence_ipmilan's own metadata", () => {
    const out = execFileSync('python3', ['scripts/fence-agents-metadata.py', '--print', 'fence_ipmilan'], {
      encoding: 'utf8',
    });
    const live = JSON.parse(out).fence_ipmilan;
    expect(agentParameters('fence_ipmilan')).toEqual(live);
  });
});
