// Where a demo flow keeps its state and its artifacts (both git-ignored): the embedded
// cluster's state dir (kubeconfig, infra.json) and demo-results/<name>/ (screenshots,
// summary, and the Playwright trace that scripts/demo.sh moves there).
import { resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '..');

export function demoPaths(name: string) {
  const stateDir = `.palisade/demo-${name}`;
  const results = resolve(ROOT, 'demo-results', name);
  return {
    name,
    /** relative to the repository root, as the server's --state-dir */
    stateDir,
    kubeconfig: resolve(ROOT, stateDir, 'kubeconfig'),
    infraJson: resolve(ROOT, stateDir, 'infra.json'),
    /** absolute: where the demo's setup step saves the signed-in browser state */
    stateDirAbs: resolve(ROOT, stateDir),
    storageState: resolve(ROOT, stateDir, 'storage-state.json'),
    results,
    playwrightDir: resolve(results, 'playwright'),
    docs: resolve(ROOT, 'docs'),
  };
}
