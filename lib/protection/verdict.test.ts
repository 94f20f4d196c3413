import { describe, expect, it } from 'vitest';
import { type AdmissionVerdict, isRefusal, metricResult, REFUSAL_CODE } from './verdict';

describe('admission verdicts', () => {
  it.each<[AdmissionVerdict, boolean, 'allowed' | 'retry' | 'denied', number | undefined]>([
    ['unprotected', false, 'allowed', undefined],
    ['admitted', false, 'allowed', undefined],
    ['already-terminating', false, 'allowed', undefined],
    ['forced', false, 'allowed', undefined],
    ['bad-criterion', true, 'denied', 400],
    ['too-few', true, 'denied', 429],
    ['buffer-full', true, 'retry', 409],
  ])('%s: refusal %s, metric %s, HTTP %s', (v, refusal, metric, code) => {
    expect(isRefusal(v)).toBe(refusal);
    expect(metricResult(v)).toBe(metric);
    expect(isRefusal(v) ? REFUSAL_CODE[v] : undefined).toBe(code);
  });
});
