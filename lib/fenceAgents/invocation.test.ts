import { describe, expect, it } from 'vitest';
import { agentSpec } from '../fencing/types.js';
import {
  agentInput,
  agentInputLines,
  agentProcessInput,
  buildInvocation,
  candidatePaths,
  describeInvocation,
  type ExecAgentSpec,
  installHint,
  InvocationError,
  parseStatus,
  redact,
  withAction,
} from './invocation.js';

const spec = (extra: Record<string, unknown> = {}) =>
  agentSpec.parse({
    type: 'exec',
    agent: 'fence_ipmilan',
    sharedParameters: { '--lanplus': '', '--cipher': '3', '--username': 'admin' },
    nodeParameters: { '--ip': { n1: '127.0.0.1', n2: '127.0.0.1' }, '--ipport': { n1: '9001', n2: '9002' } },
    secretRefs: [{ name: 'bmc', key: 'password', parameter: '--password' }],
    ...extra,
  }) as ExecAgentSpec;

describe('buildInvocation', () => {
  it('builds stdin lines for one node: shared, per-node, secret, then the action', () => {
    const inv = buildInvocation(spec(), 'n2', { '--password': 's3cret' });
    expect(agentInput(inv)).toBe(
      'lanplus=1\ncipher=3\nusername=admin\nip=127.0.0.1\nipport=9002\npassword=s3cret\naction=off\n',
    );
    expect(inv.secrets).toEqual(['s3cret']);
  });

  const quoting: [string, string, string][] = [
    ['as it is', `pä$$ w'o"rd;`, `password=pä$$ w'o"rd;`],
    ['quoted when it starts with a space (fencing.py strips the line)', ' pw', 'password=" pw"'],
    ['quoted when it ends with a space', 'pw ', 'password="pw "'],
    ['quoted when quoted itself (fencing.py strips one pair)', '"pw"', 'password=""pw""'],
  ];
  it('never writes a line break or a name that is no long option to stdin, whoever built the run', () => {
    const inv = buildInvocation(spec(), 'n1', { '--password': 'x' });
    expect(() => agentInput({ ...inv, params: { '--password': 'x\nsudo-path=/bin/sh' } })).toThrow(
      InvocationError,
    );
    expect(() => agentInput({ ...inv, params: { 'sudo-path=/bin/sh\nip': '1' } })).toThrow(
      /not a long option/,
    );
  });

  it.each(quoting)('sends a password %s', (_, pw, line) => {
    const inv = buildInvocation(spec(), 'n1', { '--password': pw });
    expect(agentInputLines(inv)).toContain(line);
  });

  const actions: [string, Record<string, unknown>, string | undefined, string][] = [
    ['the policy action', { action: 'reboot' }, undefined, 'action=reboot'],
    ['the default action', {}, undefined, 'action=off'],
    ['a status query', { action: 'reboot' }, 'status', 'action=status'],
    ['power on (recovery)', {}, 'on', 'action=on'],
  ];
  it.each(actions)('%s', (_, extra, action, last) => {
    const inv = buildInvocation(spec(extra), 'n1', { '--password': 'x' }, action as never);
    expect(agentInputLines(inv).at(-1)).toBe(last);
  });

  it('withAction keeps everything but the action', () => {
    const inv = buildInvocation(spec(), 'n1', { '--password': 'x' });
    const status = withAction(inv, 'status');
    expect(agentInputLines(status).slice(0, -1)).toEqual(agentInputLines(inv).slice(0, -1));
    expect(agentInputLines(status).at(-1)).toBe('action=status');
  });

  it('a node-specific value wins over a shared one, a Secret over both', () => {
    const s = spec({
      sharedParameters: { '--ip': '10.0.0.1', '--username': 'placeholder' },
      nodeParameters: { '--ip': { n1: '10.0.0.9' } },
      secretRefs: [{ name: 'bmc', key: 'user', parameter: '--username' }],
    });
    const inv = buildInvocation(s, 'n1', { '--username': 'real' });
    expect(inv.params).toEqual({ '--ip': '10.0.0.9', '--username': 'real' });
    expect(inv.secrets).toEqual(['real']);
  });

  const errors: [string, Record<string, unknown>, string, Record<string, string>, RegExp][] = [
    [
      'a node missing from a per-node parameter',
      {},
      'n3',
      { '--password': 'x' },
      /nodeParameters\["--ip"\] has no value for node "n3" \(nodes listed: n1, n2\)/,
    ],
    ['an unresolved secretRef', {}, 'n1', {}, /secret bmc\/password for --password was not read/],
    [
      'a parameter the agent does not declare',
      { sharedParameters: { lanplus: '' } },
      'n1',
      { '--password': 'x' },
      /refused: spec.agent.sharedParameters\["lanplus"\]: fence_ipmilan has no parameter "lanplus"/,
    ],
    [
      'the action set as a parameter',
      { sharedParameters: { '--action': 'on' } },
      'n1',
      { '--password': 'x' },
      /"--action" is refused: it is set by Palisade/,
    ],
    [
      'the injection of issue 23',
      { sharedParameters: { '--use-sudo': '', '--sudo-path': "/bin/sh -c 'id >> /tmp/x'" } },
      'n1',
      { '--password': 'x' },
      /"--use-sudo" is refused: it makes the agent run another program/,
    ],
    [
      "a Secret value that would add a line to the agent's stdin",
      {},
      'n1',
      { '--password': 'x\nsudo-path=/bin/sh' },
      /^Secret bmc, key password: the value of "--password" contains a control character or line break$/,
    ],
  ];
  it.each(errors)('rejects %s', (_, extra, node, secrets, message) => {
    expect(() => buildInvocation(spec(extra), node, secrets)).toThrow(InvocationError);
    expect(() => buildInvocation(spec(extra), node, secrets)).toThrow(message);
  });

  it('refuses a credential written in the policy, where every reader of FencePolicies sees it', () => {
    const s = spec({ sharedParameters: { '--hexadecimal-kg': 'abcd', '--lanplus': '' } });
    expect(() => buildInvocation(s, 'n1', { '--password': 'x' })).toThrow(
      /"--hexadecimal-kg" is a credential: give it through spec.agent.secretRefs/,
    );
  });

  it('every value from a Secret is a secret, never the empty string', () => {
    const s = spec({
      secretRefs: [
        { name: 'bmc', key: 'password', parameter: '--password' },
        { name: 'bmc', key: 'kg', parameter: '--hexadecimal-kg' },
        { name: 'bmc', key: 'user', parameter: '--username' },
      ],
    });
    const inv = buildInvocation(s, 'n1', {
      '--password': 'pw',
      '--hexadecimal-kg': 'abcd',
      '--username': '',
    });
    expect(inv.secrets.sort()).toEqual(['abcd', 'pw']);
  });
});

