import { describe, expect, it } from 'vitest';
import { configSchema } from '../config/schema.js';
import { historyLocationOf } from './location.js';

const storage = (s: object = {}) => configSchema.parse({ storage: s }).storage;

describe('where the history goes', () => {
  it.each([
    [
      'the embedded cluster: its state directory',
      { storage: storage(), base: '/etc', stateDir: '/var/p' },
      { kind: 'pglite', dir: '/var/p/history' },
    ],
    [
      'a kubeconfig and no state directory: a temporary one',
      { storage: storage(), base: '/etc' },
      { kind: 'temporary' },
    ],
    [
      'storage.path, relative to the config file',
      { storage: storage({ path: 'hist' }), base: '/etc/palisade', stateDir: '/var/p' },
      { kind: 'pglite', dir: '/etc/palisade/hist' },
    ],
    [
      'storage.postgres.url',
      { storage: storage({ postgres: { url: 'postgres://u:p@db/h' } }), base: '/', stateDir: '/var/p' },
      { kind: 'postgres', url: 'postgres://u:p@db/h' },
    ],
    [
      'the environment wins over the file',
      { storage: storage({ postgres: { url: 'postgres://file/h' } }), envUrl: 'postgres://env/h', base: '/' },
      { kind: 'postgres', url: 'postgres://env/h' },
    ],
    [
      'an empty environment variable is no URL',
      { storage: storage(), envUrl: ' ', base: '/' },
      { kind: 'temporary' },
    ],
  ])('%s', (_, inputs, want) => {
    expect(historyLocationOf(inputs)).toEqual(want);
  });

  it.each([
    [{ retention: '2w' }, 'storage.retention: must be a duration like 14d, 36h or 90m'],
    [{ retention: '30m' }, 'storage.retention: must be at least 1h'],
    [{ postgres: { url: 'mysql://h/db' } }, 'storage.postgres.url: must be a URL like postgres://'],
    [{ postgress: {} }, 'storage'],
  ])('refuses %j naming the field', (s, message) => {
    const r = configSchema.safeParse({ storage: s });
    const i = r.error!.issues[0];
    expect(`${i.path.join('.')}: ${i.message}`).toContain(message);
  });

  it('keeps 14 days by default', () => {
    expect(storage().retention).toBe(14 * 86_400_000);
  });
});
