// Kubernetes label selectors: the string form used by ?labelSelector= and the
// object form (metav1.LabelSelector) used in specs. Pure: no I/O.
//
// The grammar, the parser's quirks and the error messages follow
// k8s.io/apimachinery pkg/labels, so that clients (kubectl, client-go) see the
// same 400 messages from the embedded apiserver as from a real one. Validation
// messages use the long-standing wording of pkg/util/validation ("a qualified
// name", "must be no more than 63 characters") that most clusters still emit.

/** Thrown for unparsable or invalid selectors; `message` is suitable as an HTTP 400 message. */
export class SelectorError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SelectorError';
  }
}

export type LabelOperator =
  | 'In'
  | 'NotIn'
  | 'Exists'
  | 'DoesNotExist'
  | 'Equals'
  | 'DoubleEquals'
  | 'NotEquals'
  | 'GreaterThan'
  | 'LessThan';

export interface LabelRequirement {
  key: string;
  operator: LabelOperator;
  values: string[];
}

export type Labels = Record<string, string>;

// ---------------------------------------------------------------------------
// Go-compatible helpers

const encoder = new TextEncoder();

/** Go measures string length in UTF-8 bytes. */
function byteLength(s: string): number {
  return encoder.encode(s).length;
}

/**
 * Go's sort.Strings order (UTF-8 byte order, i.e. code point order). JS `<` compares
 * UTF-16 code units, which disagrees for astral characters.
 */
export function byteOrderCompare(a: string, b: string): number {
  const ia = a[Symbol.iterator]();
  const ib = b[Symbol.iterator]();
  for (;;) {
    const x = ia.next();
    const y = ib.next();
    if (x.done || y.done) return x.done && y.done ? 0 : x.done ? -1 : 1;
    const d = x.value.codePointAt(0)! - y.value.codePointAt(0)!;
    if (d !== 0) return d;
  }
}

const GO_NAMED_ESCAPES: Record<string, string> = {
  '\x07': '\\a',
  '\b': '\\b',
  '\f': '\\f',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
  '\v': '\\v',
  '\\': '\\\\',
  '"': '\\"',
};
const GO_PRINTABLE = /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u;

/** Approximates Go's strconv.Quote (%q), which field errors use for string values. */
export function goQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const cp = ch.codePointAt(0)!;
    if (Object.hasOwn(GO_NAMED_ESCAPES, ch)) out += GO_NAMED_ESCAPES[ch];
    else if (GO_PRINTABLE.test(ch)) out += ch;
    else if (cp < 0x80) out += `\\x${cp.toString(16).padStart(2, '0')}`;
    else if (cp < 0x10000) out += `\\u${cp.toString(16).padStart(4, '0')}`;
    else out += `\\U${cp.toString(16).padStart(8, '0')}`;
  }
  return `${out}"`;
}

