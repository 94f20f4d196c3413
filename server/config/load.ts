// Reads palisade.yaml: --config PATH, else $PALISADE_CONFIG, else ./palisade.yaml if it
// exists. Every problem is a StartupError naming the file and the field, so a typo in a
// mode can never silently leave a production cluster writable.
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import type { z } from 'zod';
import { StartupError } from '../kube/kubeconfig.js';
import { configSchema, EMPTY_CONFIG, type PalisadeConfig } from './schema.js';

export const DEFAULT_CONFIG_FILE = 'palisade.yaml';

/** `clusters[1].mode` from zod's ['clusters', 1, 'mode']. */
export function fieldPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const p of path) out += typeof p === 'number' ? `[${p}]` : `${out ? '.' : ''}${String(p)}`;
  return out || '(top level)';
}

function describe(issue: z.core.$ZodIssue): string {
  if (issue.code === 'unrecognized_keys')
    return `${issue.keys.map((k) => fieldPath([...issue.path, k])).join(', ')}: unknown field`;
  return `${fieldPath(issue.path)}: ${issue.message}`;
}

/** Validates a parsed document; throws a StartupError naming `file` and every bad field. */
export function parseConfig(file: string, doc: unknown): PalisadeConfig {
  const parsed = configSchema.safeParse(doc ?? {});
  if (parsed.success) return parsed.data;
  throw new StartupError(`config ${file}: ${parsed.error.issues.map(describe).join('; ')}`);
}

async function readText(path: string, required: boolean): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' && !required) return undefined;
    const why =
      code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'it is a directory' : (e as Error).message;
    throw new StartupError(`cannot read config ${path}: ${why}`);
  }
}

/** The configuration in effect, and the file it came from (undefined: built-in defaults). */
export async function loadConfig(
  given: string | undefined,
  cwd = process.cwd(),
): Promise<{ config: PalisadeConfig; file?: string }> {
  const path = resolve(cwd, given ?? process.env.PALISADE_CONFIG ?? DEFAULT_CONFIG_FILE);
  const required = given !== undefined || process.env.PALISADE_CONFIG !== undefined;
  const text = await readText(path, required);
  if (text === undefined) return { config: EMPTY_CONFIG };
  let doc: unknown;
  try {
    doc = parseYaml(text);
  } catch (e) {
    throw new StartupError(`config ${path} is not valid YAML: ${(e as Error).message}`);
  }
  return { config: parseConfig(path, doc), file: path };
}
