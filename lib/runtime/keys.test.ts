// Key codecs: each key round-trips, a text the codec never made decodes to undefined.
import { describe, expect, it } from 'vitest';
import { fieldsKey, nameKey, objectKey, orSpecial, singletonKey } from './keys.js';

const workloadKey = fieldsKey('kind', 'namespace', 'name');

describe('key codecs', () => {
  it.each([
    ['a name', nameKey, 'node-a', 'node-a'],
    ['an object', objectKey, { namespace: 'shop', name: 'web' }, 'shop/web'],
    [
      'a workload, kind first',
      workloadKey,
      { kind: 'Deployment', namespace: 'shop', name: 'web' },
      'Deployment/shop/web',
    ],
    ['a singleton', singletonKey('certificates'), 'certificates', 'certificates'],
    ['the special key', orSpecial('*', objectKey), '*', '*'],
    ['the other codec', orSpecial('*', objectKey), { namespace: 'a', name: 'b' }, 'a/b'],
  ] as const)('%s round-trips', (_, codec, key, text) => {
    expect((codec as any).encode(key)).toBe(text);
    expect((codec as any).decode(text)).toEqual(key);
  });

  it.each([
    ['an empty name', nameKey, ''],
    ['too few fields', workloadKey, 'shop/web'],
    ['an empty field', workloadKey, 'Deployment//web'],
    ['another singleton', singletonKey('certificates'), 'trigger'],
    ['neither', orSpecial('*', objectKey), 'lonely'],
  ] as const)('%s is not a key', (_, codec, text) => {
    expect((codec as any).decode(text)).toBeUndefined();
  });

  it('the last field keeps its slashes', () => {
    const k = fieldsKey('cluster', 'rest');
    expect(k.decode('core/a/b')).toEqual({ cluster: 'core', rest: 'a/b' });
  });
});