/** Go's json.Marshal of a []string (nil renders as null; HTML characters are escaped). */
function goJsonStrings(values: string[] | null): string {
  if (values === null) return 'null';
  return JSON.stringify(values).replace(
    /[<>&\u2028\u2029]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

/** Renders a field.Invalid error the way field.Error.Error() does. */
function invalid(path: string, value: string | string[] | null, detail: string): string {
  const rendered = typeof value === 'string' ? goQuote(value) : goJsonStrings(value);
  return `${path}: Invalid value: ${rendered}: ${detail}`;
}

/** utilerrors.NewAggregate(...).Error(): one error as itself, several de-duplicated in brackets. */
function aggregate(errors: string[]): string {
  const unique = [...new Set(errors)];
  return unique.length === 1 ? unique[0] : `[${unique.join(', ')}]`;
}

/** Go strconv.ParseInt(s, 10, 64); null when Go would return an error. */
function parseInt64(s: string): bigint | null {
  if (!/^[+-]?[0-9]+$/.test(s)) return null;
  const n = BigInt(s);
  return n >= -(2n ** 63n) && n < 2n ** 63n ? n : null;
}

// ---------------------------------------------------------------------------
// Label key / value validation (pkg/util/validation)

const QUALIFIED_NAME_FMT = '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]';
const QUALIFIED_NAME_RE = new RegExp(`^${QUALIFIED_NAME_FMT}$`);
const QUALIFIED_NAME_MSG =
  "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const QUALIFIED_NAME_MAX = 63;

const LABEL_VALUE_FMT = `(${QUALIFIED_NAME_FMT})?`;
const LABEL_VALUE_RE = new RegExp(`^${LABEL_VALUE_FMT}$`);
const LABEL_VALUE_MSG =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const LABEL_VALUE_MAX = 63;

const DNS1123_LABEL_FMT = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const DNS1123_SUBDOMAIN_FMT = `${DNS1123_LABEL_FMT}(\\.${DNS1123_LABEL_FMT})*`;
const DNS1123_SUBDOMAIN_RE = new RegExp(`^${DNS1123_SUBDOMAIN_FMT}$`);
const DNS1123_SUBDOMAIN_MSG =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";
const DNS1123_SUBDOMAIN_MAX = 253;

function regexError(msg: string, fmt: string, ...examples: string[]): string {
  if (examples.length === 0) return `${msg} (regex used for validation is '${fmt}')`;
  // The double space in "',  or '" is faithful to the Go implementation.
  const listed = examples.map((e) => `'${e}', `).join(' or ');
  return `${msg} (e.g. ${listed}regex used for validation is '${fmt}')`;
}

function maxLenError(n: number): string {
  return `must be no more than ${n} characters`;
}

function dns1123SubdomainErrors(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > DNS1123_SUBDOMAIN_MAX) errs.push(maxLenError(DNS1123_SUBDOMAIN_MAX));
  if (!DNS1123_SUBDOMAIN_RE.test(value)) {
    errs.push(regexError(DNS1123_SUBDOMAIN_MSG, DNS1123_SUBDOMAIN_FMT, 'example.com'));
  }
  return errs;
}

/** validation.IsQualifiedName: the rules for a label key ([prefix/]name). Empty when valid. */
export function labelKeyErrors(key: string): string[] {
  const parts = key.split('/');
  if (parts.length > 2) {
    return [
      `a qualified name ${regexError(QUALIFIED_NAME_MSG, QUALIFIED_NAME_FMT, 'MyName', 'my.name', '123-abc')}` +
        " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
    ];
  }
  const errs: string[] = [];
  const name = parts.length === 2 ? parts[1] : parts[0];
  if (parts.length === 2) {
    const prefix = parts[0];
    if (prefix === '') errs.push('prefix part must be non-empty');
    else errs.push(...dns1123SubdomainErrors(prefix).map((m) => `prefix part ${m}`));
  }
  if (name === '') errs.push('name part must be non-empty');
  else if (byteLength(name) > QUALIFIED_NAME_MAX) errs.push(`name part ${maxLenError(QUALIFIED_NAME_MAX)}`);
  if (!QUALIFIED_NAME_RE.test(name)) {
    errs.push(
      `name part ${regexError(QUALIFIED_NAME_MSG, QUALIFIED_NAME_FMT, 'MyName', 'my.name', '123-abc')}`,
    );
  }
  return errs;
}

/** validation.IsValidLabelValue. Empty when valid. */
export function labelValueErrors(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > LABEL_VALUE_MAX) errs.push(maxLenError(LABEL_VALUE_MAX));
  if (!LABEL_VALUE_RE.test(value)) {
    errs.push(regexError(LABEL_VALUE_MSG, LABEL_VALUE_FMT, 'MyValue', 'my_value', '12345'));
  }
  return errs;
}

// ---------------------------------------------------------------------------
// Requirements (labels.NewRequirement, Requirement.Matches, Requirement.String)

// selection.Operator spellings, in the order Go lists them in error messages.
const OPERATOR_SPELLING: Record<LabelOperator, string> = {
  In: 'in',
  NotIn: 'notin',
  Equals: '=',
  DoubleEquals: '==',
  NotEquals: '!=',
  GreaterThan: 'gt',
  LessThan: 'lt',
  Exists: 'exists',
  DoesNotExist: '!',
};
const BINARY_OPERATORS = 'in, notin, =, ==, !=, gt, lt';

function operatorErrors(op: string, values: string[] | null): string[] {
  const vals = values ?? [];
  switch (op) {
    case 'In':
    case 'NotIn':
      return vals.length === 0
        ? [invalid('values', values, "for 'in', 'notin' operators, values set can't be empty")]
        : [];
    case 'Equals':
    case 'DoubleEquals':
    case 'NotEquals':
      return vals.length !== 1
        ? [invalid('values', values, 'exact-match compatibility requires one single value')]
        : [];
    case 'Exists':
    case 'DoesNotExist':
      return vals.length !== 0
        ? [invalid('values', values, 'values set must be empty for exists and does not exist')]
        : [];
    case 'GreaterThan':
    case 'LessThan':
      return integerOperatorErrors(values);
    default: {
      const supported = Object.values(OPERATOR_SPELLING).map(goQuote).join(', ');
      return [`operator: Unsupported value: ${goQuote(op)}: supported values: ${supported}`];
    }
  }
}

