import { describe, expect, it } from 'vitest';
import { resolveClientUser, urlHostPort } from './clientAuth.js';

const kc = (names: string[], current?: string) => ({
  users: names.map((name) => ({ name, user: { token: name } })),
  contexts: current ? [{ name: 'c', context: { user: current } }] : [],
  'current-context': current ? 'c' : undefined,
});
const pick = (names: string[], target: string, current?: string) =>
  resolveClientUser(kc(names, current), target)?.token;

describe('webhook client credentials by host (kube-apiserver AuthenticationInfoResolver)', () => {
  it.each([
    [['hook.ns.svc:443', 'hook.ns.svc', '*'], 'hook.ns.svc:443', 'hook.ns.svc:443'],
    [['hook.ns.svc', '*'], 'hook.ns.svc:443', 'hook.ns.svc'],
    [['hook.ns.svc', '*'], 'hook.ns.svc:8443', '*'],
    [['hook.ns.svc:8443', 'hook.ns.svc'], 'hook.ns.svc:8443', 'hook.ns.svc:8443'],
    [['*.example.com', '*'], 'www.example.com', '*.example.com'],
    [['*.example.com', '*.com'], 'a.b.example.com', '*.example.com'],
    [['*.example.com'], 'www.example.com:443', '*.example.com'],
    [['*.example.com'], 'www.example.com:8443', undefined],
    [['127.0.0.1:9443', '*'], '127.0.0.1:9443', '127.0.0.1:9443'],
    [['*'], 'anything:1', '*'],
    [[], 'x', undefined],
  ])('%j for %s', (names, target, want) => expect(pick(names, target)).toBe(want));

  it("falls back to the current context's user", () => {
    expect(pick(['mine'], 'x:1', 'mine')).toBe('mine');
    expect(pick(['mine', '*'], 'x:1', 'mine')).toBe('*');
  });

  it.each([
    ['https://www.example.com/hook', 'www.example.com'],
    ['https://www.example.com:443/hook', 'www.example.com:443'],
    ['https://127.0.0.1:9443', '127.0.0.1:9443'],
    ['https://u@[::1]:9443/x?y', '[::1]:9443'],
  ])('the URL host of %s is %s, as written', (url, want) => expect(urlHostPort(url)).toBe(want));
});
