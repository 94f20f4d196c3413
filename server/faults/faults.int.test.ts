// The randomized fault run (issue 23, 8) in the suite: the short seed set (server/faults/seeds.ts)
// on the embedded cluster with two Palisade replicas, fencing on. Each seed must end with no
// violation of any checker invariant and every pod Ready again within the bound after the last
// heal. PALISADE_FAULT_SEEDS=100 runs seeds 1..100 here (or `npm run faults -- --seeds 100`).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { haproxyAvailable } from '../../testenv/ha/haproxy.js';
import { type FaultRig, runSeed, seedSummary, startFaultRig } from './run.js';
import { seedsFromEnv } from './seeds.js';

const seeds = seedsFromEnv();
const LIVENESS_BOUND_MS = 180_000;
let rig: FaultRig | undefined;

describe.skipIf(!haproxyAvailable())('randomized faults (needs haproxy)', () => {
  beforeAll(async () => {
    rig = await startFaultRig();
  }, 600_000);
  afterAll(async () => {
    await rig?.stop();
  }, 120_000);

  it.each(seeds)(
    'seed %i: no invariant broken, every pod Ready again after the heals',
    async (seed) => {
      const r = await runSeed(rig!, seed, { livenessBoundMs: LIVENESS_BOUND_MS });
      const report = `${seedSummary(r)}\n${r.log.join('\n')}`;
      expect(
        r.violations.map((v) => `${v.invariant}: ${v.message}`),
        report,
      ).toEqual([]);
      expect(r.notLive, report).toBeUndefined();
    },
    600_000,
  );
});