function integerOperatorErrors(values: string[] | null): string[] {
  const vals = values ?? [];
  const errs: string[] = [];
  if (vals.length !== 1)
    errs.push(invalid('values', values, "for 'Gt', 'Lt' operators, exactly one value is required"));
  vals.forEach((v, i) => {
    if (parseInt64(v) === null) {
      errs.push(invalid(`values[${i}]`, v, "for 'Gt', 'Lt' operators, the value must be an integer"));
    }
  });
  return errs;
}

/**
 * Errors labels.NewRequirement would report, in its order. `values` is null for a
 * Go nil slice, which only changes how an offending empty list is rendered.
 */
function requirementErrors(key: string, op: string, values: string[] | null): string[] {
  const errs: string[] = [];
  const keyErrs = labelKeyErrors(key);
  if (keyErrs.length > 0) errs.push(invalid('key', key, keyErrs.join('; ')));
  errs.push(...operatorErrors(op, values));
  (values ?? []).forEach((v, i) => {
    const valueErrs = labelValueErrors(v);
    if (valueErrs.length > 0) errs.push(invalid(`values[${i}][${key}]`, v, valueErrs.join('; ')));
  });
  return errs;
}

function matchesRequirement(req: LabelRequirement, labels: Labels): boolean {
  const has = Object.hasOwn(labels, req.key);
  const value = has ? labels[req.key] : '';
  switch (req.operator) {
    case 'In':
    case 'Equals':
    case 'DoubleEquals':
      return has && req.values.includes(value);
    case 'NotIn':
    case 'NotEquals':
      return !has || !req.values.includes(value);
    case 'Exists':
      return has;
    case 'DoesNotExist':
      return !has;
    case 'GreaterThan':
    case 'LessThan':
      return has && compareInteger(req, value);
    default:
      return false;
  }
}

// Non-integer label values (or a malformed requirement) never match, as in Go.
function compareInteger(req: LabelRequirement, value: string): boolean {
  const actual = parseInt64(value);
  const bound = req.values.length === 1 ? parseInt64(req.values[0]) : null;
  if (actual === null || bound === null) return false;
  return req.operator === 'GreaterThan' ? actual > bound : actual < bound;
}

/** True when every requirement matches (AND). No requirements match everything. */
export function matchesRequirements(reqs: LabelRequirement[], labels: Labels | undefined): boolean {
  const set = labels ?? {};
  return reqs.every((r) => matchesRequirement(r, set));
}

function requirementToString(req: LabelRequirement): string {
  const values = req.values.length === 1 ? req.values : [...req.values].sort(byteOrderCompare);
  const joined = values.join(',');
  switch (req.operator) {
    case 'Exists':
      return req.key;
    case 'DoesNotExist':
      return `!${req.key}`;
    case 'In':
      return `${req.key} in (${joined})`;
    case 'NotIn':
      return `${req.key} notin (${joined})`;
    case 'GreaterThan':
      return `${req.key}>${joined}`;
    case 'LessThan':
      return `${req.key}<${joined}`;
    default:
      return `${req.key}${OPERATOR_SPELLING[req.operator] ?? ''}${joined}`;
  }
}

/** The canonical string form (labels.Selector.String()): values sorted, requirements comma-joined. */
export function requirementsToString(reqs: LabelRequirement[]): string {
  return reqs.map(requirementToString).join(',');
}

function sortByKey(reqs: LabelRequirement[]): LabelRequirement[] {
  // Go sorts requirements by key for a deterministic result; a stable sort keeps
  // same-key requirements in input order.
  return [...reqs].sort((a, b) => byteOrderCompare(a.key, b.key));
}

// ---------------------------------------------------------------------------
// String form: lexer

type Token =
  | 'EndOfString'
  | 'ClosedPar'
  | 'Comma'
  | 'DoesNotExist'
  | 'DoubleEquals'
  | 'Equals'
  | 'GreaterThan'
  | 'Identifier'
  | 'In'
  | 'LessThan'
  | 'NotEquals'
  | 'NotIn'
  | 'OpenPar';

