// cel-go's wording for CEL errors, from @marcbachmann/cel-js's error objects. Checker
// errors become cel-go's issue text ("ERROR: <input>:1:5: undeclared reference to 'x' (in
// container '')" with the source line and a caret under the column cel-go reports: the
// operator for a binary call, the '.' of a selection, the '(' of a call); run-time errors
// become cel-go's messages ("no such key: x"). Parse errors keep cel-go's frame but not
// ANTLR's wording of what was expected (sim/diff/KNOWN_DIFFERENCES.md).

interface AstNode {
  op?: string;
  args?: unknown;
  pos?: number;
  start?: number;
  end?: number;
}

interface LibraryError {
  name?: string;
  code?: string;
  summary?: string;
  message?: string;
  node?: AstNode;
  range?: { start: number; end: number };
}

/** cel-go's names of the operator functions, by the library's operator */
const OPERATORS: Record<string, string> = {
  '==': '_==_',
  '!=': '_!=_',
  '<': '_<_',
  '<=': '_<=_',
  '>': '_>_',
  '>=': '_>=_',
  '+': '_+_',
  '-': '_-_',
  '*': '_*_',
  '/': '_/_',
  '%': '_%_',
  in: '@in',
  '&&': '_&&_',
  '||': '_||_',
  '!_': '!_',
  '-_': '-_',
};

/** a type as cel-go prints it: list(int), map(string, dyn), optional_type(dyn), null_type */
export function celGoType(t: string | undefined): string {
  if (!t) return 'dyn';
  return t
    .replace(/\boptional</g, 'optional_type<')
    .replace(/\bnull\b/g, 'null_type')
    .replace(/</g, '(')
    .replace(/>/g, ')')
    .replace(/\bdyn\(([^()]*)\)/g, '$1');
}

function skipSpaceBack(src: string, i: number): number {
  let j = i;
  while (j > 0 && /\s/.test(src[j - 1])) j--;
  return j;
}

/** the offset (UTF-16) cel-go's expression id points at for this node */
function goOffset(src: string, node: AstNode | undefined, fallback: number): number {
  if (!node) return fallback;
  const args = Array.isArray(node.args) ? (node.args as AstNode[]) : [];
  const start = node.pos ?? node.start ?? fallback;
  switch (node.op) {
    case '.':
    case '.?': {
      // pos is the field name's; cel-go points at the '.' before it
      const dot = src.lastIndexOf('.', skipSpaceBack(src, start) - 1);
      return dot >= 0 ? dot : start;
    }
    case 'rcall': {
      const receiver = args[1];
      const from = receiver?.end ?? start;
      const open = src.indexOf('(', from);
      return open >= 0 ? open : start;
    }
    case 'call': {
      const open = src.indexOf('(', start);
      return open >= 0 ? open : start;
    }
    case '!_':
    case '-_':
    case 'id':
    case 'value':
      return start;
    default: {
      // a binary operator: its token lies between the operands
      const [l, r] = args;
      if (l?.end === undefined || r?.start === undefined) return start;
      const between = src.slice(l.end, r.start);
      const at = between.search(/\S/);
      return at >= 0 ? l.end + at : start;
    }
  }
}

/** common.Error.ToDisplayString: position in runes, 1-based column, snippet and caret */
function display(src: string, offset: number, message: string): string {
  const before = [...src.slice(0, offset)];
  let line = 1;
  let lineStart = 0;
  before.forEach((ch, i) => {
    if (ch === '\n') {
      line++;
      lineStart = i + 1;
    }
  });
  const column = before.length - lineStart;
  const lineText = src.split('\n')[line - 1] ?? '';
  const snippet = lineText.replace(/\t/g, ' ');
  const wide = (ch: string) => Buffer.byteLength(ch) > 1;
  const chars = [...snippet];
  let caret = '';
  for (let i = 0; i < column && i < chars.length; i++) caret += wide(chars[i]) ? '\uff0e' : '.';
  caret += chars[column] !== undefined && wide(chars[column]) ? '\uff3e' : '^';
  return `ERROR: <input>:${line}:${column + 1}: ${message}\n | ${snippet}\n | ${caret}`;
}

function splitCall(sig: string): { receiver?: string; name: string; args: string } | undefined {
  const open = sig.indexOf('(');
  if (open < 0 || !sig.endsWith(')')) return undefined;
  const head = sig.slice(0, open);
  const args = sig.slice(open + 1, -1);
  const dot = head.lastIndexOf('.');
  return dot < 0 ? { name: head, args } : { receiver: head.slice(0, dot), name: head.slice(dot + 1), args };
}

function typeList(args: string): string {
  if (!args) return '';
  // split on the commas between arguments, not those inside map<k, v>
  const out: string[] = [];
  let depth = 0;
  let cur = '';
  for (const ch of args) {
    if (ch === '<') depth++;
    if (ch === '>') depth--;
    if (ch === ',' && depth === 0) {
      out.push(cur.trim());
      cur = '';
    } else cur += ch;
  }
  out.push(cur.trim());
  return out.map(celGoType).join(', ');
}

