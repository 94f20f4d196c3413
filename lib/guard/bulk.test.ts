import { describe, expect, it } from 'vitest';
import { bulkPhrase, bulkStep } from './bulk';

const needs = (o: { typedName?: boolean; acknowledge?: boolean } = {}) => ({
  name: 'a1-2',
  typedName: o.typedName ?? false,
  reason: true,
  ...(o.acknowledge ? { acknowledge: true } : {}),
});

describe('bulk override', () => {
  it.each([
    ['fence', 3, 'node', 'fence 3 nodes'],
    ['fence', 1, 'node', 'fence 1 node'],
  ])('%s %i %s: "%s"', (verb, n, noun, want) => expect(bulkPhrase(verb, n, noun)).toBe(want));

  it.each([
    ['safe: sent as is', { needs: needs() }, { send: true }],
    [
      'unsafe, no override offered: its own dialog, with the reason',
      { needs: needs({ typedName: true }), reason: 'the budget holds it' },
      { send: false, why: 'a1-2 needs its own confirmation (the budget holds it): use its own dialog' },
    ],
    [
      'unsafe, the phrase not typed: its own dialog',
      { needs: needs({ typedName: true }), phrase: 'fence 2 nodes', typed: 'fence 2 node' },
      { send: false, why: 'a1-2 needs its own confirmation: use its own dialog' },
    ],
    [
      'unsafe, the phrase typed: sent confirmed with its own name',
      { needs: needs({ typedName: true }), phrase: 'fence 2 nodes', typed: 'fence 2 nodes' },
      { send: true, confirm: 'a1-2' },
    ],
    [
      'an acknowledgement, the phrase typed: acknowledged',
      { needs: needs({ acknowledge: true }), phrase: 'fence 2 nodes', typed: 'fence 2 nodes' },
      { send: true, acknowledged: true },
    ],
  ])('%s', (_, input, want) => expect(bulkStep({ label: 'a1-2', typed: '', ...input })).toEqual(want));
});
