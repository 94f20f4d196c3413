// The server's structured logger (pino): JSON lines with a level, a time and the component that
// wrote them, and secrets redacted wherever they appear in a logged object (tokens, cookies,
// authorization headers, passwords, agent credentials), so a log line never carries one.
import pino from 'pino';

export const REDACT_PATHS = [
  'token',
  '*.token',
  'password',
  '*.password',
  'secret',
  '*.secret',
  'clientSecret',
  '*.clientSecret',
  'refreshToken',
  '*.refreshToken',
  'idToken',
  '*.idToken',
  'accessToken',
  '*.accessToken',
  'authorization',
  '*.authorization',
  'cookie',
  '*.cookie',
  'headers.authorization',
  'headers.cookie',
  'req.headers.authorization',
  'req.headers.cookie',
  'credential.token',
  '*.credential.token',
];

export const logger = pino({
  // quiet under vitest unless asked: tests assert behaviour, not log lines
  level: process.env.PALISADE_LOG_LEVEL ?? (process.env.VITEST ? 'silent' : 'info'),
  base: { service: 'palisade' },
  timestamp: pino.stdTimeFunctions.isoTime,
  redact: { paths: REDACT_PATHS, censor: '[redacted]' },
});

export type Logger = pino.Logger;

/** A child logger for one part of the server, e.g. component('auth'). */
export function component(name: string, bindings: Record<string, unknown> = {}): Logger {
  return logger.child({ component: name, ...bindings });
}

/** The audit trail's own logger: one JSON line per console action, refused or done. */
export const auditLog = component('audit');
