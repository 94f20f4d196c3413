import { describe, expect, it } from 'vitest';
import { markAt, markGrid, markPosition } from './marks';

describe('markGrid', () => {
  it.each([
    [0, 96, { cols: 14, rows: 1, height: 5 }],
    [14, 96, { cols: 14, rows: 1, height: 5 }],
    [15, 96, { cols: 14, rows: 2, height: 12 }],
    [110, 96, { cols: 14, rows: 8, height: 54 }],
    [3, 2, { cols: 1, rows: 3, height: 19 }],
  ])('%i pods in %ipx', (count, width, want) => expect(markGrid(count, width)).toMatchObject(want));
});

describe('markPosition / markAt', () => {
  const g = markGrid(20, 96);
  it.each([
    [0, { x: 0, y: 0 }],
    [13, { x: 91, y: 0 }],
    [14, { x: 0, y: 7 }],
  ])('mark %i', (i, pos) => {
    expect(markPosition(g, i)).toEqual(pos);
    expect(markAt(g, pos.x + 1, pos.y + 1, 20)).toBe(i);
  });
  it('is -1 outside', () => expect(markAt(g, 50, 50, 20)).toBe(-1));
});
