import { describe, expect, it } from 'vitest';
import { safeNext } from './redirect.js';

describe('safeNext: where a browser goes after sign-in', () => {
  const cases: [string | null | undefined, string][] = [
    // this console's own paths stay as they are
    ['/', '/'],
    ['/nodes', '/nodes'],
    ['/nodes/a1-1?cluster=x#events', '/nodes/a1-1?cluster=x#events'],
    [
      '/timeline?from=2026-01-01T00:00:00Z&kinds=fault,fence-step',
      '/timeline?from=2026-01-01T00:00:00Z&kinds=fault,fence-step',
    ],
    // issue 23's finding: a tab that browsers drop turns "/\t/evil" into "//evil"
    ['/\t/evil.example/', '/'],
    ['/\n/evil.example/', '/'],
    ['/\r\n/evil.example', '/'],
    ['/\u0000/evil.example', '/'],
    // backslashes read as slashes
    ['/\\evil.example', '/'],
    ['/\\/evil.example', '/'],
    // protocol-relative and absolute URLs
    ['//evil.example/', '/'],
    ['///evil.example/', '/'],
    ['https://evil.example/', '/'],
    ['javascript:alert(1)', '/'],
    ['data:text/html,x', '/'],
    // dot segments that normalise into "//host"
    ['/.//evil.example/', '/'],
    ['/a/..//evil.example/', '/'],
    // percent-encoded text stays a path on this origin (the browser does not decode it into a host)
    ['/%09/evil.example/', '/%09/evil.example/'],
    ['/%2F%2Fevil.example', '/%2F%2Fevil.example'],
    // not a path at all, empty, too long
    ['nodes', '/'],
    ['', '/'],
    [null, '/'],
    [undefined, '/'],
    [`/${'a'.repeat(1100)}`, '/'],
  ];
  it.each(cases)('%j -> %j', (raw, want) => expect(safeNext(raw)).toBe(want));

  it('what it returns is a path a browser resolves on the same origin', () => {
    for (const [raw] of cases) {
      const out = safeNext(raw);
      expect(new URL(out, 'https://console.example').origin).toBe('https://console.example');
    }
  });
});