interface Item {
  tok: Token;
  lit: string;
}

// Maps, not object literals, so identifiers like "constructor" are not mistaken for tokens.
const SYMBOLS = new Map<string, Token>([
  [')', 'ClosedPar'],
  [',', 'Comma'],
  ['!', 'DoesNotExist'],
  ['==', 'DoubleEquals'],
  ['=', 'Equals'],
  ['>', 'GreaterThan'],
  ['<', 'LessThan'],
  ['!=', 'NotEquals'],
  ['(', 'OpenPar'],
]);
const KEYWORDS = new Map<string, Token>([
  ['in', 'In'],
  ['notin', 'NotIn'],
]);

const END = '\0';

function isWhitespace(ch: string): boolean {
  return ch === ' ' || ch === '\t' || ch === '\r' || ch === '\n';
}

function isSpecial(ch: string): boolean {
  return ch.length === 1 && '=!(),><'.includes(ch);
}

/**
 * Tokenizer matching the Go lexer, including its treatment of a NUL character as
 * end of input (Go's read() returns 0 both at the end and for a NUL byte).
 */
class Lexer {
  private pos = 0;

  constructor(private readonly s: string) {}

  tokens(): Item[] {
    const items: Item[] = [];
    for (;;) {
      const item = this.next();
      items.push(item);
      if (item.tok === 'EndOfString') return items;
    }
  }

  private read(): string {
    return this.pos < this.s.length ? this.s[this.pos++] : END;
  }

  private next(): Item {
    let ch = this.read();
    while (isWhitespace(ch)) ch = this.read();
    if (ch === END) return { tok: 'EndOfString', lit: '' };
    this.pos--;
    return isSpecial(ch) ? this.symbol() : this.word();
  }

  // The longest symbol token wins, and symbols are at most two characters long.
  private symbol(): Item {
    const one = this.read();
    const two = one + this.s.charAt(this.pos);
    if (two.length === 2 && SYMBOLS.has(two)) {
      this.pos++;
      return { tok: SYMBOLS.get(two)!, lit: two };
    }
    return { tok: SYMBOLS.get(one)!, lit: one };
  }

  private word(): Item {
    let lit = '';
    for (;;) {
      const ch = this.read();
      if (ch === END) break;
      if (isSpecial(ch) || isWhitespace(ch)) {
        this.pos--;
        break;
      }
      lit += ch;
    }
    return { tok: KEYWORDS.get(lit) ?? 'Identifier', lit };
  }
}

// ---------------------------------------------------------------------------
// String form: parser

/** Where a token is read: 'in'/'notin' are operators after a key but plain words elsewhere. */
type Context = 'keyAndOperator' | 'values';

/** A failure inside one requirement; parse() prefixes "unable to parse requirement: ". */
class RequirementError extends Error {}

class Parser {
  private readonly items: Item[];
  private pos = 0;

  constructor(s: string) {
    this.items = new Lexer(s).tokens();
  }

  parse(): LabelRequirement[] {
    const reqs: LabelRequirement[] = [];
    for (;;) {
      const { tok, lit } = this.peek('values');
      if (tok === 'EndOfString') return reqs;
      if (tok !== 'Identifier' && tok !== 'DoesNotExist') {
        throw new SelectorError(`found '${lit}', expected: !, identifier, or 'end of string'`);
      }
      reqs.push(this.requirementWithContext());
      const sep = this.take('values');
      if (sep.tok === 'EndOfString') return reqs;
      if (sep.tok !== 'Comma') {
        throw new SelectorError(`found '${sep.lit}', expected: ',' or 'end of string'`);
      }
      const after = this.peek('values');
      if (after.tok !== 'Identifier' && after.tok !== 'DoesNotExist') {
        throw new SelectorError(`found '${after.lit}', expected: identifier after ','`);
      }
    }
  }

  private peek(ctx: Context): Item {
    const item = this.items[Math.min(this.pos, this.items.length - 1)];
    return ctx === 'values' && (item.tok === 'In' || item.tok === 'NotIn')
      ? { ...item, tok: 'Identifier' }
      : item;
  }

  private take(ctx: Context): Item {
    const item = this.peek(ctx);
    this.pos++;
    return item;
  }