function checkMessage(e: LibraryError, functions: Set<string>, name: string | undefined): string {
  const summary = e.summary ?? e.message ?? String(e);
  const unknownVar = /^Unknown variable: (.*)$/.exec(summary);
  if (unknownVar) return `undeclared reference to '${unknownVar[1]}' (in container '')`;
  const noKey = /^No such key: (.*)$/.exec(summary);
  if (noKey && e.code === 'no_such_key') return `undefined field '${noKey[1]}'`;
  // cel-go's ValidateHomogeneousAggregateLiterals
  const mixed = /must have the same type, (expected type '.*' but found '.*')$/.exec(summary);
  if (mixed) return mixed[1].replace(/'([^']*)'/g, (_m, t: string) => `'${celGoType(t)}'`);
  const noMatch = /^found no matching overload for '(.*)'$/.exec(summary);
  const call = noMatch && splitCall(noMatch[1]);
  if (call) {
    if (!functions.has(call.name)) return `undeclared reference to '${call.name}' (in container '')`;
    const args = `(${typeList(call.args)})`;
    return `found no matching overload for '${call.name}' applied to '${call.receiver ? `${celGoType(call.receiver)}.${args}` : args}'`;
  }
  const noOverload = /^no such overload: (.*)$/.exec(summary);
  if (noOverload && name && OPERATORS[name]) {
    const fn = OPERATORS[name];
    const text = noOverload[1];
    if (name === '!_' || name === '-_')
      return `found no matching overload for '${fn}' applied to '(${celGoType(text.slice(1))})'`;
    const sep = ` ${name} `;
    const at = text.indexOf(sep);
    if (at >= 0)
      return `found no matching overload for '${fn}' applied to '(${celGoType(text.slice(0, at))}, ${celGoType(text.slice(at + sep.length))})'`;
  }
  return summary;
}

const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;
const GO_DURATION = /^[-+]?((\d+(\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h))+$|^[-+]?0$/;

/** cel-go's ASTValidators for literals: the pattern, timestamp or duration a call is given */
const LITERAL_CHECKS: Record<string, { valid: (v: string) => boolean; message: string }> = {
  matches: {
    valid: (v) => {
      try {
        new RegExp(v);
        return true;
      } catch {
        return false;
      }
    },
    message: 'invalid matches argument',
  },
  timestamp: {
    valid: (v) => RFC3339.test(v) && !Number.isNaN(Date.parse(v)),
    message: 'invalid timestamp argument',
  },
  duration: { valid: (v) => GO_DURATION.test(v), message: 'invalid duration argument' },
};

function firstBadLiteral(node: unknown): { offset: number; message: string } | undefined {
  if (!node || typeof node !== 'object') return undefined;
  if (Array.isArray(node)) {
    for (const n of node) {
      const bad = firstBadLiteral(n);
      if (bad) return bad;
    }
    return undefined;
  }
  const n = node as AstNode;
  if (n.op === 'call' || n.op === 'rcall') {
    const args = n.args as unknown[];
    const name = args[0] as string;
    const callArgs = (n.op === 'call' ? args[1] : args[2]) as AstNode[];
    // matches(s, pattern) and s.matches(pattern): the pattern is the last argument
    const literal = callArgs?.[callArgs.length - 1];
    const check = LITERAL_CHECKS[name];
    if (check && literal?.op === 'value' && typeof literal.args === 'string' && !check.valid(literal.args))
      return { offset: literal.pos ?? 0, message: check.message };
  }
  return Array.isArray(n.args) ? firstBadLiteral(n.args) : undefined;
}

/** The first literal cel-go's validators refuse, rendered as its issue; undefined if none. */
export function celGoLiteralError(src: string, ast: unknown): string | undefined {
  const bad = firstBadLiteral(ast);
  return bad && display(src, bad.offset, bad.message);
}

/** One checker or parser error as cel-go's Issues.String() renders it. */
export function celGoCheckError(src: string, err: unknown, functions: Set<string>): string {
  const e = (err ?? {}) as LibraryError;
  const fallback = e.range?.start ?? 0;
  if (e.name === 'ParseError') {
    const summary = e.summary ?? e.message ?? String(err);
    return display(src, fallback, `Syntax error: ${summary}`);
  }
  const offset = goOffset(src, e.node, fallback);
  return display(src, offset, checkMessage(e, functions, e.node?.op));
}

/** Go's regexp/syntax error for a pattern JavaScript refuses, for the common mistakes */
function goRegexpError(pattern: string): string {
  let why = '';
  try {
    new RegExp(pattern);
  } catch (e) {
    why = (e as Error).message;
  }
  if (/Unterminated group/.test(why)) return `error parsing regexp: missing closing ): \`${pattern}\``;
  if (/Unterminated character class/.test(why))
    return `error parsing regexp: missing closing ]: \`${pattern.slice(pattern.lastIndexOf('['))}\``;
  if (/Unmatched '\)'/.test(why)) return `error parsing regexp: unexpected ): \`${pattern}\``;
  return `error parsing regexp: ${why || 'invalid'}: \`${pattern}\``;
}

/** run-time messages of the library, and cel-go's for the same failure */
const RUNTIME: [RegExp, (m: RegExpExecArray) => string][] = [
  [/^No such key: index out of bounds, index (-?\d+) /, (m) => `index out of bounds: ${m[1]}`],
  [/^No such key: (.*)$/, (m) => `no such key: ${m[1]}`],
  [
    /^(?:int|uint|double)\(\) type error: cannot convert to (\w+)$/,
    (m) => `type conversion error from 'string' to '${m[1]}'`,
  ],
  [
    /^timestamp\(\) requires a string/,
    () => "type conversion error from 'string' to 'google.protobuf.Timestamp'",
  ],
  [/^Invalid regular expression: ([\s\S]*)$/, (m) => goRegexpError(m[1])],
];

/** A run-time error's message as cel-go's interpreter words it. */
export function celGoRuntimeError(err: unknown): string {
  const e = (err ?? {}) as LibraryError;
  const summary = e.summary ?? e.message ?? String(err);
  for (const [re, say] of RUNTIME) {
    const m = re.exec(summary);
    if (m) return say(m);
  }
  return summary;
}
