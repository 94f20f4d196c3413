// The configuration reference in docs/configuration.md, generated from palisade.yaml's zod schema
// (server/config/schema.ts): one table per section with each key's path, type, default and
// description. Types and defaults come from the schema at run time; descriptions from the
// `/** … */` comments above each key in schema.ts (read with the TypeScript parser), or from a
// `.describe()` / `.meta({ description })` on the key when it has one.
//
//   npm run docs:config            rewrite the reference between the markers
//   npm run docs:config -- --check exit 1 (and say so) when the committed reference is stale
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { type ZodType, z } from 'zod';
import { configSchema } from '../server/config/schema.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
export const SCHEMA_FILE = join(ROOT, 'server/config/schema.ts');
export const DOC_FILE = join(ROOT, 'docs/configuration.md');
export const BEGIN = '<!-- BEGIN GENERATED: config reference (npm run docs:config) -->';
export const END = '<!-- END GENERATED: config reference -->';

/** key path ("protection.webhook.port", "clusters[].mode") -> the comment above that key */
export function commentsOf(source: string, rootConst = 'configSchema'): Map<string, string> {
  const file = ts.createSourceFile('schema.ts', source, ts.ScriptTarget.Latest, true);
  const consts = new Map<string, { init: ts.Expression; doc?: string }>();
  for (const st of file.statements) {
    if (!ts.isVariableStatement(st)) continue;
    for (const d of st.declarationList.declarations)
      if (ts.isIdentifier(d.name) && d.initializer)
        consts.set(d.name.text, { init: d.initializer, doc: docComment(source, st) });
  }
  const out = new Map<string, string>();
  // walks one schema expression; for an object schema defined as a const of its own, returns that
  // const's comment (a section's description); a leaf const's comment (a shared duration or DNS
  // name type) describes the type, not the key, and is not returned
  type Walked = { object: boolean; doc?: string };
  const walk = (expr: ts.Expression, path: string, seen: Set<string>): Walked => {
    const leaf = { object: false };
    if (ts.isIdentifier(expr)) {
      const c = consts.get(expr.text);
      if (!c || seen.has(expr.text)) return leaf;
      const inner = walk(c.init, path, new Set([...seen, expr.text]));
      return inner.object ? { object: true, doc: c.doc ?? inner.doc } : leaf;
    }
    if (ts.isParenthesizedExpression(expr) || ts.isAsExpression(expr) || ts.isSatisfiesExpression(expr))
      return walk(expr.expression, path, seen);
    if (!ts.isCallExpression(expr) || !ts.isPropertyAccessExpression(expr.expression)) return leaf;
    const callee = expr.expression;
    const fromZ = ts.isIdentifier(callee.expression) && callee.expression.text === 'z';
    const method = callee.name.text;
    if (fromZ && ['object', 'strictObject', 'looseObject'].includes(method)) {
      const shape = expr.arguments[0];
      if (!shape || !ts.isObjectLiteralExpression(shape)) return { object: true };
      for (const p of shape.properties) {
        if (!ts.isPropertyAssignment(p)) continue;
        const key = ts.isIdentifier(p.name) || ts.isStringLiteral(p.name) ? p.name.text : undefined;
        if (!key) continue;
        const keyPath = path ? `${path}.${key}` : key;
        const inner = walk(p.initializer, keyPath, seen);
        const doc = docComment(source, p) ?? inner.doc;
        if (doc) out.set(keyPath, doc);
      }
      return { object: true };
    }
    if (fromZ && method === 'array') {
      const el = expr.arguments[0];
      return el ? walk(el, `${path}[]`, seen) : leaf;
    }
    // a method on a schema (.default, .optional, .superRefine, .min …): the schema is its receiver
    return walk(callee.expression, path, seen);
  };
  const root = consts.get(rootConst);
  if (root) walk(root.init, '', new Set([rootConst]));
  return out;
}

