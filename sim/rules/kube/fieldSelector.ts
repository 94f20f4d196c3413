// Kubernetes field selectors (?fieldSelector=): comma-separated `field=value`,
// `field==value` and `field!=value` terms, ANDed. Pure: no I/O.
//
// Follows k8s.io/apimachinery pkg/fields.ParseSelector, including its escaping
// rules and error messages, so clients see the same 400 responses as from a real
// apiserver.

import { byteOrderCompare, SelectorError } from '../../../lib/kube/labelSelector.js';

export { SelectorError };

export interface FieldRequirement {
  field: string;
  operator: '=' | '!=';
  value: string;
}

/**
 * Splits on commas that are not backslash-escaped. Escapes stay in the terms
 * (the value is unescaped later), so "a=x\,y" stays one term.
 */
function splitTerms(selector: string): string[] {
  if (selector === '') return [];
  const terms: string[] = [];
  let start = 0;
  let escaped = false;
  for (let i = 0; i < selector.length; i++) {
    const c = selector[i];
    if (escaped) escaped = false;
    else if (c === '\\') escaped = true;
    else if (c === ',') {
      terms.push(selector.slice(start, i));
      start = i + 1;
    }
  }
  terms.push(selector.slice(start));
  return terms;
}

// '!=' and '==' are tried before '=' at each position, so "a==b" is not read as a="=b".
const TERM_OPERATORS = ['!=', '==', '='] as const;

/**
 * Splits a term at the first operator. The field name has no escaping: a '=' in it
 * always ends the name.
 */
function splitTerm(term: string): { field: string; op: string; rhs: string } | null {
  for (let i = 0; i < term.length; i++) {
    const op = TERM_OPERATORS.find((o) => term.startsWith(o, i));
    if (op) return { field: term.slice(0, i), op, rhs: term.slice(i + op.length) };
  }
  return null;
}

/** fields.UnescapeValue: `\\`, `\,` and `\=` are the only escapes; bare ',' or '=' are errors. */
export function unescapeFieldValue(s: string): string {
  let out = '';
  let escaped = false;
  for (const c of s) {
    if (escaped) {
      if (c !== '\\' && c !== ',' && c !== '=') {
        throw new SelectorError(`invalid field selector: invalid escape sequence: \\${c}`);
      }
      out += c;
      escaped = false;
    } else if (c === '\\') {
      escaped = true;
    } else if (c === ',' || c === '=') {
      // Go formats the rune with %v, which prints its code point as a number.
      throw new SelectorError(`invalid field selector: unescaped character in value: ${c.codePointAt(0)}`);
    } else {
      out += c;
    }
  }
  if (escaped) throw new SelectorError('invalid field selector: invalid escape sequence: \\');
  return out;
}

/** fields.EscapeValue: makes an arbitrary string safe as a field selector value. */
export function escapeFieldValue(s: string): string {
  return s.replace(/[\\,=]/g, (c) => `\\${c}`);
}

/**
 * Parses the string form (fields.ParseSelector). '' gives [] (matches everything).
 * Terms are processed in sorted order, as in Go, so the first error reported and the
 * order of the result are deterministic. Whitespace is not trimmed: it is part of
 * the field name or value. Empty terms are skipped, as are terms with both an empty
 * field and an empty value ("=", "!="), which Go turns into "everything".
 */
export function parseFieldSelector(s: string): FieldRequirement[] {
  const reqs: FieldRequirement[] = [];
  for (const term of splitTerms(s).sort(byteOrderCompare)) {
    if (term === '') continue;
    const parts = splitTerm(term);
    if (!parts) throw new SelectorError(`invalid selector: '${s}'; can't understand '${term}'`);
    const value = unescapeFieldValue(parts.rhs);
    if (parts.field === '' && value === '') continue;
    reqs.push({ field: parts.field, operator: parts.op === '!=' ? '!=' : '=', value });
  }
  return reqs;
}

/**
 * True when every requirement holds. A field missing from `fields` reads as '', as
 * Go's fields.Set.Get does, so `x=` matches an absent x and `x!=v` matches it too.
 */
export function matchesFields(reqs: FieldRequirement[], fields: Record<string, string>): boolean {
  return reqs.every((r) => {
    const actual = Object.hasOwn(fields, r.field) ? fields[r.field] : '';
    return r.operator === '=' ? actual === r.value : actual !== r.value;
  });
}

/**
 * Rejects selectors on fields the resource does not support, with the message the
 * apiserver's field label conversion returns. Checks in requirement order, so the
 * first unsupported field is the one reported. Callers include the always-supported
 * metadata.name and metadata.namespace in `supported`.
 */
export function checkSupportedFields(reqs: FieldRequirement[], supported: string[]): void {
  const allowed = new Set(supported);
  const bad = reqs.find((r) => !allowed.has(r.field));
  if (bad) throw new SelectorError(`field label not supported: ${bad.field}`);
}

/** The canonical string form (fields.Selector.String()), values escaped. */
export function fieldSelectorToString(reqs: FieldRequirement[]): string {
  return reqs.map((r) => `${r.field}${r.operator}${escapeFieldValue(r.value)}`).join(',');
}
