import { describe, expect, it } from 'vitest';
import { clientKey, clientOf, normaliseAddress, trustedProxies } from './clientAddress.js';

describe('normaliseAddress', () => {
  it.each([
    ['1.2.3.4', '1.2.3.4'],
    ['::ffff:1.2.3.4', '1.2.3.4'],
    ['::FFFF:10.0.0.1', '10.0.0.1'],
    ['1.2.3.4:5678', '1.2.3.4'],
    ['[::1]:8080', '::1'],
    ['[2001:DB8::1]', '2001:db8::1'],
    ['fe80::1%eth0', 'fe80::1'],
    [' 10.0.0.2 ', '10.0.0.2'],
    ['unknown', undefined],
    ['evil.example', undefined],
    ['', undefined],
    [undefined, undefined],
  ])('%j -> %j', (raw, want) => expect(normaliseAddress(raw)).toBe(want));
});

describe('clientOf: the client behind trusted proxies', () => {
  const proxies = trustedProxies(['10.0.0.0/8', '192.168.1.5', 'fd00::/8']);
  const cases: [string, string | undefined, string][] = [
    // no proxy trusted for this peer: the header is anyone's to write, so it is ignored
    ['203.0.113.9', '1.1.1.1', '203.0.113.9'],
    ['::ffff:203.0.113.9', '1.1.1.1', '203.0.113.9'],
    // one trusted proxy in front: the last hop it adds is the client
    ['10.1.2.3', '198.51.100.7', '198.51.100.7'],
    ['10.1.2.3', '198.51.100.7:51234', '198.51.100.7'],
    // two trusted proxies: skip the trusted hops from the right
    ['10.1.2.3', '198.51.100.7, 192.168.1.5', '198.51.100.7'],
    // a client that writes its own X-Forwarded-For gets its real address anyway (rightmost untrusted)
    ['10.1.2.3', '1.1.1.1, 198.51.100.7', '198.51.100.7'],
    ['10.1.2.3', '10.9.9.9, 198.51.100.7', '198.51.100.7'],
    // every hop trusted: the leftmost one
    ['10.1.2.3', '10.4.4.4, 10.5.5.5', '10.4.4.4'],
    // garbage in the header: the last address a trusted proxy vouched for
    ['10.1.2.3', 'evil, 198.51.100.7', '198.51.100.7'],
    ['10.1.2.3', '198.51.100.7, evil', '10.1.2.3'],
    // a trusted proxy that sent no header: the proxy itself
    ['10.1.2.3', undefined, '10.1.2.3'],
    ['fd00::5', '2001:db8:1:2::9', '2001:db8:1:2::9'],
  ];
  it.each(cases)('peer %s, X-Forwarded-For %j -> %s', (peer, xff, want) =>
    expect(clientOf(peer, xff, proxies)).toBe(want),
  );

  it('several X-Forwarded-For lines read as one list', () =>
    expect(clientOf('10.1.2.3', ['198.51.100.7', '192.168.1.5'], proxies)).toBe('198.51.100.7'));

  it('no trusted proxies: always the peer', () =>
    expect(clientOf('10.1.2.3', '198.51.100.7', trustedProxies([]))).toBe('10.1.2.3'));

  it('refuses a configured entry that is no address', () => {
    expect(() => trustedProxies(['10.0.0.0/8', 'proxy.internal'])).toThrow(
      '"proxy.internal" is not an IP address or CIDR',
    );
    expect(() => trustedProxies(['10.0.0.0/33'])).toThrow('prefix is too long');
  });
});

describe('clientKey: what a rate limit counts per', () => {
  it.each([
    ['198.51.100.7', '198.51.100.7'],
    ['2001:db8:1:2::9', '2001:db8:1:2::/64'],
    ['2001:db8:1:2:ffff:ffff:ffff:ffff', '2001:db8:1:2::/64'],
    ['2001:0db8:0001:0002:0000:0000:0000:0009', '2001:db8:1:2::/64'],
    ['::1', '0:0:0:0::/64'],
    ['unknown', 'unknown'],
  ])('%s -> %s', (a, want) => expect(clientKey(a)).toBe(want));
});
