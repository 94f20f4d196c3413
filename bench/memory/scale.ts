// bench:memory at Kubernetes' scale limit: the console benchmark's cluster (bench/console: its
// API server in a child, loaded through the API) at 5000 nodes and 150 000 pods, the compiled
// server beside it with deletion protection on and its history store (PGlite, as a pod without
// PostgreSQL), Chromium rendering the map and following readiness flips; the server's RSS
// sampled every 0.5 s from /proc throughout. As root the server runs in a memory cgroup with the
// chart's limit, as in a pod (cgroup.ts): its heap sized from it, killed past it.
import type { ProcReading } from '../cluster/procfs.js';
import { type Config, clusterPhase, consolePhase, renderPhase, updatePhase } from '../console/phases.js';
import { Rig } from '../console/rig.js';
import { readFileSync } from 'node:fs';
import { chartMemoryLimit, memoryCgroup } from './cgroup.js';
import { serverConfig, tempDir, removeDir } from './demo.js';

export const SCALE: Config = {
  mode: 'scale',
  shape: { nodes: 5000, pods: 150_000, namespaces: 50, rackSize: 20 },
  renders: 2,
  rate: 500,
  updates: 15_000,
  maxInFlight: 64,
  drainMs: 30_000,
  settleMs: 5_000,
  deadlineMs: 60 * 60_000,
  renderTimeoutMs: 180_000,
  loadBudgetMs: 45 * 60_000,
};

export interface ScaleRun {
  cfg: Config;
  loadMs: number;
  syncMs: number;
  synced?: ProcReading;
  afterRenders?: ProcReading;
  afterUpdates?: ProcReading;
  peak: number;
  renderS: number[];
  updatesSeen: string;
  /** pods snapshots sent again to the open map during the updates (the hub resending: 0 expected) */
  resent: number;
  /** the memory cgroup it ran in, and what the kernel killed there */
  cgroup?: { limitBytes: number; oomKills: number };
  /** how the server ended before the bench stopped it (an OOM kill: SIGKILL), if it did */
  ended?: string;
  errors: string[];
}

const log = (m: string) => console.log(`[bench:memory] ${m}`);

export async function scaleRun(root: string, cfg: Config = SCALE): Promise<ScaleRun> {
  const dir = tempDir('scale');
  const rig = new Rig();
  const errors: string[] = [];
  const limit = chartMemoryLimit(readFileSync(`${root}deploy/helm/palisade/values.yaml`, 'utf8'));
  const cgroup = limit ? memoryCgroup(`palisade-bench-memory-${process.pid}`, limit) : undefined;
  let resent = 0;
  try {
    const load = await clusterPhase(rig, cfg);
    const start = await consolePhase(rig, {
      args: ['--config', serverConfig(dir)],
      wrap: cgroup?.wrap,
      syncTimeoutMs: 600_000,
    });
    let afterRenders: ProcReading | undefined;
    let renderS: number[] = [];
    let updatesSeen = 'not run';
    try {
      const r = await renderPhase(rig, start.url, cfg);
      r.open.page.on('websocket', (ws) =>
        ws.on('framereceived', (f) => {
          if (
            String(f.payload).startsWith('42["snapshot",{"cluster"') &&
            String(f.payload).includes('"kind":"pods"')
          )
            resent++;
        }),
      );
      afterRenders = r.after;
      renderS = r.renders.map((x) => x.fullMs / 1000);
      const u = await updatePhase(rig, r.open, cfg);
      const acked = u.run.updates.filter((x) => x.ok).length;
      updatesSeen = `${acked} readiness flips acknowledged at ${cfg.rate}/s`;
    } catch (e) {
      // the figure here is memory: a render slower than its timeout is said, not fatal
      errors.push((e as Error).message.split('\n')[0]);
      log(`browser phase failed: ${errors.at(-1)}`);
    }
    const con = rig.samples.map((s) => s.console).filter((s): s is ProcReading => !!s);
    const last = rig.read().console;
    return {
      cfg,
      resent,
      cgroup: cgroup && { limitBytes: cgroup.limitBytes, oomKills: cgroup.oomKills() },
      ended: rig.console?.ended,
      loadMs: load.ms,
      syncMs: start.syncMs,
      synced: start.idle,
      afterRenders,
      afterUpdates: last,
      peak: Math.max(last?.hwm ?? 0, ...con.map((s) => s.hwm)),
      renderS,
      updatesSeen,
      errors,
    };
  } finally {
    await rig.stop();
    cgroup?.remove();
    removeDir(dir);
  }
}
