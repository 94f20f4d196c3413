// The structured logger as a collector sees it: every secret Palisade holds (tokens, cookies,
// Authorization headers, OIDC client secret and tokens, fence agent credentials, the one-time
// sign-in link) comes out as [redacted] through the real logger, wherever it sits in a line;
// terminal lines are readable; the environment picks the level and the format.
import { describe, expect, it } from 'vitest';
import { agentInputLines, buildInvocation, describeInvocation } from '../lib/fenceAgents/invocation.js';
import { ConsoleAuth } from './auth/service.js';
import { runAgent } from './fenceAgents/run.js';
import {
  CENSOR,
  component,
  createLogger,
  formatPretty,
  redactArgv,
  scrubText,
  settingsFromEnv,
} from './log.js';
import { captureLogs } from './test/logCapture.js';

const SECRETS = {
  token: 'tok-3f9a1c',
  bearer: 'sa-7d2e4b',
  cookie: 'sess-81c0aa',
  clientSecret: 'oidc-client-5b7e',
  refresh: 'refresh-c4d2f1',
  id: 'idtok-09ab7e',
  password: 'hunter2-ipmi',
};
const JWT = 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJzeXN0ZW06c2VydmljZWFjY291bnQifQ.c2lnbmF0dXJl';

/** no secret of the set (nor the JWT) anywhere in the raw lines */
function expectClean(lines: string[]) {
  const text = lines.join('');
  for (const s of [...Object.values(SECRETS), JWT]) expect(text).not.toContain(s);
}