  private requirementWithContext(): LabelRequirement {
    try {
      return this.requirement();
    } catch (e) {
      if (e instanceof RequirementError) throw new SelectorError(`unable to parse requirement: ${e.message}`);
      throw e;
    }
  }

  private requirement(): LabelRequirement {
    const { key, unary } = this.keyAndUnaryOperator();
    if (unary) return build(key, unary, []);
    const op = this.binaryOperator();
    const values = op === 'In' || op === 'NotIn' ? this.valueSet() : this.exactValue();
    // Go collects values in a set: duplicates collapse and the list comes out sorted.
    return build(key, op, [...new Set(values)].sort(byteOrderCompare));
  }

  // A key alone means Exists; '!' before it means DoesNotExist. '!' also ends the
  // requirement, so "!a=b" fails afterwards on the unexpected '='.
  private keyAndUnaryOperator(): { key: string; unary?: 'Exists' | 'DoesNotExist' } {
    let item = this.take('values');
    const negated = item.tok === 'DoesNotExist';
    if (negated) item = this.take('values');
    if (item.tok !== 'Identifier') throw new RequirementError(`found '${item.lit}', expected: identifier`);
    const keyErrs = labelKeyErrors(item.lit);
    // The parser validates keys with a nil field path, hence "<nil>" in the message.
    if (keyErrs.length > 0) throw new RequirementError(invalid('<nil>', item.lit, keyErrs.join('; ')));
    if (negated) return { key: item.lit, unary: 'DoesNotExist' };
    const next = this.peek('values').tok;
    return { key: item.lit, unary: next === 'EndOfString' || next === 'Comma' ? 'Exists' : undefined };
  }

  private binaryOperator(): LabelOperator {
    const { tok, lit } = this.take('keyAndOperator');
    const op = BINARY_TOKENS.get(tok);
    if (!op) throw new RequirementError(`found '${lit}', expected: ${BINARY_OPERATORS}`);
    return op;
  }

  // "(" values ")"; "()" means the single empty value.
  private valueSet(): string[] {
    const open = this.take('values');
    if (open.tok !== 'OpenPar') throw new RequirementError(`found '${open.lit}' expected: '('`);
    const { tok, lit } = this.peek('values');
    if (tok === 'ClosedPar') {
      this.take('values');
      return [''];
    }
    if (tok !== 'Identifier' && tok !== 'Comma') {
      throw new RequirementError(`found '${lit}', expected: ',', ')' or identifier`);
    }
    const values = this.identifierList();
    if (this.take('values').tok !== 'ClosedPar') throw new RequirementError(`found '${lit}', expected: ')'`);
    return values;
  }

  // Comma-separated, possibly empty identifiers: "(,a)", "(a,)" and "(a,,b)" all
  // contain the empty value. Returns with ')' as the next token.
  private identifierList(): string[] {
    const values: string[] = [];
    for (;;) {
      const { tok, lit } = this.take('values');
      if (tok === 'Identifier') {
        values.push(lit);
        const next = this.peek('values');
        if (next.tok === 'ClosedPar') return values;
        if (next.tok !== 'Comma') throw new RequirementError(`found '${next.lit}', expected: ',' or ')'`);
      } else if (tok === 'Comma') {
        if (values.length === 0) values.push('');
        const next = this.peek('values').tok;
        if (next === 'ClosedPar') return [...values, ''];
        if (next === 'Comma') {
          this.take('values');
          values.push('');
        }
      } else {
        throw new RequirementError(`found '${lit}', expected: ',', or identifier`);
      }
    }
  }

  // A missing value ("a=", "a=,b") is the empty string.
  private exactValue(): string[] {
    const next = this.peek('values').tok;
    if (next === 'EndOfString' || next === 'Comma') return [''];
    const { tok, lit } = this.take('values');
    if (tok !== 'Identifier') throw new RequirementError(`found '${lit}', expected: identifier`);
    return [lit];
  }
}

const BINARY_TOKENS = new Map<Token, LabelOperator>([
  ['In', 'In'],
  ['Equals', 'Equals'],
  ['DoubleEquals', 'DoubleEquals'],
  ['GreaterThan', 'GreaterThan'],
  ['LessThan', 'LessThan'],
  ['NotIn', 'NotIn'],
  ['NotEquals', 'NotEquals'],
]);

function build(key: string, operator: LabelOperator, values: string[]): LabelRequirement {
  const errs = requirementErrors(key, operator, values);
  if (errs.length > 0) throw new RequirementError(aggregate(errs));
  return { key, operator, values };
}

