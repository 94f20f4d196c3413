// Reads a scenario file (YAML or JSON) or a built-in profile by name.
import { readFile } from 'node:fs/promises';
import YAML from 'yaml';
import { fromRoot } from '../root.js';
import { type Scenario, scenarioSchema } from './schema.js';

export const builtinProfiles = ['demo', 'tiny', 'scale'] as const;
/** scenarios that need more than one cluster (`npm start -- --scenario cells`) */
export const multiClusterProfiles = ['cells'] as const;
export type ProfileName = (typeof builtinProfiles)[number] | (typeof multiClusterProfiles)[number];

export function profilePath(name: ProfileName): string {
  return fromRoot('scenarios', `${name}.yaml`);
}

export class ScenarioError extends Error {}

export function parseScenario(text: string, source: string): Scenario {
  let raw: unknown;
  try {
    raw = YAML.parse(text);
  } catch (e) {
    throw new ScenarioError(`${source}: not valid YAML: ${(e as Error).message}`);
  }
  const parsed = scenarioSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ScenarioError(`${source}: ${issue.path.join('.') || '(root)'}: ${issue.message}`);
  }
  return parsed.data;
}

export async function loadScenario(pathOrProfile: string): Promise<Scenario> {
  const path = (builtinProfiles as readonly string[]).includes(pathOrProfile)
    ? profilePath(pathOrProfile as ProfileName)
    : pathOrProfile;
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (e) {
    throw new ScenarioError(
      `cannot read scenario ${path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`,
    );
  }
  return parseScenario(text, path);
}
