// A small JSONPath evaluator for CRD printer columns. It covers what CRDs use in practice:
// .a.b, ['a.b'], [0], [-1], [*], .* and filters like [?(@.type=="Ready")]. Like client-go
// with AllowMissingKeys, a path that leads nowhere yields no results rather than an error.

type Segment =
  | { kind: 'field'; name: string }
  | { kind: 'index'; index: number }
  | { kind: 'all' }
  | { kind: 'filter'; path: Segment[]; op?: string; value?: unknown };

const parsed = new Map<string, Segment[] | null>();

/** Every value the path selects, in document order; [] when the path is malformed. */
export function evaluate(path: string, root: unknown): unknown[] {
  let segs = parsed.get(path);
  if (segs === undefined) {
    segs = tryParse(path);
    parsed.set(path, segs);
  }
  if (!segs) return [];
  return walk(segs, [root]);
}

function walk(segs: Segment[], values: unknown[]): unknown[] {
  let cur = values;
  for (const seg of segs) cur = cur.flatMap((v) => step(seg, v));
  return cur;
}

function step(seg: Segment, v: unknown): unknown[] {
  if (seg.kind === 'field') {
    const isObj = v !== null && typeof v === 'object' && !Array.isArray(v);
    return isObj && Object.hasOwn(v, seg.name) ? [(v as Record<string, unknown>)[seg.name]] : [];
  }
  if (seg.kind === 'all') {
    if (Array.isArray(v)) return v;
    return v !== null && typeof v === 'object' ? Object.values(v) : [];
  }
  if (!Array.isArray(v)) return [];
  if (seg.kind === 'index') {
    const i = seg.index < 0 ? v.length + seg.index : seg.index;
    return i >= 0 && i < v.length ? [v[i]] : [];
  }
  return v.filter((item) => matches(seg, item));
}

function matches(seg: Extract<Segment, { kind: 'filter' }>, item: unknown): boolean {
  const found = walk(seg.path, [item]);
  if (seg.op === undefined) return found.length > 0;
  return found.some((x) => compare(x, seg.op as string, seg.value));
}

function compare(a: unknown, op: string, b: unknown): boolean {
  if (op === '==') return a === b;
  if (op === '!=') return a !== b;
  if (typeof a !== 'number' || typeof b !== 'number') return false;
  if (op === '<') return a < b;
  if (op === '>') return a > b;
  if (op === '<=') return a <= b;
  return op === '>=' && a >= b;
}

function tryParse(path: string): Segment[] | null {
  try {
    return parsePath(stripWrapper(path.trim()));
  } catch {
    return null;
  }
}

// CRDs write ".spec.x"; client-go also accepts "{.spec.x}" and a leading "$".
function stripWrapper(p: string): string {
  let s = p.startsWith('{') && p.endsWith('}') ? p.slice(1, -1).trim() : p;
  if (s.startsWith('$')) s = s.slice(1);
  return s;
}

function parsePath(s: string): Segment[] {
  const segs: Segment[] = [];
  let i = 0;
  while (i < s.length) {
    if (s[i] === '.') {
      i++;
      if (s[i] === '*') {
        segs.push({ kind: 'all' });
        i++;
        continue;
      }
      const end = nextDelimiter(s, i);
      if (end === i) throw new Error('empty field');
      segs.push({ kind: 'field', name: s.slice(i, end) });
      i = end;
    } else if (s[i] === '[') {
      const end = closingBracket(s, i);
      segs.push(parseBracket(s.slice(i + 1, end).trim()));
      i = end + 1;
    } else {
      throw new Error(`unexpected ${s[i]}`);
    }
  }
  return segs;
}

function nextDelimiter(s: string, from: number): number {
  let i = from;
  while (i < s.length && s[i] !== '.' && s[i] !== '[') i++;
  return i;
}

// Finds the matching ']' while skipping quoted text and nested brackets inside filters.
function closingBracket(s: string, open: number): number {
  let depth = 0;
  let quote = '';
  for (let i = open; i < s.length; i++) {
    const c = s[i];
    if (quote) {
      if (c === quote) quote = '';
    } else if (c === '"' || c === "'") quote = c;
    else if (c === '[') depth++;
    else if (c === ']' && --depth === 0) return i;
  }
  throw new Error('unclosed [');
}

function parseBracket(inner: string): Segment {
  if (inner === '*') return { kind: 'all' };
  if (/^-?\d+$/.test(inner)) return { kind: 'index', index: Number(inner) };
  const quoted = unquote(inner);
  if (quoted !== undefined) return { kind: 'field', name: quoted };
  const filter = /^\?\((.*)\)$/s.exec(inner);
  if (filter) return parseFilter(filter[1].trim());
  throw new Error(`unsupported [${inner}]`);
}

function parseFilter(expr: string): Segment {
  const m = /^@((?:\.[^.=!<>\s[]+|\[[^\]]*\])*)\s*(?:(==|!=|<=|>=|<|>)\s*(.+))?$/s.exec(expr);
  if (!m) throw new Error(`unsupported filter ${expr}`);
  const path = parsePath(m[1]);
  if (!m[2]) return { kind: 'filter', path };
  return { kind: 'filter', path, op: m[2], value: literal(m[3].trim()) };
}

function literal(text: string): unknown {
  const quoted = unquote(text);
  if (quoted !== undefined) return quoted;
  if (text === 'true' || text === 'false') return text === 'true';
  if (text === 'nil' || text === 'null') return null;
  const n = Number(text);
  if (text !== '' && !Number.isNaN(n)) return n;
  throw new Error(`bad literal ${text}`);
}

function unquote(s: string): string | undefined {
  const q = s[0];
  if (s.length >= 2 && (q === '"' || q === "'") && s.endsWith(q)) return s.slice(1, -1);
  return undefined;
}
