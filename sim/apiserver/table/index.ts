// Server-side printing: turns a list of stored objects into the meta.k8s.io/v1 Table that
// kubectl get asks for, with the columns and cells kube-apiserver would produce.
import { type KubeObject, type ResourceInfo, apiVersionOf } from '../resources/types.js';
import type { IncludeObject } from './accept.js';
import { customResourcePrinter, defaultPrinter } from './custom.js';
import { builtinPrinter } from './printers/registry.js';
import type { Printer, Table, TableRow } from './types.js';

export { parseIncludeObject, wantsTable } from './accept.js';
export type { IncludeObject } from './accept.js';
export { formatAge } from './age.js';
export type { Cell, ColumnDefinition, RowCondition, Table, TableRow } from './types.js';

export interface TableOptions {
  includeObject: IncludeObject;
  resourceVersion: string;
  continueToken?: string;
  remainingItemCount?: number;
  /** TableOptions.noHeaders: watch events after the first one omit the column definitions. */
  noHeaders?: boolean;
  /** Clock for AGE cells; tests pin it. */
  now?: Date;
}

/**
 * Picks the printer the real server would: CRD columns for custom resources (an Age column
 * when none are declared), hand-written ones for built-ins, else NAME + CREATED AT.
 */
export function printerFor(resource: ResourceInfo): Printer {
  if (resource.printerColumns?.length || resource.custom)
    return customResourcePrinter(resource.printerColumns);
  return builtinPrinter(resource.group, resource.kind) ?? defaultPrinter;
}

export function toTable(resource: ResourceInfo, items: KubeObject[], opts: TableOptions): Table {
  const printer = printerFor(resource);
  const now = opts.now ?? new Date();
  const metadata: Table['metadata'] = {};
  // ListMeta fields are omitempty on the wire.
  if (opts.resourceVersion) metadata.resourceVersion = opts.resourceVersion;
  if (opts.continueToken) metadata.continue = opts.continueToken;
  if (opts.remainingItemCount !== undefined) metadata.remainingItemCount = opts.remainingItemCount;
  return {
    kind: 'Table',
    apiVersion: 'meta.k8s.io/v1',
    metadata,
    columnDefinitions: opts.noHeaders ? [] : printer.columns,
    rows: items.map((item) => toRow(printer, resource, item, opts.includeObject, now)),
  };
}

function toRow(
  printer: Printer,
  resource: ResourceInfo,
  item: KubeObject,
  include: IncludeObject,
  now: Date,
): TableRow {
  const printed = printer.print(item, now);
  const row: TableRow = { cells: printed.cells };
  if (printed.conditions) row.conditions = printed.conditions;
  const object = rowObject(resource, item, include);
  if (object !== undefined) row.object = object;
  return row;
}

/** What each row embeds: nothing, PartialObjectMetadata, or the whole object with its type. */
function rowObject(resource: ResourceInfo, item: KubeObject, include: IncludeObject): unknown {
  if (include === 'None') return undefined;
  if (include === 'Metadata') {
    return { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: item.metadata };
  }
  const { kind, apiVersion, ...rest } = item;
  return { kind: kind ?? resource.kind, apiVersion: apiVersion ?? apiVersionOf(resource), ...rest };
}
