import { describe, expect, it } from 'vitest';
import { type ActionRequest, judgeAction } from './actionGuard';

const base = { cluster: 'prod', target: 'node-1' };

describe('judgeAction', () => {
  it.each<[string, Partial<ActionRequest>, boolean, string | undefined]>([
    ['normal, no confirmation', { mode: 'normal' }, true, undefined],
    ['normal ignores a wrong confirmation', { mode: 'normal', confirm: 'x' }, true, undefined],
    ['read-only refuses', { mode: 'read-only' }, false, 'is read-only'],
    [
      'read-only refuses even when confirmed',
      { mode: 'read-only', confirm: 'node-1' },
      false,
      'is read-only',
    ],
    ['protected without confirmation', { mode: 'protected' }, false, 'confirm by typing "node-1"'],
    ['protected with the wrong name', { mode: 'protected', confirm: 'node-2' }, false, 'does not match'],
    ['protected is case-sensitive', { mode: 'protected', confirm: 'NODE-1' }, false, 'does not match'],
    ['protected with the name', { mode: 'protected', confirm: 'node-1' }, true, undefined],
  ])('%s', (_what, req, allowed, message) => {
    const v = judgeAction({ ...base, mode: 'normal', ...req } as ActionRequest);
    expect(v.allowed).toBe(allowed);
    if (!v.allowed) expect(v.message).toContain(message);
  });

  it('says which code a refusal carries', () => {
    expect(judgeAction({ ...base, mode: 'read-only' })).toMatchObject({ code: 'FORBIDDEN' });
    expect(judgeAction({ ...base, mode: 'protected' })).toMatchObject({ code: 'PRECONDITION_FAILED' });
  });
});