function docComment(source: string, node: ts.Node): string | undefined {
  // a comment on the line above, or on the same line right before the key (`{ /** … */ k: … }`)
  const ranges = [
    ...(ts.getTrailingCommentRanges(source, node.getFullStart()) ?? []),
    ...(ts.getLeadingCommentRanges(source, node.getFullStart()) ?? []),
  ];
  const jsdoc = ranges.filter((r) => source.startsWith('/**', r.pos)).at(-1);
  if (!jsdoc) return undefined;
  return source
    .slice(jsdoc.pos + 3, jsdoc.end - 2)
    .split('\n')
    .map((l) => l.replace(/^\s*\*?\s?/, '').trim())
    .filter(Boolean)
    .join(' ');
}

export type Row = { path: string; type: string; default: string; description: string };

const DURATION_PATTERN = String.raw`^(\d+(?:\.\d+)?)(ms|s|m|h)$`;

function def(s: ZodType): any {
  return (s as any)._zod.def;
}

/** The rows of the reference: every key of the schema, depth first, in the schema's order. */
export function rowsOf(schema: ZodType, comments: Map<string, string>): Row[] {
  const rows: Row[] = [];
  const visit = (s: ZodType, path: string, required: boolean) => {
    let cur = s;
    let dflt: { value: unknown } | undefined;
    let optional = false;
    let description: string | undefined;
    for (;;) {
      description ??= z.globalRegistry.get(cur)?.description;
      const d = def(cur);
      if (d.type === 'default' || d.type === 'prefault') {
        dflt ??= { value: d.defaultValue };
        cur = d.innerType;
      } else if (d.type === 'optional' || d.type === 'nullable' || d.type === 'readonly') {
        optional = true;
        cur = d.innerType;
      } else break;
    }
    const d = def(cur);
    const isDuration = isDurationSchema(cur);
    const isObject = d.type === 'object';
    const element = d.type === 'array' ? def(d.element) : undefined;
    const arrayOfObjects = element?.type === 'object';
    if (path)
      rows.push({
        path,
        type: isDuration
          ? 'duration'
          : isObject
            ? 'object'
            : arrayOfObjects
              ? 'list of objects'
              : typeOf(cur),
        default: dflt
          ? isObject || arrayOfObjects
            ? dflt.value && Array.isArray(dflt.value) && dflt.value.length === 0
              ? '`[]`'
              : ''
            : formatDefault(dflt.value, isDuration)
          : required && !optional
            ? 'required'
            : '',
        description: description ?? comments.get(path) ?? '',
      });
    const childrenRequired = !path || (required && !optional && !dflt) || (!optional && !!dflt) || isObject;
    if (isObject)
      for (const [k, v] of Object.entries(d.shape as Record<string, ZodType>))
        visit(v, path ? `${path}.${k}` : k, childrenRequired);
    if (arrayOfObjects)
      for (const [k, v] of Object.entries(element.shape as Record<string, ZodType>))
        visit(v, `${path}[].${k}`, true);
  };
  visit(schema, '', true);
  return rows;
}

/** lib/duration's schema ("15s" read as milliseconds), alone or beside plain milliseconds in a union */
function isDurationSchema(s: ZodType): boolean {
  const d = def(s);
  if (d.type === 'pipe') return jsonOf(d.in).pattern === DURATION_PATTERN;
  if (d.type === 'union') return (d.options as ZodType[]).some(isDurationSchema);
  return false;
}

function jsonOf(s: ZodType): Record<string, any> {
  return z.toJSONSchema(s, { io: 'input', unrepresentable: 'any' }) as Record<string, any>;
}

function typeOf(s: ZodType): string {
  const j = jsonOf(s);
  const one = (j: Record<string, any>): string => {
    if (j.enum) return j.enum.map((v: unknown) => `\`${String(v)}\``).join(' | ');
    if (j.type === 'array') return `list of ${j.items ? one(j.items) : 'any'}`;
    if (j.type === 'string' && j.format === 'uri') return 'URL';
    if (j.type === 'integer' || j.type === 'number') {
      const lo = j.minimum > Number.MIN_SAFE_INTEGER ? j.minimum : undefined;
      const hi = j.maximum < Number.MAX_SAFE_INTEGER ? j.maximum : undefined;
      const range =
        lo !== undefined && hi !== undefined ? ` ${lo}–${hi}` : lo !== undefined ? ` ≥ ${lo}` : '';
      return `${j.type}${range}`;
    }
    if (j.anyOf) return j.anyOf.map(one).join(' | ');
    return j.type ?? 'any';
  };
  return one(j);
}

