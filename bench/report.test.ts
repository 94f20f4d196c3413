import { describe, expect, it } from 'vitest';
import { bullets, fmt, markdownTable, passes, resultsHeader, type Row, section } from './report.js';

const row = (value: number, target?: Row['target']): Row => ({
  section: 's',
  metric: 'm',
  value,
  unit: 'ms',
  target,
});

describe('bench report', () => {
  it.each([
    [row(5), undefined],
    [row(5, { op: '<=', value: 5 }), true],
    [row(6, { op: '<=', value: 5 }), false],
    [row(4, { op: '>=', value: 5 }), false],
    [row(Number.NaN, { op: '>=', value: 5 }), false],
  ])('judges %o against its target as %s', (r, want) => {
    expect(passes(r)).toBe(want);
  });

  it.each([
    [1234, '1,234'],
    [123.4, '123'],
    [12.34, '12.3'],
    [1.234, '1.23'],
    [Number.POSITIVE_INFINITY, 'n/a'],
  ])('formats %s as %s', (v, want) => {
    expect(fmt(v)).toBe(want);
  });

  it('writes sections, "none" for an empty list, and escapes pipes in tables', () => {
    expect(section('Setup', bullets(['a', 'b']))).toEqual(['## Setup', '', '- a', '- b', '']);
    expect(bullets([])).toEqual(['- none']);
    const md = markdownTable([{ ...row(2, { op: '<=', value: 3 }), note: 'a|b' }]);
    expect(md.split('\n')[2]).toBe('| s | m | 2 ms | <= 3 ms | PASS | a\\|b |');
  });

  it('heads every results file with the machine, the code, the command and the targets met', () => {
    const head = resultsHeader({
      title: 'T',
      machine: { date: 'D', revision: 'r', cpu: 'C', cores: 2, memory: '24 GiB', node: 'v20', os: 'L' },
      revision: 'abc123',
      command: 'npm run bench',
      durationS: 61.6,
      met: 2,
      targeted: 3,
      warning: 'shared',
    }).join('\n');
    expect(head).toContain('# T');
    expect(head).toContain('- Machine: C, 2 cores, 24 GiB RAM, L');
    expect(head).toContain('- Code: git abc123');
    expect(head).toContain('- Wall time: 62 s');
    expect(head).toContain('- Targets met: 2 of 3');
    expect(head).toContain('- shared');
  });
});
