// Printers that are not hand-written: custom resources (additionalPrinterColumns, as the
// apiextensions-apiserver table convertor evaluates them) and the generic default convertor
// every other resource without a printer gets (NAME, CREATED AT).
import type { KubeObject, PrinterColumn } from '../resources/types.js';
import { formatAge } from './age.js';
import { CREATED_DESCRIPTION, col, nameColumn } from './columns.js';
import { goText } from './gotext.js';
import { evaluate } from './jsonpath.js';
import type { Cell, Printer } from './types.js';

/** The column a CRD version serves when it declares none. */
const DEFAULT_CRD_COLUMNS: PrinterColumn[] = [
  { name: 'Age', type: 'date', description: CREATED_DESCRIPTION, jsonPath: '.metadata.creationTimestamp' },
];

export function customResourcePrinter(columns: PrinterColumn[] | undefined): Printer {
  const cols = columns?.length ? columns : DEFAULT_CRD_COLUMNS;
  return {
    columns: [
      nameColumn(),
      ...cols.map((c) =>
        col(
          c.name,
          c.type,
          c.description || `Custom resource definition column (in JSONPath format): ${c.jsonPath}`,
          c.priority ?? 0,
          c.format ?? '',
        ),
      ),
    ],
    print: (obj, now) => ({
      cells: [obj.metadata.name ?? '', ...cols.map((c) => columnCell(c, obj, now))],
    }),
  };
}

function columnCell(c: PrinterColumn, obj: KubeObject, now: Date): Cell {
  const found = evaluate(c.jsonPath, obj);
  // Only the first match is shown, as the real convertor assumes simple paths.
  if (found.length === 0) return null;
  return cellForValue(c.type, found[0], now);
}

/** How a JSON value becomes a cell for each OpenAPI column type; mismatches become null. */
export function cellForValue(type: string, value: unknown, now: Date): Cell {
  if (value === null || value === undefined) return null;
  switch (type) {
    case 'string':
      return goText(value);
    case 'integer':
      return typeof value === 'number' ? Math.trunc(value) : null;
    case 'number':
      return typeof value === 'number' ? value : null;
    case 'boolean':
      return typeof value === 'boolean' ? value : null;
    case 'date':
      return typeof value === 'string' ? dateCell(value, now) : null;
    default:
      return null;
  }
}

const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

function dateCell(value: string, now: Date): string {
  if (value === '' || value === 'null') return '<unknown>';
  if (!RFC3339.test(value) || Number.isNaN(Date.parse(value))) return '<invalid>';
  return formatAge(value, now);
}

/** rest.NewDefaultTableConvertor: the name and the creation time in RFC3339 (UTC). */
export const defaultPrinter: Printer = {
  columns: [nameColumn(), col('Created At', 'date', CREATED_DESCRIPTION)],
  print: (obj) => ({ cells: [obj.metadata.name ?? '', createdAt(obj.metadata.creationTimestamp)] }),
};

function createdAt(ts: string | undefined): string {
  const t = ts ? Date.parse(ts) : Number.NaN;
  // Go formats a zero time as year 1; a missing timestamp reads the same way.
  if (Number.isNaN(t)) return '0001-01-01T00:00:00Z';
  return new Date(t).toISOString().replace(/\.\d{3}Z$/, 'Z');
}
