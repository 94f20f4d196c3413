import { describe, expect, it } from 'vitest';
import { TokenFileError, formatTokenFile, parseCsv, parseTokenFile } from './tokenFile.js';

describe('parseCsv (Go encoding/csv, any number of fields)', () => {
  it.each([
    ['a,b,c\n', [['a', 'b', 'c']]],
    ['a,b,c', [['a', 'b', 'c']]],
    [
      'a,b\r\nc,d\r\n',
      [
        ['a', 'b'],
        ['c', 'd'],
      ],
    ],
    ['\n\na,b\n\n', [['a', 'b']]],
    ['t,u,id,"g1,g2"\n', [['t', 'u', 'id', 'g1,g2']]],
    ['"a ""quoted"" b",c\n', [['a "quoted" b', 'c']]],
    ['"multi\nline",x\n', [['multi\nline', 'x']]],
    [' a , b ,c\n', [[' a ', ' b ', 'c']]],
    ['a,,\n', [['a', '', '']]],
  ])('%j', (text, want) => expect(parseCsv(text)).toEqual(want));

  it.each([
    ['a,b"c,d\n', 'bare " in non-quoted field'],
    ['"ab"c,d\n', 'extraneous or missing " in quoted-field'],
    ['"abc,d\n', 'extraneous or missing " in quoted-field'],
  ])('refuses %j', (text, why) => expect(() => parseCsv(text)).toThrow(why));
});

describe('parseTokenFile (tokenfile.NewCSV)', () => {
  it('reads users, uids and quoted groups; groups are split on commas without trimming', () => {
    expect(parseTokenFile('t1,alice,u1\nt2,bob,u2,"dev, ops"\nt3,carol,u3,\n')).toEqual([
      { token: 't1', username: 'alice', uid: 'u1', groups: [] },
      { token: 't2', username: 'bob', uid: 'u2', groups: ['dev', ' ops'] },
      { token: 't3', username: 'carol', uid: 'u3', groups: [''] },
    ]);
  });

  it('skips a record with an empty token', () => {
    expect(parseTokenFile(',x,y\nt,u,i\n').map((e) => e.token)).toEqual(['t']);
  });

  it("refuses a record of fewer than three fields with kube-apiserver's message", () => {
    expect(() => parseTokenFile('t,u\n', '/etc/tokens.csv')).toThrow(
      new TokenFileError(
        "token file '/etc/tokens.csv' must have at least 3 columns (token, user name, user uid), found 2",
      ),
    );
  });

  it('formats what it parses back', () => {
    const entries = [
      { token: 'a1', username: 'viewer', uid: 'viewer', groups: [] },
      { token: 'b2', username: 'ops "x"', uid: 'u', groups: ['g1', 'g2'] },
    ];
    const text = formatTokenFile(entries);
    expect(text).toBe('a1,viewer,viewer\nb2,"ops ""x""",u,"g1,g2"\n');
    expect(parseTokenFile(text)).toEqual(entries);
  });
});
