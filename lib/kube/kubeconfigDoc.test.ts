import { describe, expect, it } from 'vitest';
import { type KubeconfigDoc, mergeKubeconfigs, renameSingleContext } from './kubeconfigDoc';

const embedded = (server: string, token: string): KubeconfigDoc => ({
  apiVersion: 'v1',
  kind: 'Config',
  clusters: [{ name: 'palisade-embedded', cluster: { server } }],
  users: [{ name: 'palisade-admin', user: { token } }],
  contexts: [
    {
      name: 'palisade-embedded',
      context: { cluster: 'palisade-embedded', user: 'palisade-admin', namespace: 'default' },
    },
  ],
  'current-context': 'palisade-embedded',
});

describe('renameSingleContext', () => {
  it('names the context, its cluster and its user alike and keeps the rest', () => {
    const doc = renameSingleContext(embedded('https://127.0.0.1:1', 't1'), 'cell-a');
    expect(doc.contexts).toEqual([
      { name: 'cell-a', context: { cluster: 'cell-a', user: 'cell-a', namespace: 'default' } },
    ]);
    expect(doc.clusters).toEqual([{ name: 'cell-a', cluster: { server: 'https://127.0.0.1:1' } }]);
    expect(doc.users).toEqual([{ name: 'cell-a', user: { token: 't1' } }]);
    expect(doc['current-context']).toBe('cell-a');
  });
  it('refuses a kubeconfig with several contexts', () => {
    const two = mergeKubeconfigs([
      renameSingleContext(embedded('https://a', 'a'), 'a'),
      renameSingleContext(embedded('https://b', 'b'), 'b'),
    ]);
    expect(() => renameSingleContext(two, 'x')).toThrow('expected one context, found 2');
  });
});

describe('mergeKubeconfigs', () => {
  it('keeps every context and the first current-context', () => {
    const m = mergeKubeconfigs(
      ['core', 'cell-a', 'cell-b'].map((n, i) => renameSingleContext(embedded(`https://h:${i}`, n), n)),
    );
    expect(m.contexts?.map((c) => c.name)).toEqual(['core', 'cell-a', 'cell-b']);
    expect(m.clusters?.map((c) => (c.cluster as { server: string }).server)).toEqual([
      'https://h:0',
      'https://h:1',
      'https://h:2',
    ]);
    expect(m['current-context']).toBe('core');
  });
  it('lets the first file win on a name clash, as kubectl does', () => {
    const m = mergeKubeconfigs([embedded('https://first', 'a'), embedded('https://second', 'b')]);
    expect(m.clusters).toEqual([{ name: 'palisade-embedded', cluster: { server: 'https://first' } }]);
    expect(m.users).toEqual([{ name: 'palisade-admin', user: { token: 'a' } }]);
  });
});
