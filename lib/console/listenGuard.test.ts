import { describe, expect, it } from 'vitest';
import { isLoopback } from './listenGuard';

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
