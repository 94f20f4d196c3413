// Core + worker cells in one process (`npm start -- --scenario cells`): the core is an API
// server only — it holds the workloads, as a federation control plane would, and the
// PodProtectors derived from them — and each worker cell is a whole embedded cluster that
// runs its share of every workload's replicas. One kubeconfig names them core, cell-a,
// cell-b; each cell's infrastructure file (infra-<cell>.json) lies beside it.
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import * as k8s from '@kubernetes/client-node';
import YAML from 'yaml';
import { type KubeconfigDoc, mergeKubeconfigs, renameSingleContext } from '../lib/kube/kubeconfigDoc.js';
import { startApiServer } from './apiserver/index.js';
import { writeKubeconfig } from './apiserver/kubeconfig.js';
import { createAll, type EmbeddedCluster, startEmbeddedCluster } from './cluster.js';
import { CRD_DIR, installCrds } from './crdInstall.js';
import { namespaces, workloadObjects } from './scenario/build.js';
import type { Scenario } from './scenario/schema.js';

export const CORE_CONTEXT = 'core';
export const CELL_CONTEXTS = ['cell-a', 'cell-b'] as const;

export interface CellsOptions {
  scenario: Scenario;
  /** the kubeconfig and the infra files go here */
  stateDir: string;
  cells?: readonly string[];
  log?: (msg: string) => void;
}

export interface Cells {
  kubeconfigPath: string;
  coreContext: string;
  cellContexts: string[];
  cells: EmbeddedCluster[];
  stop(): Promise<void>;
}

/** cell i's share of `replicas` over n cells: the first cells take the remainder */
export function shareOf(replicas: number, i: number, n: number): number {
  return Math.floor(replicas / n) + (i < replicas % n ? 1 : 0);
}

/** The scenario a worker cell runs: every workload with its share of the replicas, unlabelled
 * (protection is decided on the core, from the core's copy). */
export function cellScenario(s: Scenario, cell: string, i: number, n: number): Scenario {
  return {
    ...s,
    name: `${s.name}-${cell}`,
    workloads: s.workloads.map((w) => ({ ...w, replicas: shareOf(w.replicas, i, n), protect: false })),
  };
}

function renamed(kubeconfig: string, context: string): KubeconfigDoc {
  return renameSingleContext(YAML.parse(kubeconfig) as KubeconfigDoc, context);
}

export async function startCells(opts: CellsOptions): Promise<Cells> {
  const log = opts.log ?? (() => undefined);
  const names = [...(opts.cells ?? CELL_CONTEXTS)];
  const s = opts.scenario;
  await mkdir(opts.stateDir, { recursive: true });
  const core = await startApiServer({});
  const coreKc = new k8s.KubeConfig();
  coreKc.loadFromString(core.kubeconfig);
  await installCrds(coreKc, CRD_DIR);
  await createAll(
    coreKc,
    namespaces(s).map((name) => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } })),
  );
  await createAll(coreKc, s.workloads.flatMap(workloadObjects));
  log(`core API server ready at ${core.url} (${s.workloads.length} workloads, no nodes)`);

  const cells: EmbeddedCluster[] = [];
  try {
    for (const [i, name] of names.entries()) {
      const cell = await startEmbeddedCluster({
        scenario: cellScenario(s, name, i, names.length),
        infraFile: join(opts.stateDir, `infra-${name}.json`),
        log: (m) => log(`${name}: ${m}`),
      });
      cells.push(cell);
    }
  } catch (e) {
    for (const c of cells) await c.stop();
    await core.stop();
    throw e;
  }

  const kubeconfigPath = join(opts.stateDir, 'kubeconfig');
  const doc = mergeKubeconfigs([
    renamed(core.kubeconfig, CORE_CONTEXT),
    ...cells.map((c, i) => renamed(c.apiserver.kubeconfig, names[i])),
  ]);
  await writeKubeconfig(kubeconfigPath, YAML.stringify(doc));
  return {
    kubeconfigPath,
    coreContext: CORE_CONTEXT,
    cellContexts: names,
    cells,
    async stop() {
      for (const c of cells) await c.stop();
      await core.stop();
    },
  };
}