/**
 * Parses the string form (labels.Parse). Grammar:
 *   selector    ::= requirement ("," requirement)*
 *   requirement ::= ["!"] KEY [ ("in" | "notin") "(" VALUES ")" | ("=" | "==" | "!=" | ">" | "<") VALUE ]
 * Whitespace (space, tab, CR, LF) separates tokens. '' (or only whitespace) gives []
 * which matches everything. Requirements are sorted by key; In/NotIn values are
 * de-duplicated and sorted. Throws SelectorError with the apiserver's message.
 */
export function parseLabelSelector(s: string): LabelRequirement[] {
  return sortByKey(new Parser(s).parse());
}

// ---------------------------------------------------------------------------
// Object form: metav1.LabelSelector

export type LabelSelectorOperator = 'In' | 'NotIn' | 'Exists' | 'DoesNotExist';

export interface LabelSelectorRequirement {
  key: string;
  operator: string;
  values?: string[] | null;
}

export interface LabelSelector {
  matchLabels?: Record<string, string> | null;
  matchExpressions?: LabelSelectorRequirement[] | null;
}

const SELECTOR_OPERATORS = new Set<string>(['In', 'NotIn', 'Exists', 'DoesNotExist']);

function sortedEntries(record: Record<string, string>): [string, string][] {
  return Object.entries(record).sort(([a], [b]) => byteOrderCompare(a, b));
}

function checkedRequirement(key: string, operator: LabelOperator, values: string[] | null): LabelRequirement {
  const errs = requirementErrors(key, operator, values);
  if (errs.length > 0) throw new SelectorError(aggregate(errs));
  return { key, operator, values: values ?? [] };
}

function expressionRequirement(expr: LabelSelectorRequirement): LabelRequirement {
  if (!SELECTOR_OPERATORS.has(expr.operator)) {
    throw new SelectorError(`${goQuote(String(expr.operator))} is not a valid label selector operator`);
  }
  // Go copies values with append([]string(nil), ...): an empty list becomes nil.
  const values = expr.values && expr.values.length > 0 ? [...expr.values] : null;
  return checkedRequirement(expr.key ?? '', expr.operator as LabelOperator, values);
}

/**
 * metav1.LabelSelectorAsSelector as requirements. Returns null for a null/undefined
 * selector (Go's labels.Nothing(): matches no object) and [] for an empty selector
 * (labels.Everything()). Throws SelectorError for an invalid selector.
 */
export function labelSelectorAsRequirements(
  sel: LabelSelector | null | undefined,
): LabelRequirement[] | null {
  if (sel === null || sel === undefined) return null;
  const reqs = sortedEntries(sel.matchLabels ?? {}).map(([k, v]) => checkedRequirement(k, 'Equals', [v]));
  for (const expr of sel.matchExpressions ?? []) reqs.push(expressionRequirement(expr));
  return sortByKey(reqs);
}

export interface LabelSelectorMatchOptions {
  /**
   * What a null/undefined selector matches. Kubernetes semantics (the default,
   * false): nothing, e.g. a PodDisruptionBudget without selector. Pass true where
   * an absent selector means "no restriction" (e.g. an optional filter).
   */
  nilMatches?: boolean;
}

/**
 * Whether `labels` satisfy a metav1.LabelSelector. An empty selector ({}) matches
 * everything; a null/undefined one matches nothing unless `nilMatches`. An invalid
 * selector matches nothing, as controllers treat a selector conversion error.
 */
export function labelSelectorMatches(
  sel: LabelSelector | null | undefined,
  labels: Labels | undefined,
  options: LabelSelectorMatchOptions = {},
): boolean {
  let reqs: LabelRequirement[] | null;
  try {
    reqs = labelSelectorAsRequirements(sel);
  } catch (e) {
    if (e instanceof SelectorError) return false;
    throw e;
  }
  if (reqs === null) return options.nilMatches ?? false;
  return matchesRequirements(reqs, labels);
}

/**
 * metav1.FormatLabelSelector: the string form, "<none>" for a null or empty selector
 * and "<error>" for an invalid one.
 */
export function labelSelectorToString(sel: LabelSelector | null | undefined): string {
  try {
    const reqs = labelSelectorAsRequirements(sel);
    const s = reqs === null ? '' : requirementsToString(reqs);
    return s === '' ? '<none>' : s;
  } catch (e) {
    if (e instanceof SelectorError) return '<error>';
    throw e;
  }
}

