import { describe, expect, it } from 'vitest';
import { milliValue, podRequests, wholeValue } from './resources.js';

describe('milli and whole values', () => {
  it('rounds milli and whole values up, without float noise', () => {
    expect(milliValue('0.1')).toBe(100);
    expect(milliValue('250m')).toBe(250);
    expect(milliValue('2')).toBe(2000);
    expect(milliValue('100u')).toBe(1);
    expect(wholeValue('1Gi')).toBe(2 ** 30);
    expect(wholeValue('0.5')).toBe(1);
    expect(milliValue(undefined)).toBe(0);
  });
});

describe('podRequests', () => {
  const c = (cpu?: string, memory?: string, limits?: Record<string, string>) => ({
    resources: { requests: { ...(cpu ? { cpu } : {}), ...(memory ? { memory } : {}) }, limits },
  });
  const cases: [string, Parameters<typeof podRequests>[0], { milliCpu: number; memory: number }][] = [
    ['no containers', undefined, { milliCpu: 0, memory: 0 }],
    [
      'sum of app containers',
      { containers: [c('100m', '64Mi'), c('250m', '64Mi')] },
      { milliCpu: 350, memory: 128 * 2 ** 20 },
    ],
    [
      'a limit without request counts as the request',
      { containers: [c(undefined, undefined, { cpu: '1' })] },
      { milliCpu: 1000, memory: 0 },
    ],
    [
      'the largest init container if it exceeds the app containers',
      { containers: [c('100m', '1Gi')], initContainers: [c('2', '1Mi'), c('500m')] },
      { milliCpu: 2000, memory: 2 ** 30 },
    ],
    [
      'plus the pod overhead',
      { containers: [c('100m')], overhead: { cpu: '50m', memory: '1Mi' } },
      { milliCpu: 150, memory: 2 ** 20 },
    ],
  ];
  it.each(cases)('%s', (_, spec, want) => {
    expect(podRequests(spec)).toEqual(want);
  });
});
