import { describe, expect, it } from 'vitest';
import { judgePausePolicy, judgeResumePolicy, type PolicyFacts } from './fencePolicy.js';

const p = (extra: Partial<PolicyFacts> = {}): PolicyFacts => ({
  name: 'demo',
  paused: false,
  waiting: [],
  warningWindow: '10s',
  ...extra,
});

describe('judgePausePolicy / judgeResumePolicy', () => {
  const cases: [string, () => ReturnType<typeof judgePausePolicy>, boolean, RegExp][] = [
    ['pause a running policy: safe', () => judgePausePolicy(p()), true, /no new fence starts/],
    [
      'pause names the held fences',
      () => judgePausePolicy(p({ waiting: ['a2-1'] })),
      true,
      /held before their agent: a2-1/,
    ],
    ['pause a paused policy: refused', () => judgePausePolicy(p({ paused: true })), false, /already paused/],
    ['resume a paused policy: safe', () => judgeResumePolicy(p({ paused: true })), true, /fences again/],
    ['resume a running policy: refused', () => judgeResumePolicy(p()), false, /not paused/],
  ];
  it.each(cases)('%s', (_n, judge, isSafe, text) => {
    const v = judge();
    expect(v.safe).toBe(isSafe);
    expect((v.safe ? v.notes : v.reasons).join(' ')).toMatch(text);
  });
  it('resume warns that held fences run at once', () => {
    const v = judgeResumePolicy(p({ paused: true, waiting: ['a2-1', 'b1-3'] }));
    expect(v.warnings).toEqual([
      'held fences whose warning window is over run their agent at once: a2-1, b1-3',
    ]);
    if (!v.safe) return;
    expect(v.safe).toBe(true);
  });
  it('refusals cannot be overridden', () => {
    const v = judgePausePolicy(p({ paused: true }));
    expect(v.safe === false && v.overridable).toBe(false);
  });
});
