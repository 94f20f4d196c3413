import { describe, expect, it } from 'vitest';
import { errorText, isConflict, isNotFound } from './errorText.js';

describe('errorText', () => {
  const cases: [string, unknown, string][] = [
    [
      'client-node ApiException with a Status body (string)',
      {
        code: 403,
        body: '{"kind":"Status","message":"pods \\"x\\" is forbidden: serviceaccount \\"default\\" not found","code":403}',
        message: 'HTTP-Code: 403\nMessage: Unknown API Status Code!\nBody: ...',
      },
      'HTTP 403: pods "x" is forbidden: serviceaccount "default" not found',
    ],
    [
      'a parsed Status body',
      { code: 409, body: { message: 'the object has been modified' } },
      'HTTP 409: the object has been modified',
    ],
    ['a non-JSON body', { code: 502, body: 'bad gateway\n' }, 'HTTP 502: bad gateway'],
    [
      'a plain Error: its first line',
      new Error('connect ECONNREFUSED 127.0.0.1:1\nmore'),
      'connect ECONNREFUSED 127.0.0.1:1',
    ],
    ['not an error at all', 'boom', 'boom'],
  ];
  for (const [name, e, want] of cases) it(name, () => expect(errorText(e)).toBe(want));
});

describe('isConflict / isNotFound', () => {
  it.each([
    [{ code: 409 }, true, false],
    [{ code: 404 }, false, true],
    [{ code: 500 }, false, false],
    [new Error('socket hang up'), false, false],
    [undefined, false, false],
  ])('%o', (e, conflict, notFound) => {
    expect(isConflict(e)).toBe(conflict);
    expect(isNotFound(e)).toBe(notFound);
  });
});
