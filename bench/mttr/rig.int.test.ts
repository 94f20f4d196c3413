// The MTTR bench's rig still measures something: one repetition at scaled durations, with the
// Automatic policy and with the "budget holds it, a person uses Fence now" variant, recovers the
// StatefulSet's pod on another node with no checker violation. (The rig once ran its fencing
// controller without a controller Lease term, so nothing was ever fenced and only a full
// `npm run bench:mttr` would have shown it.)
import { describe, expect, it } from 'vitest';
import { palisadeRep } from './palisade.js';
import { PROFILES } from './profiles.js';

describe('the MTTR bench rig, one scaled repetition', { timeout: 120_000 }, () => {
  it('Palisade with the Automatic policy fences, and the replacement runs elsewhere', async () => {
    const s = await palisadeRep(PROFILES.scaled);
    expect(s.mttrMs, JSON.stringify(s.phases)).toBeDefined();
    expect(s.phases).toMatchObject({ detected: expect.any(Number), fenced: expect.any(Number) });
    expect(s.violations).toEqual([]);
  });

  it('with the budget holding the fence, Fence now by a person recovers it', async () => {
    const s = await palisadeRep(PROFILES.scaled, { maxUnhealthy: 0, byHand: true });
    expect(s.mttrMs, JSON.stringify(s.phases)).toBeDefined();
    expect(s.phases.requested).toBeLessThanOrEqual(s.phases.detected);
    expect(s.violations).toEqual([]);
  });
});