function formatDuration(ms: number): string {
  for (const [unit, n] of [
    ['h', 3_600_000],
    ['m', 60_000],
    ['s', 1000],
  ] as const)
    if (ms >= n && ms % n === 0) return `${ms / n}${unit}`;
  return `${ms}ms`;
}

function formatDefault(v: unknown, duration: boolean): string {
  if (duration && typeof v === 'number') return `\`${formatDuration(v)}\``;
  if (typeof v === 'string') return v === '' ? '`""`' : `\`${v}\``;
  return `\`${JSON.stringify(v)}\``;
}

const SECTIONS: { key: string; title: string }[] = [
  { key: '', title: 'Top level' },
  { key: 'protection', title: '`protection`: deletion protection' },
  { key: 'server', title: '`server`: the console’s address and sessions' },
  { key: 'auth', title: '`auth`: sign-in' },
  { key: 'controllers', title: '`controllers`: the controller loops and leader election' },
  { key: 'storage', title: '`storage`: the incident history ([history.md](history.md))' },
  { key: 'fencing', title: '`fencing`: fence agents ([fencing.md](fencing.md))' },
];

/** Table-cell text: pipes escaped, and <host> or *.domain shown as written rather than as HTML or emphasis. */
function cell(s: string): string {
  const plain = (t: string) =>
    t.replace(/\|/g, '\\|').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/\*/g, '\\*');
  // code spans keep their text as is (only the pipe needs escaping inside a table)
  return s
    .replace(/\n/g, ' ')
    .split(/(`[^`]*`)/)
    .map((part, i) => (i % 2 ? part.replace(/\|/g, '\\|') : plain(part)))
    .join('');
}

/** The generated block, markers included. */
export function renderReference(schemaSource = readFileSync(SCHEMA_FILE, 'utf8')): string {
  const rows = rowsOf(configSchema, commentsOf(schemaSource));
  const known = new Set(SECTIONS.map((s) => s.key).filter(Boolean));
  const sectionOf = (p: string) => {
    const top = p.split(/[.[]/)[0];
    return known.has(top) ? top : '';
  };
  const parts = [
    BEGIN,
    '',
    '<!-- Do not edit by hand: generated from server/config/schema.ts by scripts/config-reference.ts. -->',
    '',
  ];
  for (const sec of SECTIONS) {
    const mine = rows.filter((r) => sectionOf(r.path) === sec.key && r.path !== sec.key);
    if (!mine.length) continue;
    const head = rows.find((r) => r.path === sec.key);
    parts.push(`### ${sec.title}`, '');
    if (head?.description) parts.push(`${head.description}`, '');
    parts.push('| key | type | default | description |', '| --- | --- | --- | --- |');
    for (const r of mine)
      parts.push(`| \`${r.path}\` | ${cell(r.type)} | ${cell(r.default)} | ${cell(r.description)} |`);
    parts.push('');
  }
  parts.push(END);
  return parts.join('\n');
}

/** The document with its generated block replaced (throws when the markers are missing). */
export function withReference(doc: string, block: string): string {
  const b = doc.indexOf(BEGIN);
  const e = doc.indexOf(END);
  if (b < 0 || e < b) throw new Error(`${DOC_FILE}: the markers ${BEGIN} … ${END} are missing`);
  return doc.slice(0, b) + block + doc.slice(e + END.length);
}

function main() {
  const doc = readFileSync(DOC_FILE, 'utf8');
  const next = withReference(doc, renderReference());
  if (process.argv.includes('--check')) {
    if (next !== doc) {
      console.error('docs/configuration.md: the configuration reference is stale; run `npm run docs:config`');
      process.exit(1);
    }
    console.log('docs/configuration.md: the configuration reference is up to date');
    return;
  }
  if (next !== doc) writeFileSync(DOC_FILE, next);
  console.log(`docs/configuration.md: ${next === doc ? 'unchanged' : 'reference rewritten'}`);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) main();
