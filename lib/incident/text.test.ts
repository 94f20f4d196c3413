import { describe, expect, it } from 'vitest';
import { countdownText, nextActionText, staleText } from './text';
import type { NextAction, StaleReason } from './types';

const NOW = 1_000_000;

describe('countdownText (the warning window, as the Fencing page and the map say it)', () => {
  it.each([
    [NOW + 8_000, false, undefined, 'fenced automatically in 8 s unless cancelled'],
    [NOW + 7_200, false, undefined, 'fenced automatically in 8 s unless cancelled'],
    [NOW - 2_000, false, undefined, 'fenced automatically in 0 s unless cancelled'],
    [NOW + 8_000, true, 'workers', 'fence paused by policy workers'],
  ])('%i paused=%s', (at, paused, policy, text) => {
    expect(countdownText(at, NOW, paused, policy)).toBe(text);
  });
});

describe('nextActionText', () => {
  it.each<[NextAction, string]>([
    [
      { action: 'wait-for-fence', node: 'a2-1', fenceAt: NOW + 8_000 },
      'wait: a2-1 is fenced automatically in 8 s unless cancelled',
    ],
    [
      { action: 'wait-for-fence', node: 'a2-1', fenceAt: NOW + 8_000, paused: true },
      'fencing is paused: resume its policy, or fence a2-1 by hand',
    ],
    [{ action: 'wait-for-fence', node: 'a2-1', fence: 'a2-1' }, 'wait for the fence of a2-1'],
    [{ action: 'approve-fence', node: 'a2-1', fence: 'a2-1' }, 'approve the fence a2-1'],
    [
      { action: 'force-delete', pod: { namespace: 'shop', name: 'db-0' } },
      'force delete shop/db-0: its node is fenced',
    ],
    [{ action: 'detach', attachment: 'csi-1', pv: 'pv-1' }, 'detach pv-1 (VolumeAttachment csi-1)'],
    [
      { action: 'fence-node', node: 'a2-1', why: 'budget' },
      'fence a2-1 by hand once you are sure it is down: the budget holds its fence (a network split?)',
    ],
  ])('%j', (a, text) => {
    expect(nextActionText(a, NOW)).toBe(text);
  });
});

describe('staleText', () => {
  it.each<[StaleReason, string]>([
    [{ code: 'watch-down', kind: 'pods', forMs: 12_400 }, 'the pods watch has been down for 12 s'],
    [{ code: 'heartbeats-silent', forMs: 15_000 }, 'no node heartbeat for 15 s beyond their interval'],
    [{ code: 'never-synced', kind: 'nodes' }, 'the nodes watch has not listed yet'],
  ])('%j', (r, text) => {
    expect(staleText(r)).toBe(text);
  });
});