describe('redaction through the real logger', () => {
  it('censors secret fields at any depth, in bindings too', () => {
    const logs = captureLogs();
    const log = component('auth', { token: SECRETS.token }, logs.logger);
    log.info(
      {
        token: SECRETS.token,
        headers: {
          authorization: `Bearer ${SECRETS.bearer}`,
          cookie: `palisade_session_3000=${SECRETS.cookie}`,
        },
        res: { headers: { 'set-cookie': [`palisade_session_3000=${SECRETS.cookie}; HttpOnly`] } },
        oidc: {
          issuer: 'https://idp.example',
          clientSecret: SECRETS.clientSecret,
          refreshToken: SECRETS.refresh,
          idToken: SECRETS.id,
          tokens: { refresh_token: SECRETS.refresh, id_token: SECRETS.id, access_token: SECRETS.bearer },
        },
        credential: { kind: 'bearer', token: SECRETS.bearer },
        session: { sessionId: SECRETS.cookie, user: 'ada' },
        policy: { agent: { params: { '--ip': '10.0.0.5', '--password': SECRETS.password } } },
        env: { IPMI_PASSWORD: SECRETS.password, PATH: '/usr/sbin' },
        deep: { a: { b: { c: { password: SECRETS.password } } } },
      },
      'signed in',
    );
    expectClean(logs.lines);
    const [r] = logs.records();
    expect(r).toMatchObject({
      level: 'info',
      component: 'auth',
      msg: 'signed in',
      token: CENSOR,
      headers: { authorization: CENSOR, cookie: CENSOR },
      res: { headers: { 'set-cookie': CENSOR } },
      oidc: {
        issuer: 'https://idp.example',
        clientSecret: CENSOR,
        refreshToken: CENSOR,
        idToken: CENSOR,
        tokens: CENSOR,
      },
      credential: CENSOR,
      session: { sessionId: CENSOR, user: 'ada' },
      policy: { agent: { params: { '--ip': '10.0.0.5', '--password': CENSOR } } },
      env: { IPMI_PASSWORD: CENSOR, PATH: '/usr/sbin' },
      deep: { a: { b: { c: { password: CENSOR } } } },
    });
    // the binding's line says it once, censored
    expect(logs.lines[0].match(/"token":"\[redacted\]"/g)).toHaveLength(2);
  });

  it('scrubs secrets out of messages and free-text fields', () => {
    const logs = captureLogs();
    const log = component('console', {}, logs.logger);
    log.warn(`request GET /auth/link?token=${SECRETS.token} failed`);
    log.warn({ url: `http://127.0.0.1:3000/auth/oidc/callback?code=${SECRETS.token}&state=s1` }, 'callback');
    log.warn({ detail: `upstream said: Authorization: Bearer ${SECRETS.bearer}` }, 'refused');
    log.warn({ detail: `service account token ${JWT} expired` }, 'refused');
    log.warn({ header: `palisade_session_3000=${SECRETS.cookie}; other=1` }, 'cookie header');
    log.warn(
      { body: `{"refresh_token":"${SECRETS.refresh}","client_secret":"${SECRETS.clientSecret}"}` },
      'body',
    );
    log.warn({ config: `client_secret=${SECRETS.clientSecret} issuer=https://idp` }, 'echoed');
    expectClean(logs.lines);
    const r = logs.records();
    expect(r[0].msg).toBe(`request GET /auth/link?token=${CENSOR} failed`);
    expect(r[1].url).toBe(`http://127.0.0.1:3000/auth/oidc/callback?code=${CENSOR}&state=s1`);
    expect(r[2].detail).toBe(`upstream said: Authorization: Bearer ${CENSOR}`);
    expect(r[6].config).toBe(`client_secret=${CENSOR} issuer=https://idp`);
  });

  it('serializes an error without the secrets in its message or properties', () => {
    const logs = captureLogs();
    const e = Object.assign(new Error(`401 for Bearer ${SECRETS.bearer}`), {
      code: 401,
      headers: { authorization: `Bearer ${SECRETS.bearer}` },
    });
    component('informer', {}, logs.logger).error({ err: e }, 'list failed');
    component('informer', {}, logs.logger).error(e);
    expectClean(logs.lines);
    const [r] = logs.records();
    expect(r.err).toMatchObject({ type: 'Error', message: `401 for Bearer ${CENSOR}`, code: 401 });
    expect(typeof (r.err as { stack: string }).stack).toBe('string');
  });

  it('hides an agent command line’s password, as argv or as text, before it is logged', () => {
    const spec = {
      type: 'exec' as const,
      agent: 'fence_ipmilan',
      action: 'off' as const,
      sharedParameters: { '--lanplus': '', '--username': 'admin' },
      nodeParameters: { '--ip': { n1: '10.0.0.5' } },
      secretRefs: [{ name: 'bmc', key: 'password', parameter: '--password' }],
      credentialsNamespace: 'kube-system',
    };
    const inv = buildInvocation(spec as never, 'n1', { '--password': SECRETS.password });
    // Palisade passes it on stdin; an argv as people write it by hand is censored all the same
    expect(agentInputLines(inv)).toContain(`password=${SECRETS.password}`);
    const argv = [
      'fence_ipmilan',
      '--lanplus',
      '--username=admin',
      '--ip=10.0.0.5',
      `--password=${SECRETS.password}`,
    ];
    const logs = captureLogs();
    const log = component('fenceAgent', {}, logs.logger);
    log.info({ argv }, 'argv');
    log.info(
      { argv: ['fence_ipmilan', '-a', '10.0.0.5', '-l', 'admin', '-p', SECRETS.password, '-o', 'off'] },
      'short',
    );
    log.info({ argv: ['fence_ipmilan', '--password', SECRETS.password, '--ip=10.0.0.5'] }, 'separate');
    log.info({ command: argv.join(' ') }, 'text');
    log.info(`fence_ipmilan -a 10.0.0.5 -p ${SECRETS.password} -o off`);
    log.info({ command: describeInvocation(inv) }, 'described');
    log.info({ stdin: agentInputLines(inv).join('\n') }, 'stdin');
    expectClean(logs.lines);
    const r = logs.records();
    expect(r[0].argv).toContain(`--password=${CENSOR}`);
    expect(r[0].argv).toContain('--ip=10.0.0.5');
    expect(r[1].argv).toEqual(['fence_ipmilan', '-a', '10.0.0.5', '-l', 'admin', '-p', CENSOR, '-o', 'off']);
    expect(r[2].argv).toEqual(['fence_ipmilan', '--password', CENSOR, '--ip=10.0.0.5']);
    expect(r[3].command).toContain(`--password=${CENSOR}`);
    expect(r[4].msg).toBe(`fence_ipmilan -a 10.0.0.5 -p ${CENSOR} -o off`);
  });

  it('logs a fence agent run without its credentials', async () => {
    const logs = captureLogs();
    const run = await runAgent(
      {
        agent: 'fence_palisade_absent',
        node: 'n1',
        action: 'off',
        params: { '--ip': '10.0.0.5', '--password': SECRETS.password },
        secrets: [SECRETS.password],
      },
      { timeoutMs: 5_000, logger: logs.logger },
    );
    expect(run.result).toBe('Failed');
    expectClean(logs.lines);
    expect(logs.of('fenceAgent').map((r) => [r.level, r.msg])).toEqual([
      ['warn', 'fence agent did not succeed'],
    ]);
  });

  it('never logs the one-time sign-in link: only the terminal gets the next one', () => {
    const logs = captureLogs();
    const printed: string[] = [];
    const auth = new ConsoleAuth({
      clusters: new Map(),
      signInLink: true,
      announce: (line) => printed.push(line),
      logger: logs.logger,
    });
    try {
      auth.listening(3000, 'http://127.0.0.1:3000');
      const first = new URL(auth.link!.url).searchParams.get('token')!;
      expect(auth.link!.consume(first)).toBe('ok');
      const next = new URL(auth.link!.url).searchParams.get('token')!;
      expect(printed).toEqual([`Next one-time sign-in link: http://127.0.0.1:3000/auth/link?token=${next}`]);
      expect(logs.of('auth').map((r) => r.msg)).toEqual([
        'signed in with the one-time link: a new link replaces it',
      ]);
      const text = logs.lines.join('');
      expect(text).not.toContain(first);
      expect(text).not.toContain(next);
    } finally {
      auth.stop();
    }
  });

  it('leaves ordinary text alone', () => {
    for (const s of [
      'refused caller 127.0.0.1: name-not-allowed (allowed: kube-apiserver-webhook-client)',
      'attempt 1: Succeeded: Status: OFF',
      'HTTP 409: the object has been modified; exit code=1',
      'fence_ipmilan --lanplus --ip=10.0.0.5 --action=status',
    ])
      expect(scrubText(s)).toBe(s);
    expect(redactArgv(['--lanplus', '--ip=10.0.0.5', '-o', 'off'])).toEqual([
      '--lanplus',
      '--ip=10.0.0.5',
      '-o',
      'off',
    ]);
  });
});

