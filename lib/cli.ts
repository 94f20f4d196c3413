// Command lines of Palisade's entry points (`npm start`, `npm run cluster`): node's
// parseArgs for the syntax, a zod schema for the values, and errors that name the option.
// Pure: the caller prints usage and exits.
import { type ParseArgsConfig, parseArgs } from 'node:util';
import { z } from 'zod';

const portError = (i: { input: unknown }) =>
  `must be an integer between 0 and 65535, got "${String(i.input)}"`;

/** A --port value: digits only, 0 (any free port) to 65535. */
export function portOption(fallback: number) {
  return z
    .string()
    .regex(/^\d{1,5}$/, { error: portError })
    .transform(Number)
    .refine((n) => n <= 65535, { error: portError })
    .default(fallback);
}

export type CommandLine<T> = { ok: true; help: boolean; options: T } | { ok: false; error: string };

export function parseCommandLine<S extends z.ZodType>(
  argv: string[],
  options: NonNullable<ParseArgsConfig['options']>,
  schema: S,
): CommandLine<z.output<S>> {
  let values: Record<string, unknown>;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: { ...options, help: { type: 'boolean', short: 'h' } },
      strict: true,
    }));
  } catch (e) {
    return { ok: false, error: (e as Error).message };
  }
  const { help, ...rest } = values;
  if (help) return { ok: true, help: true, options: undefined as never };
  const parsed = schema.safeParse(rest);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return { ok: false, error: `--${String(issue.path[0])}: ${issue.message}` };
  }
  return { ok: true, help: false, options: parsed.data };
}
