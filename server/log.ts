// The server's structured logger (pino): one line per event with a level, a time, the component
// that wrote it (component('fencing'), component('webhook'), ...) and its facts as fields. JSON
// lines for collectors and CI; readable `time level component msg key=value` lines on a terminal
// (PALISADE_LOG_FORMAT=json|pretty overrides, PALISADE_LOG_LEVEL sets the level).
//
// Secrets never reach a line, in three layers: in a logged object the value of any field whose
// name says it holds one (token, password, secret, cookie, authorization, credential, ...) is
// replaced at any depth and an argv's `--password x` / `-p x` values are hidden; pino's own
// redaction censors those names in a child's bindings; and the finished line is scrubbed of
// bearer tokens, JWTs, session cookies, URL query secrets (the one-time link's ?token=, OIDC's
// ?code=) and command-line passwords (a fence agent's --password=...). The one-time sign-in link
// is never logged at all: main.ts prints it to the terminal of whoever started Palisade.
import pino from 'pino';

export type Logger = pino.Logger;

export const CENSOR = '[redacted]';

const LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type Level = (typeof LEVELS)[number];
export type LogFormat = 'json' | 'pretty';

/** field names (lower-cased, without - _ . or spaces) whose values are secrets wherever they appear */
const SECRET_FIELD =
  /token|secret|passw(or)?d|passphrase|cookie|authori[sz]ation|credential|apikey|privatekey|sessionid|^pass$|^pwd$|^kg$/;
export const isSecretField = (name: string) => SECRET_FIELD.test(name.toLowerCase().replace(/[-_.\s]/g, ''));

/** a command-line option whose value is a secret: --password, --passwd, --token, --ssl-key, -p, ... */
const SECRET_OPTION = /^(?:-p|--[a-z0-9_-]*(?:pass|secret|token|key|kg)[a-z0-9_-]*)$/i;

