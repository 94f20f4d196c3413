// The pinned helm binary for the chart tests: $HELM_BIN_DIR/helm (scripts/test.sh exports it),
// else the one testenv/build.sh builds (cached; a cold build needs Go and the module proxy).
import { execFile, execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO = fileURLToPath(new URL('../..', import.meta.url));
export const CHART = join(REPO, 'deploy/helm/palisade');
export const VALUES_DIR = join(REPO, 'deploy/test/values');
export const MANIFESTS = join(REPO, 'deploy/manifests/palisade.yaml');
/** the namespace deploy/manifests/palisade.yaml is rendered for */
export const NAMESPACE = 'palisade-system';

let cached: string | undefined;

export function helmBin(): string {
  if (cached) return cached;
  const dir = process.env.HELM_BIN_DIR;
  if (dir && existsSync(join(dir, 'helm'))) return (cached = join(dir, 'helm'));
  const out = execFileSync('bash', [join(REPO, 'testenv/build.sh'), 'helm'], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
    timeout: 20 * 60_000,
  });
  const m = /^HELM_BIN_DIR=(.+)$/m.exec(out);
  if (!m) throw new Error(`testenv/build.sh helm printed no HELM_BIN_DIR:\n${out}`);
  return (cached = join(m[1].replace(/^'|'$/g, ''), 'helm'));
}

export interface HelmResult {
  code: number;
  stdout: string;
  stderr: string;
}

export function helm(...args: string[]): Promise<HelmResult> {
  const bin = helmBin();
  return new Promise((resolve) =>
    execFile(
      bin,
      args,
      { cwd: REPO, maxBuffer: 64 << 20, timeout: 60_000, env: { ...process.env, HELM_NAMESPACE: '' } },
      (err, stdout, stderr) =>
        resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    ),
  );
}

/** `helm template palisade <chart> --namespace palisade-system [args]`: its stdout, or a thrown stderr. */
export async function render(...args: string[]): Promise<string> {
  const r = await helm('template', 'palisade', CHART, '--namespace', NAMESPACE, ...args);
  if (r.code !== 0) throw new Error(`helm template ${args.join(' ')} failed:\n${r.stderr}`);
  return r.stdout;
}
