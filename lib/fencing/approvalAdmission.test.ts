import { describe, expect, it } from 'vitest';
import { type FenceWrite, judgeFenceWrite } from './approvalAdmission.js';

describe('judgeFenceWrite', () => {
  const cases: [string, FenceWrite, ReturnType<typeof judgeFenceWrite>][] = [
    [
      'a status-only or unrelated write',
      { old: { approvedBy: 'a' }, new: { approvedBy: 'a' }, username: 'ctl' },
      { kind: 'free' },
    ],
    ['a new fence without approval', { new: {}, username: 'palisade' }, { kind: 'free' }],
    [
      'approving as oneself',
      { old: {}, new: { approvedBy: 'admin', approvedAt: 't' }, username: 'admin' },
      { kind: 'needs', verbs: ['approve'] },
    ],
    [
      'approving in somebody else’s name',
      { old: {}, new: { approvedBy: 'admin', approvedAt: 't' }, username: 'mallory' },
      { kind: 'refused', message: 'spec.approvedBy must name the user who approves (mallory), not "admin"' },
    ],
    [
      'withdrawing an approval',
      { old: { approvedBy: 'admin', approvedAt: 't' }, new: {}, username: 'bob' },
      { kind: 'needs', verbs: ['approve'] },
    ],
    [
      'cancelling',
      { old: {}, new: { cancelRequested: { by: 'op', at: 't', reason: 'r' } }, username: 'op' },
      { kind: 'needs', verbs: ['cancel'] },
    ],
    [
      'cancelling for someone else',
      { old: {}, new: { cancelRequested: { by: 'op', at: 't', reason: 'r' } }, username: 'x' },
      { kind: 'refused', message: 'spec.cancelRequested.by must name the user who cancels (x), not "op"' },
    ],
    [
      'created already approved',
      { new: { approvedBy: 'admin', approvedAt: 't' }, username: 'admin' },
      { kind: 'needs', verbs: ['approve'] },
    ],
    [
      'asking for a fence now, as oneself (created requested and approved)',
      {
        new: { approvedBy: 'admin', approvedAt: 't', requestedBy: { by: 'admin', at: 't', reason: 'r' } },
        username: 'admin',
      },
      { kind: 'needs', verbs: ['approve'] },
    ],
    [
      'asking for a fence now in somebody else’s name',
      { new: { requestedBy: { by: 'admin', at: 't', reason: 'r' } }, username: 'mallory' },
      {
        kind: 'refused',
        message: 'spec.requestedBy.by must name the user who asks for the fence (mallory), not "admin"',
      },
    ],
    [
      'a request alone still needs approve',
      { new: { requestedBy: { by: 'op', at: 't' } }, username: 'op' },
      { kind: 'needs', verbs: ['approve'] },
    ],
  ];
  it.each(cases)('%s', (_n, w, want) => expect(judgeFenceWrite(w)).toEqual(want));
});
