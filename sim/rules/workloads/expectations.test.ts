import { describe, expect, it } from 'vitest';
import { Expectations } from './expectations.js';

describe('Expectations', () => {
  it('holds a key until every creation and deletion was observed', () => {
    const e = new Expectations(1000);
    e.expectCreations('rs', 2, 0);
    e.expectDeletions('rs', ['ns/a'], 0);
    expect(e.satisfied('rs', 1)).toBe(false);
    e.creationObserved('rs');
    e.creationObserved('rs');
    expect(e.satisfied('rs', 1)).toBe(false);
    e.deletionObserved('rs', 'ns/a');
    expect(e.satisfied('rs', 1)).toBe(true);
  });

  it('expires stale expectations so a lost event cannot wedge a key', () => {
    const e = new Expectations(1000);
    e.expectCreations('rs', 1, 0);
    expect(e.expiresIn('rs', 400)).toBe(601);
    expect(e.satisfied('rs', 999)).toBe(false);
    expect(e.satisfied('rs', 1001)).toBe(true);
  });

  it('ignores observations nobody expected', () => {
    const e = new Expectations();
    e.creationObserved('rs');
    e.deletionObserved('rs', 'x');
    expect(e.satisfied('rs')).toBe(true);
  });
});
