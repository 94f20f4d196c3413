import { describe, expect, it } from 'vitest';
import { canonicalJson, fnv1a32, safeEncode, templateHash } from './hash.js';

describe('hashing', () => {
  it.each([
    ['', 0x811c9dc5],
    ['a', 0xe40c292c],
    ['foobar', 0xbf9cf968],
  ])('fnv1a32(%j)', (s, want) => {
    expect(fnv1a32(s)).toBe(want);
  });

  it('safeEncode maps onto the vowel-free alphabet', () => {
    expect(safeEncode('0123456789')).toMatch(/^[bcdfghjklmnpqrstvwxz2456789]{10}$/);
  });

  it('canonicalJson ignores key order and undefined, and normalises dates', () => {
    expect(canonicalJson({ b: 1, a: { d: undefined, c: [1, 'x'] } })).toBe('{"a":{"c":[1,"x"]},"b":1}');
    expect(canonicalJson({ t: new Date('2024-01-02T03:04:05Z') })).toBe(
      canonicalJson({ t: '2024-01-02T03:04:05Z' }),
    );
  });

  it('templateHash is stable across key order and changes with content or collisionCount', () => {
    const a = {
      metadata: { labels: { app: 'web' } },
      spec: { containers: [{ name: 'c', image: 'nginx:1' }] },
    };
    const b = {
      spec: { containers: [{ image: 'nginx:1', name: 'c' }] },
      metadata: { labels: { app: 'web' } },
    };
    expect(templateHash(a)).toBe(templateHash(b));
    expect(templateHash(a)).not.toBe(
      templateHash({ ...a, spec: { containers: [{ name: 'c', image: 'nginx:2' }] } }),
    );
    expect(templateHash(a, 1)).not.toBe(templateHash(a));
    expect(templateHash(a)).toMatch(/^[bcdfghjklmnpqrstvwxz2456789]{1,10}$/);
  });
});