describe('redact', () => {
  const cases: [string, string, string[], string][] = [
    ['one secret', 'login failed for pw hunter2', ['hunter2'], 'login failed for pw ***'],
    ['every occurrence', 'a=x1 b=x1', ['x1'], 'a=*** b=***'],
    ['longest first', 'pw=abcdef', ['abc', 'abcdef'], 'pw=***'],
    ['regex characters are literal', 'p=a.b*c', ['a.b*c'], 'p=***'],
    ['empty secrets are ignored', 'nothing', [''], 'nothing'],
  ];
  it.each(cases)('%s', (_, text, secrets, out) => expect(redact(text, secrets)).toBe(out));

  it('describes a run with credentials hidden', () => {
    const inv = buildInvocation(spec(), 'n1', { '--password': 's3cret' });
    expect(describeInvocation(inv)).toBe(
      'fence_ipmilan < lanplus=1 cipher=3 username=admin ip=127.0.0.1 ipport=9001 password=*** action=off',
    );
  });
});

describe('parseStatus', () => {
  const cases: [string, string, string][] = [
    ['on', 'Status: ON\n', 'on'],
    ['off', 'Status: OFF', 'off'],
    ['with warnings around', 'DeprecationWarning: pipes\nStatus: ON\n\n', 'on'],
    ['the last line wins', 'Status: ON\nStatus: OFF\n', 'off'],
    ['a failure', '2026-01-01 ERROR: Failed: Unable to obtain correct plug status\n', 'unknown'],
    ['a status inside a sentence', 'Plug Status: ON means nothing here', 'unknown'],
    ['empty', '', 'unknown'],
  ];
  it.each(cases)('%s', (_, out, state) => expect(parseStatus(out)).toBe(state));
});

describe('finding agents', () => {
  it('looks on PATH first, then the system directories, each once', () => {
    const paths = candidatePaths('fence_ipmilan', '/opt/bin:/usr/bin/:');
    expect(paths[0]).toBe('/opt/bin/fence_ipmilan');
    expect(paths).toContain('/usr/sbin/fence_ipmilan');
    expect(paths.filter((p) => p === '/usr/bin/fence_ipmilan')).toHaveLength(1);
  });

  it('says how to install a missing agent', () => {
    expect(installHint('fence_ipmilan')).toMatch(/apt-get install fence-agents ipmitool/);
    expect(installHint('fence_virsh')).toMatch(/apt-get install fence-agents"/);
  });
});

describe('agentProcessInput', () => {
  const SHIM = '/app/dist/server/ipmitool-env.sh';
  const pw = `pä$$ w'o"rd `;
  const cases: [string, string, string | undefined, Record<string, string>, boolean][] = [
    // name, agent, shim, expected env, password on stdin
    [
      'fence_ipmilan with the shim: the password in the environment',
      'fence_ipmilan',
      SHIM,
      { IPMI_PASSWORD: pw },
      false,
    ],
    ['fence_idrac (the same script) too', 'fence_idrac', SHIM, { IPMI_PASSWORD: pw }, false],
    ['fence_ilo4 (an alias of fence_idrac) too', 'fence_ilo4', SHIM, { IPMI_PASSWORD: pw }, false],
    ['fence_ilo (its own script, no ipmitool): on stdin', 'fence_ilo', SHIM, {}, true],
    ['without the shim: on stdin', 'fence_ipmilan', undefined, {}, true],
    ['another agent: on stdin', 'fence_redfish', SHIM, {}, true],
  ];
  it.each(cases)('%s', (_, agent, shim, env, onStdin) => {
    const inv = { ...buildInvocation(spec(), 'n1', { '--password': pw }), agent };
    const input = agentProcessInput(inv, shim);
    expect(input.env).toEqual(env);
    expect(input.stdin.includes('password=')).toBe(onStdin);
    expect(input.stdin.includes(`ipmitool-path=${SHIM}\n`)).toBe(!onStdin);
    expect(input.stdin).toMatch(/action=off\n$/);
  });

  it("leaves a run without a password as it is (fence_ipmilan then passes -P '')", () => {
    const inv = buildInvocation(spec({ secretRefs: [] }), 'n1', {});
    expect(agentProcessInput(inv, SHIM)).toEqual({ stdin: agentInput(inv), env: {} });
  });
});
