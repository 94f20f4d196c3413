import { describe, expect, it } from 'vitest';
import { labelChange, PROTECTED_NAMESPACE_VALUE } from './namespaceLabel.js';

describe('labelChange', () => {
  it.each([
    // holds a protector, current value -> change
    [true, undefined, 'add'],
    [true, PROTECTED_NAMESPACE_VALUE, 'none'],
    // a value someone else wrote is not the one the webhook matches: put it right
    [true, 'disabled', 'add'],
    [false, PROTECTED_NAMESPACE_VALUE, 'remove'],
    [false, 'disabled', 'remove'],
    [false, undefined, 'none'],
  ] as const)('holds a protector %s, label %s: %s', (holds, value, want) => {
    expect(labelChange(holds, value)).toBe(want);
  });
});
