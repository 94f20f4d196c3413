// What the production image must and must not carry (issue 23, point 7), checked on the unpacked
// root file system and the image's config by scripts/image/test.ts: the server compiled ahead of
// time and run by plain node; no TypeScript sources, tests, test helpers, simulator, transpiler or
// browser driver; the OCI annotations on the config and the manifest; the SBOM (npm sbom,
// CycloneDX) in /app and beside the archive, the same; the history template. Returns what is wrong.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { ImageConfig } from './pod.js';

export const ENTRYPOINT = ['/usr/local/bin/node', 'dist/server/main.js'];

/** every annotation issue 23 asks for (image-spec annotations.md); base.* is left out: no base image is pulled */
export const REQUIRED_LABELS = [
  'title',
  'description',
  'version',
  'revision',
  'created',
  'source',
  'url',
  'documentation',
  'licenses',
  'vendor',
].map((k) => `org.opencontainers.image.${k}`);

/** npm packages that only build, test or drive a browser */
export const BUILD_ONLY_PACKAGES = [
  'tsx',
  'esbuild',
  'typescript',
  'vitest',
  '@playwright/test',
  'playwright',
  'playwright-core',
  '@biomejs/biome',
  '@axe-core/playwright',
  'fast-check',
  'oidc-provider',
];

/** what the server needs at run time: the SBOM must list them */
const RUNTIME_PACKAGES = ['next', '@kubernetes/client-node', '@electric-sql/pglite', 'socket.io'];

/** directories of the checkout that are sources, tests or tools, never shipped */
const SOURCE_DIRS = [
  'server',
  'lib',
  'sim',
  'e2e',
  'bench',
  'demo',
  'scripts',
  'testenv',
  'app',
  'components',
];

function walk(dir: string, skip: (path: string) => boolean, out: string[] = []): string[] {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (skip(p)) continue;
    if (e.isDirectory()) walk(p, skip, out);
    else out.push(p);
  }
  return out;
}

export interface ImageFacts {
  rootfs: string;
  config: ImageConfig;
  /** the manifest's annotations */
  annotations: Record<string, string>;
  version: string;
  /** the SBOM written beside the archive */
  sbomBeside?: string;
}

export function contentProblems(f: ImageFacts): string[] {
  const problems: string[] = [];
  const app = join(f.rootfs, 'app');
  if (JSON.stringify(f.config.Entrypoint) !== JSON.stringify(ENTRYPOINT))
    problems.push(`Entrypoint is ${JSON.stringify(f.config.Entrypoint)}, not ${JSON.stringify(ENTRYPOINT)}`);
  if (!existsSync(join(app, 'dist/server/main.js'))) problems.push('no /app/dist/server/main.js');
  if (!existsSync(join(app, 'dist/server/pgliteWorker.mjs')))
    problems.push('no /app/dist/server/pgliteWorker.mjs');
  for (const d of SOURCE_DIRS) if (existsSync(join(app, d))) problems.push(`/app/${d} is in the image`);
  const own = walk(app, (p) => p === join(app, 'node_modules') || p === join(app, '.next'));
  for (const p of own.filter((p) => /\.(ts|tsx|mts|cts)$/.test(p) || /harness|\.test\./.test(p)))
    problems.push(`/${relative(f.rootfs, p)}: a source or test file`);
  for (const pkg of BUILD_ONLY_PACKAGES)
    if (existsSync(join(app, 'node_modules', pkg))) problems.push(`node_modules/${pkg} is in the image`);
  const labels = f.config.Labels ?? {};
  for (const k of REQUIRED_LABELS) {
    if (!labels[k]?.trim()) problems.push(`label ${k} missing`);
    else if (f.annotations[k] !== labels[k])
      problems.push(`annotation ${k} of the manifest differs from the label`);
  }
  if (labels['org.opencontainers.image.version'] !== f.version)
    problems.push(`label version ${labels['org.opencontainers.image.version']}, not ${f.version}`);
  if (!/^[0-9a-f]{40}$/.test(labels['org.opencontainers.image.revision'] ?? ''))
    problems.push(`label revision "${labels['org.opencontainers.image.revision']}" is not a git commit`);
  if (Number.isNaN(Date.parse(labels['org.opencontainers.image.created'] ?? '')))
    problems.push(`label created "${labels['org.opencontainers.image.created']}" is not a date`);
  problems.push(...sbomProblems(join(app, 'sbom.cdx.json'), f));
  const template = (f.config.Env ?? [])
    .find((e) => e.startsWith('PALISADE_HISTORY_TEMPLATE='))
    ?.split('=')[1];
  if (!template) problems.push('no PALISADE_HISTORY_TEMPLATE in Env');
  else if (!existsSync(join(f.rootfs, template, 'PG_VERSION')))
    problems.push(`PALISADE_HISTORY_TEMPLATE ${template} holds no PostgreSQL directory`);
  return problems;
}

function sbomProblems(path: string, f: ImageFacts): string[] {
  if (!existsSync(path)) return ['no /app/sbom.cdx.json'];
  const text = readFileSync(path, 'utf8');
  const problems: string[] = [];
  if (
    f.sbomBeside !== undefined &&
    (!existsSync(f.sbomBeside) || readFileSync(f.sbomBeside, 'utf8') !== text)
  )
    problems.push(`${f.sbomBeside} is not the image's /app/sbom.cdx.json`);
  let bom: {
    bomFormat?: string;
    metadata?: { component?: { name?: string; version?: string } };
    components?: { name: string }[];
  };
  try {
    bom = JSON.parse(text);
  } catch {
    return [...problems, '/app/sbom.cdx.json is not JSON'];
  }
  if (bom.bomFormat !== 'CycloneDX') problems.push(`the SBOM's bomFormat is ${bom.bomFormat}`);
  if (bom.metadata?.component?.name !== 'palisade' || bom.metadata.component.version !== f.version)
    problems.push(`the SBOM describes ${bom.metadata?.component?.name}@${bom.metadata?.component?.version}`);
  const names = new Set((bom.components ?? []).map((c) => c.name));
  for (const p of RUNTIME_PACKAGES) if (!names.has(p)) problems.push(`the SBOM does not list ${p}`);
  for (const p of BUILD_ONLY_PACKAGES)
    if (names.has(p)) problems.push(`the SBOM lists ${p}, which is not shipped`);
  return problems;
}