describe('terminal lines', () => {
  const line = (o: object) =>
    `${JSON.stringify({ level: 'warn', time: '2024-05-01T10:02:03.045Z', service: 'palisade', ...o })}\n`;

  it('reads time level component msg key=value', () => {
    const out = formatPretty(
      line({
        component: 'webhook',
        msg: 'refused caller',
        peer: '10.0.0.7',
        detail: 'no client certificate',
        n: 2,
      }),
    );
    expect(out).toMatch(
      /^\d\d:\d\d:\d\d\.045 WARN {2}webhook refused caller peer=10\.0\.0\.7 detail="no client certificate" n=2\n$/,
    );
  });

  it('puts err after the message and an error’s stack below it', () => {
    const out = formatPretty(
      line({
        level: 'error',
        component: 'console',
        msg: 'request failed',
        err: { type: 'Error', message: 'boom', stack: 'Error: boom\n    at route (console.ts:1:1)' },
        path: '/api/trpc/x',
      }),
    );
    expect(out.split('\n')).toEqual([
      expect.stringMatching(/ ERROR console request failed err=boom path=\/api\/trpc\/x$/),
      '    at route (console.ts:1:1)',
      '',
    ]);
  });

  it('colours the level only when asked', () => {
    expect(formatPretty(line({ msg: 'x' }), true)).toContain('\x1b[33mWARN \x1b[0m');
    expect(formatPretty(line({ msg: 'x' }), false)).not.toContain('\x1b');
  });

  it('a pretty logger writes those lines, redacted', () => {
    const out: string[] = [];
    const log = createLogger({ format: 'pretty', destination: { write: (l: string) => void out.push(l) } });
    component('auth', {}, log).info({ user: 'ada', token: SECRETS.token }, 'signed in');
    expect(out).toHaveLength(1);
    expect(out[0]).toMatch(/ INFO {2}auth signed in user=ada token=\[redacted\]\n$/);
  });
});

describe('settings from the environment', () => {
  it('pretty on a terminal, JSON lines elsewhere; PALISADE_LOG_FORMAT overrides', () => {
    expect(settingsFromEnv({}, true)).toMatchObject({ format: 'pretty', color: true, level: 'info' });
    expect(settingsFromEnv({}, false)).toMatchObject({ format: 'json', color: false });
    expect(settingsFromEnv({ PALISADE_LOG_FORMAT: 'json' }, true).format).toBe('json');
    expect(settingsFromEnv({ PALISADE_LOG_FORMAT: 'pretty' }, false)).toMatchObject({
      format: 'pretty',
      color: false,
    });
    expect(settingsFromEnv({ NO_COLOR: '1' }, true).color).toBe(false);
  });

  it('level info by default, silent under vitest unless PALISADE_LOG_LEVEL says', () => {
    expect(settingsFromEnv({}, false).level).toBe('info');
    expect(settingsFromEnv({ VITEST: 'true' }, false).level).toBe('silent');
    expect(settingsFromEnv({ VITEST: 'true', PALISADE_LOG_LEVEL: 'debug' }, false).level).toBe('debug');
    expect(settingsFromEnv({ PALISADE_LOG_LEVEL: 'WARN' }, false).level).toBe('warn');
  });

  it('says what it did not understand, and keeps the defaults', () => {
    const s = settingsFromEnv({ PALISADE_LOG_LEVEL: 'loud', PALISADE_LOG_FORMAT: 'xml' }, false);
    expect(s).toMatchObject({ level: 'info', format: 'json' });
    expect(s.problems).toEqual([
      'PALISADE_LOG_LEVEL=loud is not one of fatal, error, warn, info, debug, trace, silent: using info',
      'PALISADE_LOG_FORMAT=xml is not json or pretty: using json',
    ]);
  });
});