// ---------------------------------------------------------------------------
// Object form: validation (apimachinery meta/v1/validation.ValidateLabelSelector)

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function child(path: string, name: string): string {
  return path === '' ? name : `${path}.${name}`;
}

// Renders an arbitrary bad value as field.Error does: simple types with %v, the rest as JSON.
function renderAny(v: unknown): string {
  if (typeof v === 'string') return goQuote(v);
  if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint') return String(v);
  return JSON.stringify(v) ?? 'null';
}

// Shape errors have no Go counterpart (Go fails while decoding); keep the field error form.
function typeError(path: string, value: unknown, expected: string): string {
  return `${path || '<nil>'}: Invalid value: ${renderAny(value)}: must be ${expected}`;
}

function validateMatchLabels(v: unknown, path: string): string[] {
  if (v === undefined || v === null) return [];
  if (!isRecord(v)) return [typeError(path, v, 'an object')];
  const errs: string[] = [];
  for (const key of Object.keys(v).sort(byteOrderCompare)) {
    const value = v[key];
    errs.push(...labelKeyErrors(key).map((m) => invalid(path, key, m)));
    if (typeof value !== 'string') errs.push(typeError(`${path}[${key}]`, value, 'a string'));
    else errs.push(...labelValueErrors(value).map((m) => invalid(path, value, m)));
  }
  return errs;
}

function validateValues(v: unknown, path: string): { errs: string[]; values: string[] } {
  if (v === undefined || v === null) return { errs: [], values: [] };
  if (!Array.isArray(v)) return { errs: [typeError(path, v, 'an array')], values: [] };
  const errs: string[] = [];
  v.forEach((value, i) => {
    if (typeof value !== 'string') errs.push(typeError(`${path}[${i}]`, value, 'a string'));
    else errs.push(...labelValueErrors(value).map((m) => invalid(`${path}[${i}]`, value, m)));
  });
  return { errs, values: v };
}

function operatorRuleErrors(operator: string, count: number, path: string): string[] {
  const valuesPath = child(path, 'values');
  if (operator === 'In' || operator === 'NotIn') {
    return count === 0
      ? [`${valuesPath}: Required value: must be specified when \`operator\` is 'In' or 'NotIn'`]
      : [];
  }
  if (operator === 'Exists' || operator === 'DoesNotExist') {
    return count > 0
      ? [`${valuesPath}: Forbidden: may not be specified when \`operator\` is 'Exists' or 'DoesNotExist'`]
      : [];
  }
  return [invalid(child(path, 'operator'), operator, 'not a valid selector operator')];
}

function validateExpression(v: unknown, path: string): string[] {
  if (!isRecord(v)) return [typeError(path, v, 'an object')];
  const errs: string[] = [];
  // Absent fields decode to Go zero values (""), which then fail validation.
  const operator = v.operator ?? '';
  const key = v.key ?? '';
  const values = validateValues(v.values, child(path, 'values'));
  if (typeof operator !== 'string') errs.push(typeError(child(path, 'operator'), operator, 'a string'));
  else errs.push(...operatorRuleErrors(operator, values.values.length, path));
  if (typeof key !== 'string') errs.push(typeError(child(path, 'key'), key, 'a string'));
  else errs.push(...labelKeyErrors(key).map((m) => invalid(child(path, 'key'), key, m)));
  return [...errs, ...values.errs];
}

/**
 * Validates a metav1.LabelSelector as the apiserver does for object specs, returning
 * field error messages (empty when valid; null/undefined is valid). `path` prefixes
 * field paths, e.g. 'spec.selector'. Non-object shapes are reported rather than thrown.
 */
export function validateLabelSelector(sel: unknown, path = ''): string[] {
  if (sel === undefined || sel === null) return [];
  if (!isRecord(sel)) return [typeError(path, sel, 'an object')];
  const errs = validateMatchLabels(sel.matchLabels, child(path, 'matchLabels'));
  const exprPath = child(path, 'matchExpressions');
  const exprs = sel.matchExpressions;
  if (exprs === undefined || exprs === null) return errs;
  if (!Array.isArray(exprs)) return [...errs, typeError(exprPath, exprs, 'an array')];
  return [...errs, ...exprs.flatMap((e, i) => validateExpression(e, `${exprPath}[${i}]`))];
}
