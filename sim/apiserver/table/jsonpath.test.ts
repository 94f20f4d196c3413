import { describe, expect, it } from 'vitest';
import { goText } from './gotext.js';
import { evaluate } from './jsonpath.js';

const doc = {
  metadata: { name: 'db', labels: { app: 'pg', 'app.kubernetes.io/name': 'postgres' } },
  spec: { replicas: 3, 'x.y': 'dotted', paused: false },
  status: {
    items: [{ y: 'first' }, { y: 'second' }],
    conditions: [
      { type: 'Synced', status: 'True', count: 2 },
      { type: 'Ready', status: 'False', count: 5 },
    ],
  },
};

describe('evaluate', () => {
  it.each<[string, unknown[]]>([
    ['.spec.replicas', [3]],
    ['{.spec.replicas}', [3]],
    ['$.spec.replicas', [3]],
    ['.spec.paused', [false]],
    ['.metadata.labels.app', ['pg']],
    [".metadata.labels['app.kubernetes.io/name']", ['postgres']],
    ['.spec["x.y"]', ['dotted']],
    ['.status.items[0].y', ['first']],
    ['.status.items[-1].y', ['second']],
    ['.status.items[*].y', ['first', 'second']],
    ['.status.items[5].y', []],
    ['.status.conditions[?(@.type=="Ready")].status', ['False']],
    [".status.conditions[?(@.type == 'Synced')].status", ['True']],
    ['.status.conditions[?(@.count > 3)].type', ['Ready']],
    ['.status.conditions[?(@.type!="Ready")].type', ['Synced']],
    ['.spec.missing.deeper', []],
    ['.spec.replicas.nope', []],
    ['.metadata.labels.*', ['pg', 'postgres']],
    ['spec..bad[', []],
  ])('%s', (path, expected) => {
    expect(evaluate(path, doc)).toEqual(expected);
  });
});

describe('goText', () => {
  it.each<[unknown, string]>([
    ['text', 'text'],
    [42, '42'],
    [1.5, '1.5'],
    [1234567.5, '1.2345675e+06'],
    [0.00001, '1e-05'],
    [true, 'true'],
    [{ b: 1, a: '<x>' }, '{"a":"\\u003cx\\u003e","b":1}'],
    [['a', 2], '["a",2]'],
  ])('%j -> %s', (value, expected) => {
    expect(goText(value)).toBe(expected);
  });
});
