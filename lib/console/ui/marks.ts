// Geometry of the pod marks inside a node tile (drawn on one canvas per tile). Pure.

export interface MarkGrid {
  cols: number;
  rows: number;
  /** CSS pixels */
  width: number;
  height: number;
  size: number;
  gap: number;
}

/** Marks of `size` px with `gap` px between them, wrapped to fit `width`; at least one row. */
export function markGrid(count: number, width: number, size = 5, gap = 2): MarkGrid {
  const cols = Math.max(1, Math.floor((width + gap) / (size + gap)));
  const rows = Math.max(1, Math.ceil(count / cols));
  return { cols, rows, width, height: rows * size + (rows - 1) * gap, size, gap };
}

/** Top-left corner of mark i. */
export function markPosition(g: MarkGrid, i: number): { x: number; y: number } {
  const col = i % g.cols;
  const row = Math.floor(i / g.cols);
  return { x: col * (g.size + g.gap), y: row * (g.size + g.gap) };
}

/** Mark index under a point, or -1. */
export function markAt(g: MarkGrid, x: number, y: number, count: number): number {
  const col = Math.floor(x / (g.size + g.gap));
  const row = Math.floor(y / (g.size + g.gap));
  if (col < 0 || col >= g.cols || row < 0) return -1;
  const i = row * g.cols + col;
  return i < count ? i : -1;
}
