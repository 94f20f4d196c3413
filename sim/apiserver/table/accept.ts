// Accept-header negotiation for server-side printing and the includeObject query parameter.
import { errors } from '../http/errors.js';

export type IncludeObject = 'None' | 'Metadata' | 'Object';

interface MediaRange {
  type: string;
  subtype: string;
  params: Map<string, string>;
  q: number;
}

const META_GROUP = 'meta.k8s.io';
const META_VERSIONS = new Set(['v1', 'v1beta1']);
const PLAIN_TYPES = new Set([
  '*/*',
  'application/*',
  'application/json',
  'application/yaml',
  'application/vnd.kubernetes.protobuf',
]);

/**
 * True when the preferred acceptable clause asks for a meta.k8s.io Table as JSON.
 * Clauses are tried in q order (ties keep header order); conversions this server cannot do
 * are skipped, and a plain media type before any Table clause means "send the object itself".
 */
export function wantsTable(accept: string | undefined): boolean {
  const ranges = parseAccept(accept ?? '').sort((a, b) => b.q - a.q);
  for (const r of ranges) {
    if (r.q <= 0) continue;
    const as = r.params.get('as');
    if (as === undefined) {
      if (PLAIN_TYPES.has(`${r.type}/${r.subtype}`)) return false;
      continue;
    }
    if (!isMetaTarget(r)) continue;
    if (as === 'Table' && r.type === 'application' && r.subtype === 'json') return true;
    if (as === 'PartialObjectMetadata' || as === 'PartialObjectMetadataList') return false;
  }
  return false;
}

function isMetaTarget(r: MediaRange): boolean {
  return r.params.get('g') === META_GROUP && META_VERSIONS.has(r.params.get('v') ?? '');
}

function parseAccept(header: string): MediaRange[] {
  const out: MediaRange[] = [];
  for (const clause of header.split(',')) {
    const [mime, ...rawParams] = clause.split(';').map((s) => s.trim());
    const [type, subtype] = (mime ?? '').toLowerCase().split('/');
    if (!type || !subtype) continue;
    const params = new Map<string, string>();
    for (const p of rawParams) {
      const eq = p.indexOf('=');
      if (eq > 0) params.set(p.slice(0, eq).trim().toLowerCase(), unquote(p.slice(eq + 1).trim()));
    }
    const q = params.has('q') ? Number(params.get('q')) : 1;
    out.push({ type, subtype, params, q: Number.isNaN(q) ? 0 : q });
  }
  return out;
}

function unquote(s: string): string {
  return s.length >= 2 && s.startsWith('"') && s.endsWith('"') ? s.slice(1, -1) : s;
}

/**
 * Reads ?includeObject=. Absent or empty means Metadata (the server's default); anything
 * else unknown is the same 400 kube-apiserver returns from TableOptions validation.
 */
export function parseIncludeObject(v: string | undefined): IncludeObject {
  if (v === undefined || v === '') return 'Metadata';
  if (v === 'None' || v === 'Metadata' || v === 'Object') return v;
  throw errors.badRequest(
    `Unable to convert to Table as requested: includeObject: Unsupported value: "${v}": ` +
      'supported values: "Metadata", "None", "Object"',
  );
}
