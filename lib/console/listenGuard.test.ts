import { describe, expect, it } from 'vitest';
import { isLoopback, judgeListen } from './listenGuard';

describe('isLoopback', () => {
  it.each<[string, boolean]>([
    ['127.0.0.1', true],
    ['127.1.2.3', true],
    ['localhost', true],
    ['LOCALHOST', true],
    ['app.localhost', true],
    ['::1', true],
    ['[::1]', true],
    ['0:0:0:0:0:0:0:1', true],
    ['::ffff:127.0.0.1', true],
    ['0.0.0.0', false],
    ['::', false],
    ['10.0.0.5', false],
    ['192.168.1.10', false],
    ['::ffff:10.0.0.1', false],
    ['fe80::1', false],
    ['palisade.example.com', false],
    ['128.0.0.1', false],
    ['', false],
  ])('%s -> %s', (host, loopback) => {
    expect(isLoopback(host)).toBe(loopback);
  });
});

describe('judgeListen', () => {
  it.each<[string, { host: string; noAuth: boolean; canAct: boolean }, 'ok' | 'banner' | 'refused', RegExp?]>(
    [
      ['loopback: fine, no banner', { host: '127.0.0.1', noAuth: false, canAct: true }, 'ok'],
      ['loopback with the flag: no banner either', { host: '::1', noAuth: true, canAct: true }, 'ok'],
      [
        'all interfaces, can act, no flag: refused',
        { host: '0.0.0.0', noAuth: false, canAct: true },
        'refused',
        /--host 0\.0\.0\.0 refused: Palisade has no sign-in yet.*--insecure-no-auth/,
      ],
      [
        'a LAN address, no flag: refused',
        { host: '10.0.0.5', noAuth: false, canAct: true },
        'refused',
        /anyone who could reach 10\.0\.0\.5 could force-delete pods/,
      ],
      [
        'a host name is not known to be loopback: refused',
        { host: 'palisade.example.com', noAuth: false, canAct: true },
        'refused',
      ],
      [
        'with the flag: allowed, with a banner',
        { host: '0.0.0.0', noAuth: true, canAct: true },
        'banner',
        /^No authentication \(--insecure-no-auth\): this console listens on 0\.0\.0\.0/,
      ],
      [
        'read-only everywhere: allowed, with a banner',
        { host: '0.0.0.0', noAuth: false, canAct: false },
        'banner',
        /No sign-in: .*read-only/,
      ],
    ],
  )('%s', (_what, req, expected, text) => {
    const v = judgeListen(req);
    if (expected === 'refused') {
      expect(v.ok).toBe(false);
      if (!v.ok && text) expect(v.message).toMatch(text);
      return;
    }
    expect(v.ok).toBe(true);
    if (!v.ok) return;
    if (expected === 'ok') expect(v.banner).toBeUndefined();
    else expect(v.banner).toMatch(text!);
  });
});
