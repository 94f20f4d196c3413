import { describe, expect, it } from 'vitest';
import { type DialogInput, submissionOf, submitBlocker } from './dialog';

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
