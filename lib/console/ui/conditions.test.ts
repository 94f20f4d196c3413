import { describe, expect, it } from 'vitest';
import { conditionTone, readySinceLabel } from './conditions';

describe('conditionTone', () => {
  it.each([
    ['Ready', 'True', 'ok'],
    ['Ready', 'False', 'bad'],
    ['Ready', 'Unknown', 'unknown'],
    ['MemoryPressure', 'False', 'ok'],
    ['MemoryPressure', 'True', 'bad'],
    ['MemoryPressure', 'Unknown', 'unknown'],
    ['DiskPressure', 'Unknown', 'unknown'],
    ['PIDPressure', 'False', 'ok'],
    ['NetworkUnavailable', 'True', 'bad'],
    ['Ready', '', 'unknown'],
  ])('%s=%s reads %s', (type, status, tone) => {
    expect(conditionTone(type, status)).toBe(tone);
  });
});

describe('readySinceLabel', () => {
  it.each([
    ['Ready', 'Ready since'],
    ['NotReady', 'NotReady since'],
    ['Unknown', 'Unknown since'],
  ] as const)('%s -> %s', (state, label) => {
    expect(readySinceLabel(state)).toBe(label);
  });
});