const TEXT_RULES: [RegExp, string][] = [
  // URL query parameters: the one-time link's token, OIDC's authorization code and tokens
  [
    /([?&;](?:token|code|code_verifier|client_secret|access_token|id_token|refresh_token|password)=)[^&#\s"']+/gi,
    `$1${CENSOR}`,
  ],
  // name=value and "name": "value" in free text (an error body, a config echoed back)
  [
    /((?:^|[\s,;{(])(?:password|passwd|secret|client_secret|token|access_token|id_token|refresh_token)=)(?!\[redacted\])[^\s,;&"')}]+/gi,
    `$1${CENSOR}`,
  ],
  [/("[a-z_]*(?:token|secret|password|passwd)"\s*:\s*")[^"]*/gi, `$1${CENSOR}`],
  [/\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]+/g, `$1 ${CENSOR}`],
  // JWTs: service account tokens, OIDC ID tokens
  [/\beyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*/g, CENSOR],
  // the console's session cookie, as a header or a cookie string
  [/((?:__Host-)?palisade_session(?:_\d+)?=)[^;\s"']+/g, `$1${CENSOR}`],
  // command lines: --password=x, --password x, -p x (fence agents take the password either way)
  [
    /((?:^|\s)(?:-p|--[a-z0-9_-]*(?:pass|secret|token|key|kg)[a-z0-9_-]*)(?:=|\s+))(?!\[redacted\])("[^"]*"|'[^']*'|[^\s"']+)/gi,
    `$1${CENSOR}`,
  ],
];

/** A string with every secret the rules recognise replaced by [redacted]. */
export function scrubText(text: string): string {
  let out = text;
  for (const [re, by] of TEXT_RULES) out = out.replace(re, by);
  return out;
}

/** An argv with the value of every secret option hidden: `--password=x`, `--password x`, `-p x`. */
export function redactArgv(argv: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const eq = a.indexOf('=');
    if (eq > 0 && SECRET_OPTION.test(a.slice(0, eq))) out.push(`${a.slice(0, eq + 1)}${CENSOR}`);
    else if (SECRET_OPTION.test(a) && i + 1 < argv.length) {
      out.push(a, CENSOR);
      i++;
    } else out.push(scrubText(a));
  }
  return out;
}

/** top-level names (and one level down) pino itself censors: bindings go through this alone */
export const REDACT_PATHS = [
  'token',
  'password',
  'secret',
  'clientSecret',
  'refreshToken',
  'idToken',
  'accessToken',
  'authorization',
  'cookie',
  'credential',
  'sessionId',
  'headers.authorization',
  'headers.cookie',
  'headers["set-cookie"]',
].flatMap((p) => [p, `*.${p}`]);

const MAX_DEPTH = 8;

/** A copy of a logged value with secret fields censored and every string scrubbed. */
export function redactValue(v: unknown, depth = 0): unknown {
  if (typeof v === 'string') return scrubText(v);
  if (v === null || typeof v !== 'object') return v;
  if (depth >= MAX_DEPTH) return '[too deep]';
  if (v instanceof Date) return v;
  // as JSON.stringify would write it (a URL as its href)
  if (typeof (v as { toJSON?: unknown }).toJSON === 'function')
    return redactValue((v as { toJSON(): unknown }).toJSON(), depth + 1);
  if (v instanceof Error) return redactValue(pino.stdSerializers.err(v), depth);
  if (Buffer.isBuffer(v) || ArrayBuffer.isView(v)) return `[${v.byteLength} bytes]`;
  if (Array.isArray(v))
    return v.every((x) => typeof x === 'string') ? redactArgv(v) : v.map((x) => redactValue(x, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) out[k] = isSecretField(k) ? CENSOR : redactValue(x, depth + 1);
  return out;
}

function serializeErr(e: unknown): unknown {
  return redactValue(e instanceof Error ? pino.stdSerializers.err(e) : e);
}

export interface LoggerOptions {
  level?: Level;
  format?: LogFormat;
  /** where lines go (default stdout); tests pass a capturing one */
  destination?: pino.DestinationStream;
  /** ANSI colours in pretty lines */
  color?: boolean;
}

/** A logger with Palisade's fields, levels and redaction: the server's own, or a test's. */
export function createLogger(o: LoggerOptions = {}): Logger {
  const out: pino.DestinationStream = o.destination ?? {
    // through process.stdout, as console.log: the CLI's own lines and the log keep their order
    write: (line: string) => void process.stdout.write(line),
  };
  const color = o.color ?? false;
  const destination =
    o.format === 'pretty' ? { write: (line: string) => out.write(formatPretty(line, color)) } : out;
  return pino(
    {
      level: o.level ?? 'info',
      base: { service: 'palisade' },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: {
        level: (label) => ({ level: label }),
        log: (obj) => redactValue(obj) as Record<string, unknown>,
      },
      serializers: { err: serializeErr },
      // pino's own redaction: the only one that reaches a child's bindings ({ token } there)
      redact: { paths: REDACT_PATHS, censor: CENSOR },
      // the finished line: its message (an error's, too) and bindings are not what formatters.log sees
      hooks: { streamWrite: scrubText },
    },
    destination,
  );
}

const LEVEL_STYLE: Record<string, [string, string]> = {
  trace: ['TRACE', '90'],
  debug: ['DEBUG', '90'],
  info: ['INFO ', '32'],
  warn: ['WARN ', '33'],
  error: ['ERROR', '31'],
  fatal: ['FATAL', '35'],
};
const SHOWN_APART = new Set(['level', 'time', 'msg', 'component', 'service', 'err']);

const fieldValue = (v: unknown) =>
  typeof v === 'string' && /^[^\s="'\\]+$/.test(v) ? v : JSON.stringify(v === undefined ? null : v);

/** One JSON line as a person reads it: `12:03:04.512 WARN  webhook refused caller peer=10.0.0.7 ...`. */
export function formatPretty(line: string, color = false): string {
  let r: Record<string, unknown>;
  try {
    r = JSON.parse(line);
  } catch {
    return line.endsWith('\n') ? line : `${line}\n`;
  }
  const paint = (code: string, s: string) => (color ? `\x1b[${code}m${s}\x1b[0m` : s);
  const [label, code] = LEVEL_STYLE[String(r.level)] ?? [String(r.level).toUpperCase().padEnd(5), '0'];
  const t = new Date(String(r.time));
  const time = Number.isNaN(t.getTime()) ? '' : t.toTimeString().slice(0, 8);
  const ms = Number.isNaN(t.getTime()) ? '' : `.${String(t.getMilliseconds()).padStart(3, '0')}`;
  const parts = [paint('90', `${time}${ms}`), paint(code, label)];
  if (r.component) parts.push(paint('36', String(r.component)));
  if (r.msg !== undefined) parts.push(String(r.msg));
  const field = (k: string, v: unknown) => parts.push(`${paint('90', `${k}=`)}${fieldValue(v)}`);
  const err = r.err as { message?: string; stack?: string } | string | undefined;
  if (err !== undefined) field('err', typeof err === 'object' && err?.message ? err.message : err);
  for (const [k, v] of Object.entries(r)) if (!SHOWN_APART.has(k)) field(k, v);
  let text = parts.join(' ');
  // a failure's stack on the lines below, indented
  if (typeof err === 'object' && err?.stack && (r.level === 'error' || r.level === 'fatal'))
    text += `\n${err.stack
      .split('\n')
      .slice(1)
      .map((l) => `    ${l.trim()}`)
      .join('\n')}`;
  return `${text}\n`;
}

export interface LogSettings {
  level: Level;
  format: LogFormat;
  color: boolean;
  /** what the environment asked for that is not a level or a format */
  problems: string[];
}

/** PALISADE_LOG_LEVEL (default info; silent under vitest unless set), PALISADE_LOG_FORMAT (json|pretty; default pretty on a terminal). */
export function settingsFromEnv(
  env: Record<string, string | undefined> = process.env,
  isTTY = !!process.stdout.isTTY,
): LogSettings {
  const problems: string[] = [];
  const wantLevel = env.PALISADE_LOG_LEVEL?.trim().toLowerCase();
  let level: Level = env.VITEST ? 'silent' : 'info';
  if (wantLevel && (LEVELS as readonly string[]).includes(wantLevel)) level = wantLevel as Level;
  else if (wantLevel) {
    problems.push(
      `PALISADE_LOG_LEVEL=${env.PALISADE_LOG_LEVEL} is not one of ${LEVELS.join(', ')}: using ${level}`,
    );
  }
  const wantFormat = env.PALISADE_LOG_FORMAT?.trim().toLowerCase();
  let format: LogFormat = isTTY ? 'pretty' : 'json';
  if (wantFormat === 'json' || wantFormat === 'pretty') format = wantFormat;
  else if (wantFormat)
    problems.push(`PALISADE_LOG_FORMAT=${env.PALISADE_LOG_FORMAT} is not json or pretty: using ${format}`);
  return { level, format, color: format === 'pretty' && isTTY && !env.NO_COLOR, problems };
}

const settings = settingsFromEnv();

/** The server's root logger; components log through component(...) children of it. */
export const logger = createLogger(settings);
for (const p of settings.problems) logger.warn(p);

/**
 * A child logger for one part of the server, e.g. component('fencing', { cluster }). `parent` is
 * where its lines go (the root logger by default; a test's capturing one): it must not carry a
 * component of its own, only context such as { cluster }.
 */
export function component(
  name: string,
  bindings: Record<string, unknown> = {},
  parent: Logger = logger,
): Logger {
  return parent.child({ component: name, ...bindings });
}

/** The audit trail's own logger: one JSON line per console action, refused or done. */
export const auditLog = component('audit');
