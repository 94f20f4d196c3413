// The shared input fields: an object name is what Kubernetes accepts as one URL path segment.
// "." and ".." would be normalised away by the client on its way to the API server (reading pod
// ".." in shop read the namespace shop; the preview would have deleted it), so they never pass.
import { describe, expect, it } from 'vitest';
import { objectName } from './trpc.js';

const messages = (v: unknown) => {
  const r = objectName.safeParse(v);
  return r.success ? [] : r.error.issues.map((i) => i.message);
};

describe('objectName', () => {
  it('accepts names Kubernetes accepts', () => {
    for (const n of ['web-0', 'a1-1', 'pvc-0f3e.x', 'a..b', '.x', 'x.', 'ä', 'a'.repeat(253)])
      expect(messages(n), n).toEqual([]);
  });

  it('refuses what a URL path would read as another resource', () => {
    expect(messages('.')).toEqual(['name may not be "." or ".."']);
    expect(messages('..')).toEqual(['name may not be "." or ".."']);
    for (const n of ['../x', 'a/b', '/', '%2F', '%2e%2e', '%'])
      expect(messages(n), n).toEqual(['name may not contain "/" or "%"']);
  });

  it('refuses half a surrogate pair, which no URL can carry', () => {
    for (const n of ['\ud800', 'web-\udc00', '\ud83d'])
      expect(messages(n), n).toEqual(['name is not valid Unicode text']);
    expect(messages('web-💥')).toEqual([]);
  });

  it('keeps the length rules', () => {
    expect(messages('')).toEqual(['name is required']);
    expect(messages('a'.repeat(254))).toEqual(['name is longer than 253 characters']);
  });
});
