import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { parseCommandLine, portOption } from './cli';

const schema = z.object({ port: portOption(3000), name: z.string().min(1, 'must not be empty').optional() });
const options = { port: { type: 'string' as const }, name: { type: 'string' as const } };

describe('parseCommandLine', () => {
  it.each<[string[], object]>([
    [[], { ok: true, help: false, options: { port: 3000 } }],
    [['--port', '0'], { ok: true, help: false, options: { port: 0 } }],
    [['--port', '65535', '--name', 'x'], { ok: true, help: false, options: { port: 65535, name: 'x' } }],
    [['--help'], { ok: true, help: true }],
    [['-h'], { ok: true, help: true }],
    [
      ['--port', 'eighty'],
      { ok: false, error: '--port: must be an integer between 0 and 65535, got "eighty"' },
    ],
    [
      ['--port', '70000'],
      { ok: false, error: '--port: must be an integer between 0 and 65535, got "70000"' },
    ],
    [['--port=-1'], { ok: false, error: '--port: must be an integer between 0 and 65535, got "-1"' }],
    [['--name', ''], { ok: false, error: '--name: must not be empty' }],
  ])('%j', (argv, want) => {
    expect(parseCommandLine(argv, options, schema)).toMatchObject(want);
  });

  it('names an unknown option', () => {
    const r = parseCommandLine(['--colour'], options, schema);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error).toMatch(/Unknown option '--colour'/);
  });
});
