// Property-based fuzzing (fast-check) of palisade.yaml as the server reads it at startup
// (loadConfig: YAML, then the zod schema): the chart's own renders (deploy/test/golden/) with
// leaves replaced by hostile values, keys removed or added, types changed, YAML's own odd values
// (.nan, .inf, ~, anchors and aliases, tags, duplicate keys, an alias bomb), and text that is not
// YAML at all. Every file is either read into a config or refused with a StartupError that names
// the file — never another exception, never a hang — and what is read feeds the derived choices
// (session store, leader election, modes) without a throw. FUZZ_SEED replays; FUZZ_CASES scales.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml, parseAllDocuments, stringify } from 'yaml';
import {
  FUZZ_SEED,
  fuzzCases,
  fuzzReport,
  fuzzTimeout,
  hostileString,
  QUERY_SIZE,
  reporter,
  wrongTyped,
} from '../trpc/test/fuzzInputs.js';
import { StartupError } from '../kube/kubeconfig.js';
import { loadConfig } from './load.js';
import { contextsToShow, leaderElectionOf, modeOf, sessionStoreOf } from './schema.js';

const GOLDEN = join(import.meta.dirname, '..', '..', 'deploy', 'test', 'golden');
let dir: string;
let file: string;
/** the palisade.yaml of each golden render: full, realistic configs */
let bases: unknown[] = [];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'palisade-config-fuzz-'));
  file = join(dir, 'palisade.yaml');
  for (const render of ['defaults.yaml', 'production.yaml', 'cert-manager.yaml']) {
    for (const d of parseAllDocuments(await readFile(join(GOLDEN, render), 'utf8'))) {
      const o = d.toJSON() as { kind?: string; data?: Record<string, string> } | null;
      if (o?.kind === 'ConfigMap' && o.data?.['palisade.yaml'])
        bases.push(parseYaml(o.data['palisade.yaml']));
    }
  }
  bases = bases.filter(Boolean);
});
afterAll(() => rm(dir, { recursive: true, force: true }));

type Path = (string | number)[];

function leaves(v: unknown, at: Path = [], out: Path[] = []): Path[] {
  out.push(at);
  if (Array.isArray(v)) for (const [i, x] of v.entries()) leaves(x, [...at, i], out);
  else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) leaves(x, [...at, k], out);
  return out;
}

type Mutation = { pick: number; kind: 'set' | 'delete' | 'add'; value: unknown; key: string };

function mutate(doc: unknown, ms: Mutation[]): unknown {
  const copy = structuredClone(doc);
  for (const m of ms) {
    const paths = leaves(copy);
    const path = paths[m.pick % paths.length];
    if (path.length === 0) continue;
    const parent = path.slice(0, -1).reduce<any>((o, k) => o[k], copy);
    const last = path[path.length - 1];
    if (m.kind === 'delete') {
      if (Array.isArray(parent)) parent.splice(last as number, 1);
      else delete parent[last];
    } else if (m.kind === 'add' && parent && typeof parent === 'object' && !Array.isArray(parent))
      parent[m.key] = m.value;
    else parent[last] = m.value;
  }
  return copy;
}

const hostile = fc.oneof(
  hostileString(QUERY_SIZE),
  wrongTyped(QUERY_SIZE).filter(
    (v) => typeof v !== 'object' || v === null || Array.isArray(v) || !('text' in v),
  ),
  fc.constantFrom(
    0,
    -1,
    1.5,
    2 ** 53,
    -(2 ** 31),
    1e308,
    '',
    'true',
    'null',
    '0s',
    '-5s',
    '1e999s',
    '99999999999h',
  ),
);
const mutations = fc.array(
  fc.record({
    pick: fc.nat(),
    kind: fc.constantFrom('set', 'set', 'delete', 'add'),
    value: hostile,
    key: fc.oneof(fc.constantFrom('__proto__', 'constructor', 'extra', 'mode'), fc.string({ maxLength: 8 })),
  }),
  { minLength: 1, maxLength: 4 },
);
/** YAML that only YAML can say: special floats, nulls, tags, aliases, duplicate keys, a bomb. */
const yamlOddities = fc.constantFrom(
  'clusters: [{context: a, mode: .nan}]',
  'defaultMode: .inf',
  'server: ~',
  'clusters: !!set {a, b}',
  'clusters: [{context: !!binary aGVsbG8=}]',
  'defaultMode: normal\ndefaultMode: read-only',
  'a: &x {context: p}\nclusters: [*x, *x]',
  'clusters: [{context: 2026-01-01}]',
  "clusters: [{context: '\\u0000'}]",
  '%YAML 1.1\n---\nclusters: [{context: yes}]',
  '--- {}\n--- {}',
  `a: &a ["x","x","x","x","x","x","x","x","x"]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\nd: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]\ne: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]\nf: [*e,*e,*e,*e,*e,*e,*e,*e,*e]`,
  'clusters:\n\t- context: tab',
  '{',
  ': :',
  '',
);

describe('fuzzing palisade.yaml (fast-check)', () => {
  const cases = fuzzCases(300);

  it(
    'any file: a config, or a StartupError naming the file — never another exception',
    async () => {
      expect(bases.length).toBeGreaterThan(0);
      const started = performance.now();
      const outcome = { read: 0, refused: 0 };
      await fc.assert(
        fc.asyncProperty(
          fc.oneof(
            {
              weight: 8,
              arbitrary: fc
                .tuple(fc.nat(), mutations)
                .map(([b, ms]) => stringify(mutate(bases[b % bases.length], ms))),
            },
            { weight: 1, arbitrary: fc.nat().map((b) => stringify(bases[b % bases.length])) },
            { weight: 2, arbitrary: yamlOddities },
            { weight: 1, arbitrary: fc.string({ maxLength: 200 }) },
            { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 4 }).map((v) => stringify(v)) },
          ),
          async (text) => {
            await writeFile(file, text);
            let config: Awaited<ReturnType<typeof loadConfig>>['config'];
            try {
              ({ config } = await loadConfig(file));
            } catch (e) {
              outcome.refused++;
              expect(e).toBeInstanceOf(StartupError);
              expect((e as Error).message).toContain(file);
              return;
            }
            outcome.read++;
            sessionStoreOf(config);
            leaderElectionOf(config.controllers);
            for (const c of contextsToShow(config, [])) modeOf(config, c);
          },
        ),
        { numRuns: cases, seed: FUZZ_SEED, reporter },
      );
      expect(
        outcome.read,
        'every file was refused: the generator no longer makes valid configs',
      ).toBeGreaterThan(0);
      fuzzReport('palisade.yaml (loadConfig)', cases, performance.now() - started, JSON.stringify(outcome));
    },
    fuzzTimeout(fuzzCases(300), 200),
  );
});
