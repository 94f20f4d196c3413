// The production image's content check on a made-up root file system: a good one passes, and
// each thing issue 23 found in the image (TypeScript run by tsx, test helpers, Playwright, labels
// missing, no SBOM) is named.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { contentProblems, ENTRYPOINT, type ImageFacts, REQUIRED_LABELS } from './contents.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const SBOM = JSON.stringify({
  bomFormat: 'CycloneDX',
  metadata: { component: { name: 'palisade', version: '1.2.3' } },
  components: ['next', '@kubernetes/client-node', '@electric-sql/pglite', 'socket.io', 'zod'].map((name) => ({
    name,
  })),
});

function put(root: string, path: string, text = '') {
  mkdirSync(dirname(join(root, path)), { recursive: true });
  writeFileSync(join(root, path), text);
}

function goodImage(): ImageFacts {
  const rootfs = mkdtempSync(join(tmpdir(), 'palisade-contents-'));
  dirs.push(rootfs);
  put(rootfs, 'app/dist/server/main.js', 'export {};');
  put(rootfs, 'app/dist/server/pgliteWorker.mjs');
  put(rootfs, 'app/node_modules/next/package.json', '{}');
  put(rootfs, 'app/node_modules/zod/index.d.ts');
  put(rootfs, 'app/.next/BUILD_ID', 'x');
  put(rootfs, 'app/sbom.cdx.json', SBOM);
  put(rootfs, 'app/history-template/PG_VERSION', '17');
  put(rootfs, 'sbom-beside.json', SBOM);
  const labels = Object.fromEntries(REQUIRED_LABELS.map((k) => [k, 'x']));
  labels['org.opencontainers.image.version'] = '1.2.3';
  labels['org.opencontainers.image.revision'] = 'a'.repeat(40);
  labels['org.opencontainers.image.created'] = '2026-11-29T00:00:00Z';
  return {
    rootfs,
    config: {
      Entrypoint: [...ENTRYPOINT],
      Env: ['PALISADE_HISTORY_TEMPLATE=/app/history-template'],
      Labels: labels,
    },
    annotations: { ...labels },
    version: '1.2.3',
    sbomBeside: join(rootfs, 'sbom-beside.json'),
  };
}

describe('the production image content check', () => {
  it('passes an image with the compiled server, labels, SBOM and template', () => {
    expect(contentProblems(goodImage())).toEqual([]);
  });

  it.each([
    [
      'TypeScript run at run time',
      (f: ImageFacts) => {
        f.config.Entrypoint = ['/usr/local/bin/node', '--import', 'tsx', 'server/main.ts'];
        put(f.rootfs, 'app/server/main.ts');
        put(f.rootfs, 'app/node_modules/tsx/package.json', '{}');
      },
      [
        /Entrypoint is/,
        /\/app\/server is in the image/,
        /app\/server\/main\.ts: a source/,
        /node_modules\/tsx/,
      ],
    ],
    [
      'test helpers and Playwright',
      (f: ImageFacts) => {
        put(f.rootfs, 'app/dist/server/replicas.harness.js');
        put(f.rootfs, 'app/node_modules/playwright-core/package.json', '{}');
      },
      [/harness\.js: a source or test file/, /node_modules\/playwright-core is in the image/],
    ],
    [
      'a missing label and an annotation that differs',
      (f: ImageFacts) => {
        delete f.config.Labels!['org.opencontainers.image.licenses'];
        f.annotations['org.opencontainers.image.source'] = 'elsewhere';
      },
      [/label org\.opencontainers\.image\.licenses missing/, /annotation org\.opencontainers\.image\.source/],
    ],
    [
      'no SBOM',
      (f: ImageFacts) => rmSync(join(f.rootfs, 'app/sbom.cdx.json')),
      [/no \/app\/sbom\.cdx\.json/],
    ],
    [
      'an SBOM listing a build tool, another beside the archive',
      (f: ImageFacts) => {
        const bom = JSON.parse(SBOM);
        bom.components.push({ name: 'typescript' });
        put(f.rootfs, 'app/sbom.cdx.json', JSON.stringify(bom));
      },
      [/is not the image's \/app\/sbom\.cdx\.json/, /the SBOM lists typescript/],
    ],
    [
      'no history template',
      (f: ImageFacts) => rmSync(join(f.rootfs, 'app/history-template'), { recursive: true }),
      [/holds no PostgreSQL directory/],
    ],
  ])('names %s', (_what, spoil, expected) => {
    const f = goodImage();
    spoil(f);
    const problems = contentProblems(f);
    for (const re of expected) expect(problems.join('\n')).toMatch(re);
  });
});
