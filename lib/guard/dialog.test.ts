import { describe, expect, it } from 'vitest';
import { MAX_REASON_LENGTH } from './actions';
import { type DialogInput, needsOf, REASON_CHOICES, submissionOf, submitBlocker } from './dialog';
import { safe, unsafe, type Verdict } from './types';

const needs = { name: 'web-0', typedName: true, reason: true };
const input = (i: Partial<DialogInput>): DialogInput => ({ needs, typed: '', reason: '', ...i });

describe('submitBlocker', () => {
  it.each<[string, Partial<DialogInput>, string | undefined]>([
    ['refused whatever is typed', { refusal: 'read-only', typed: 'web-0', reason: 'r' }, 'read-only'],
    ['nothing typed', {}, 'type "web-0" to confirm'],
    ['the wrong name', { typed: 'web-1', reason: 'r' }, '"web-1" does not match "web-0"'],
    ['case matters', { typed: 'WEB-0', reason: 'r' }, '"WEB-0" does not match "web-0"'],
    ['no reason', { typed: 'web-0' }, 'give a reason'],
    ['a blank reason', { typed: 'web-0', reason: '   ' }, 'give a reason'],
    ['ready', { typed: 'web-0', reason: 'stuck' }, undefined],
    ['safe: nothing needed', { needs: { ...needs, typedName: false, reason: false } }, undefined],
    ['cancel: a reason only', { needs: { ...needs, typedName: false } }, 'give a reason'],
    [
      'acknowledge: not ticked',
      { needs: { ...needs, typedName: false, reason: false, acknowledge: true } },
      'tick the box to confirm',
    ],
    [
      'acknowledge: ticked',
      { needs: { ...needs, typedName: false, reason: false, acknowledge: true }, acknowledged: true },
      undefined,
    ],
  ])('%s', (_what, i, want) => {
    expect(submitBlocker(input(i))).toBe(want);
  });
});

describe('submissionOf', () => {
  it('sends the typed name only when needed, and the reason trimmed', () => {
    expect(submissionOf(input({ typed: 'web-0', reason: ' stuck ' }))).toEqual({
      confirm: 'web-0',
      reason: 'stuck',
    });
    expect(submissionOf(input({ needs: { ...needs, typedName: false }, typed: 'x' }))).toEqual({});
  });
});

const ack: Verdict = { ...unsafe(['the kubelet still reports it mounted']), confirmation: 'acknowledge' };
describe('needsOf', () => {
  it.each<[string, Verdict, string, Parameters<typeof needsOf>[2], object]>([
    ['safe detach: nothing', safe(), 'normal', 'detachVolume', { typedName: false, reason: false }],
    ['unsafe: name and reason', unsafe(['x']), 'normal', 'detachVolume', { typedName: true, reason: true }],
    [
      'acknowledgeable: one tick',
      ack,
      'normal',
      'detachVolume',
      { typedName: false, reason: false, acknowledge: true },
    ],
    [
      'acknowledgeable on a protected cluster: name and reason',
      ack,
      'protected',
      'detachVolume',
      { typedName: true, reason: true },
    ],
    [
      'safe on a protected cluster: the name',
      safe(),
      'protected',
      'forceDeletePod',
      { typedName: true, reason: false },
    ],
    ['cancel fence: a reason', safe(), 'normal', 'cancelFence', { typedName: false, reason: true }],
  ])('%s', (_what, v, mode, action, want) => {
    expect(needsOf(v, mode, action, 'csi-0123')).toEqual({ name: 'csi-0123', ...want });
  });

  it('sends the acknowledgement only when needed and ticked', () => {
    const n = { name: 'csi-0123', typedName: false, reason: false, acknowledge: true };
    expect(submissionOf({ needs: n, typed: '', reason: '', acknowledged: true })).toEqual({
      acknowledged: true,
    });
    expect(
      submissionOf({ needs: { ...n, acknowledge: false }, typed: '', reason: '', acknowledged: true }),
    ).toEqual({});
  });
});

describe('reason choices', () => {
  it.each(['cancelFence', 'pauseFencePolicy', 'fenceNode'] as const)(
    '%s, which always asks why, offers reasons to pick, each one enough to send',
    (action) => {
      const choices = REASON_CHOICES[action] ?? [];
      expect(choices.length).toBeGreaterThan(1);
      const needs = needsOf(safe(['x']), 'normal', action, 'a1-1');
      for (const reason of choices) {
        expect(reason.length).toBeLessThanOrEqual(MAX_REASON_LENGTH);
        expect(submitBlocker({ needs, typed: '', reason })).toBeUndefined();
      }
    },
  );
});
