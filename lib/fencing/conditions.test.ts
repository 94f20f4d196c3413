import { describe, expect, it } from 'vitest';
import { conditionsFor } from './conditions.js';

describe('conditionsFor', () => {
  it('sets all three conditions for a phase, FAR-style', () => {
    const c = conditionsFor('Fenced', 'FenceAgentSucceeded', 'power is off', 't1', []);
    expect(c.map((x) => [x.type, x.status, x.reason])).toEqual([
      ['Processing', 'True', 'FenceAgentSucceeded'],
      ['FenceAgentActionSucceeded', 'True', 'FenceAgentSucceeded'],
      ['Succeeded', 'Unknown', 'FenceAgentSucceeded'],
    ]);
  });
  it('moves lastTransitionTime only for conditions whose status changed', () => {
    const fenced = conditionsFor('Fenced', 'FenceAgentSucceeded', 'off', 't1', []);
    const released = conditionsFor('Released', 'RemediationFinishedSuccessfully', 'done', 't2', fenced);
    const by = Object.fromEntries(released.map((c) => [c.type, c]));
    expect(by.Processing).toMatchObject({ status: 'False', lastTransitionTime: 't2' });
    // unchanged: keeps the reason that explains it and its time
    expect(by.FenceAgentActionSucceeded).toMatchObject({
      reason: 'FenceAgentSucceeded',
      lastTransitionTime: 't1',
    });
    expect(by.Succeeded).toMatchObject({
      status: 'True',
      reason: 'RemediationFinishedSuccessfully',
      lastTransitionTime: 't2',
    });
  });
});
