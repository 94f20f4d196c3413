// Wire shapes of meta.k8s.io/v1 Table, plus the printer contract every kind implements.
import type { KubeObject } from '../resources/types.js';

/** A cell as kube-apiserver encodes it: strings, int64/float64 numbers, booleans, or null. */
export type Cell = string | number | boolean | null;

export interface ColumnDefinition {
  name: string;
  type: string;
  format: string;
  description: string;
  priority: number;
}

export interface RowCondition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
}

export interface TableRow {
  cells: Cell[];
  conditions?: RowCondition[];
  object?: unknown;
}

export interface Table {
  kind: 'Table';
  apiVersion: 'meta.k8s.io/v1';
  metadata: { resourceVersion?: string; continue?: string; remainingItemCount?: number };
  columnDefinitions: ColumnDefinition[];
  rows: TableRow[];
}

export interface PrintedRow {
  cells: Cell[];
  conditions?: RowCondition[];
}

/** One kind's column set and the function that renders an object into a row of it. */
export interface Printer {
  columns: ColumnDefinition[];
  print(obj: KubeObject, now: Date): PrintedRow;
}
