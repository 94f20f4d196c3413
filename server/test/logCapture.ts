// A real Palisade logger (levels, fields, redaction) whose lines a test reads back instead of
// stdout: pass `logs.logger` where a component takes `logger`, then assert on `logs.records()`.
import { createLogger, type Level, type Logger } from '../log.js';

export interface LogRecord {
  level: string;
  msg: string;
  component?: string;
  [field: string]: unknown;
}

export interface CapturedLogs {
  logger: Logger;
  /** the raw lines, as a collector would receive them */
  lines: string[];
  records(): LogRecord[];
  /** the records of one component, optionally with one message */
  of(component: string, msg?: string): LogRecord[];
  /** the last few records, one short line each (for a test's failure message) */
  tail(n?: number): string;
}

export function captureLogs(level: Level = 'debug'): CapturedLogs {
  const lines: string[] = [];
  const logger = createLogger({
    level,
    format: 'json',
    destination: { write: (l: string) => lines.push(l) },
  });
  const records = () => lines.map((l) => JSON.parse(l) as LogRecord);
  return {
    logger,
    lines,
    records,
    of: (c, msg) => records().filter((r) => r.component === c && (msg === undefined || r.msg === msg)),
    tail: (n = 10) =>
      records()
        .slice(-n)
        .map(({ level: l, time: _t, service: _s, ...rest }) => `${l} ${JSON.stringify(rest)}`)
        .join(' | ') || 'empty',
  };
}
