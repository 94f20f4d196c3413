import { describe, expect, it } from 'vitest';
import { handleKey, type KeyInput, type KeyState } from './keys';

function run(keys: KeyInput[]): (string | undefined)[] {
  let s: KeyState = {};
  return keys.map((k) => {
    const r = handleKey(s, k);
    s = r.state;
    return r.action;
  });
}

describe('handleKey', () => {
  const cases: { name: string; keys: KeyInput[]; want: (string | undefined)[] }[] = [
    { name: 'slash focuses search', keys: [{ key: '/', at: 0 }], want: ['focus-search'] },
    { name: 'question mark toggles help', keys: [{ key: '?', at: 0 }], want: ['toggle-help'] },
    {
      name: 'g m goes to the map',
      keys: [
        { key: 'g', at: 0 },
        { key: 'm', at: 300 },
      ],
      want: [undefined, 'go-map'],
    },
    {
      name: 'g n',
      keys: [
        { key: 'g', at: 0 },
        { key: 'n', at: 10 },
      ],
      want: [undefined, 'go-nodes'],
    },
    {
      name: 'g p',
      keys: [
        { key: 'g', at: 0 },
        { key: 'p', at: 10 },
      ],
      want: [undefined, 'go-pods'],
    },
    {
      name: 'g v',
      keys: [
        { key: 'g', at: 0 },
        { key: 'v', at: 10 },
      ],
      want: [undefined, 'go-volumes'],
    },
    {
      name: 'g i: the incident view (issue 25)',
      keys: [
        { key: 'g', at: 0 },
        { key: 'i', at: 10 },
      ],
      want: [undefined, 'go-incident'],
    },
    {
      name: 'g d: the instance IDs',
      keys: [
        { key: 'g', at: 0 },
        { key: 'd', at: 10 },
      ],
      want: [undefined, 'go-instance-ids'],
    },
    {
      name: 'g l',
      keys: [
        { key: 'g', at: 0 },
        { key: 'l', at: 10 },
      ],
      want: [undefined, 'go-leadership'],
    },
    {
      name: 'g c',
      keys: [
        { key: 'g', at: 0 },
        { key: 'c', at: 10 },
      ],
      want: [undefined, 'go-incident'],
    },
    {
      name: 'g t',
      keys: [
        { key: 'g', at: 0 },
        { key: 't', at: 10 },
      ],
      want: [undefined, 'go-timeline'],
    },
    {
      name: 'sequence times out',
      keys: [
        { key: 'g', at: 0 },
        { key: 'm', at: 5000 },
      ],
      want: [undefined, undefined],
    },
    {
      name: 'other key breaks the sequence',
      keys: [
        { key: 'g', at: 0 },
        { key: 'x', at: 1 },
        { key: 'm', at: 2 },
      ],
      want: [undefined, undefined, undefined],
    },
    {
      name: 'typing in an input never fires',
      keys: [
        { key: '/', at: 0, editable: true },
        { key: 'g', at: 1, editable: true },
        { key: 'n', at: 2, editable: true },
      ],
      want: [undefined, undefined, undefined],
    },
    {
      name: 'modifiers never fire',
      keys: [
        { key: '/', at: 0, ctrl: true },
        { key: 'g', at: 1, meta: true },
      ],
      want: [undefined, undefined],
    },
    {
      name: 'escape closes even in an input',
      keys: [{ key: 'Escape', at: 0, editable: true }],
      want: ['close'],
    },
  ];
  for (const c of cases) it(c.name, () => expect(run(c.keys)).toEqual(c.want));
});
