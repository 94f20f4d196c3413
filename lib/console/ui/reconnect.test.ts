import { describe, expect, it } from 'vitest';
import { afterDisconnect, reconnectDelayMs, subscribeRequest } from './reconnect.js';

describe('afterDisconnect', () => {
  it.each([
    // a stopping replica disconnects its sockets: socket.io would not come back by itself
    ['io server disconnect', 'reconnect'],
    // a killed replica, a network cut, a server that stopped answering pings: socket.io retries
    ['transport close', 'automatic'],
    ['transport error', 'automatic'],
    ['ping timeout', 'automatic'],
    ['parse error', 'automatic'],
    // the page closed it
    ['io client disconnect', 'stay'],
  ] as const)('%s -> %s', (reason, want) => expect(afterDisconnect(reason)).toBe(want));
});

describe('reconnectDelayMs', () => {
  it.each([
    [0, 500],
    [0.5, 1000],
    [1, 1500],
    [-1, 500],
    [2, 1500],
  ])('random %d -> %d ms', (r, ms) => expect(reconnectDelayMs(r)).toBe(ms));
});

describe('subscribeRequest', () => {
  it.each([
    ['nothing applied yet: a snapshot', undefined, { cluster: 'c', kind: 'pods' }],
    [
      'resume in the numbering it came from',
      { seq: 7, epoch: 'e1' },
      { cluster: 'c', kind: 'pods', resumeFrom: 7, epoch: 'e1' },
    ],
    ['a server that named no epoch', { seq: 7 }, { cluster: 'c', kind: 'pods', resumeFrom: 7 }],
  ] as const)('%s', (_, last, want) => expect(subscribeRequest('c', 'pods', last)).toEqual(want));
});
