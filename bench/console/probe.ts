// The script the bench injects into the page (never shipped in the product). Plain
// JavaScript in a string: Playwright would serialise a TypeScript function as tsx
// compiled it, helpers and all.
//
// It records, relative to the page's navigation start (performance.now()):
//  - firstTileMs: the first node tile in the DOM
//  - tilesMs:     every expected node tile in the DOM
//  - fullMs:      every tile in the DOM and their aria-label pod counts add up to every pod
// and, once armed, the wall-clock time (timeOrigin + now()) at which each node tile's
// "<k> Running" count first reached k (dom) and the animation frame after that (frame),
// plus the browser's long tasks.

export interface ProbeState {
  firstTileMs: number;
  tilesMs: number;
  fullMs: number;
  fullTiles: number;
  fullPods: number;
}

export interface ProbeRecords {
  dom: Record<string, number[]>;
  frame: Record<string, number[]>;
  /** [wall-clock start, duration] of each long task (> 50 ms) */
  longTasks: [number, number][];
  unknownTiles: number;
}

export function probeScript(nodes: number, pods: number): string {
  return `(() => {
  const NODES = ${nodes}, PODS = ${pods}, TILE = 'node-tile-';
  const now = () => performance.timeOrigin + performance.now();
  const b = { firstTileMs: 0, tilesMs: 0, fullMs: 0, fullTiles: 0, fullPods: 0, armed: false,
    dom: {}, frame: {}, longTasks: [], unknownTiles: 0 };
  window.__bench = b;
  const tiles = () => document.querySelectorAll('[data-testid^="' + TILE + '"]');
  const num = (re, s) => { const m = re.exec(s || ''); return m ? Number(m[1]) : 0; };
  const podsOf = (el) => num(/; (\\d+) pods/, el.getAttribute('aria-label'));
  const running = (el) => num(/(\\d+) Running/, el.getAttribute('aria-label'));
  const nameOf = (el) => el.getAttribute('data-testid').slice(TILE.length);

  function checkFull() {
    const t = tiles();
    if (!t.length) return;
    if (!b.firstTileMs) b.firstTileMs = performance.now();
    if (t.length < NODES) return;
    if (!b.tilesMs) b.tilesMs = performance.now();
    let sum = 0;
    for (const el of t) sum += podsOf(el);
    if (sum < PODS) return;
    b.fullMs = performance.now();
    b.fullTiles = t.length;
    b.fullPods = sum;
  }

  let pending = [];
  let frameQueued = false;
  function onFrame() {
    frameQueued = false;
    const t = now();
    for (const [node, k] of pending) b.frame[node][k - 1] = t;
    pending = [];
  }
  function record(el, t) {
    const node = nameOf(el);
    const dom = b.dom[node];
    if (!dom) { b.unknownTiles++; return; }
    const c = running(el);
    for (let k = dom.length + 1; k <= c; k++) { dom[k - 1] = t; pending.push([node, k]); }
  }
  new MutationObserver((records) => {
    const t = now();
    if (!b.fullMs) checkFull();
    if (!b.armed) return;
    for (const r of records) {
      const id = r.type === 'attributes' && r.target.getAttribute('data-testid');
      if (id && id.startsWith(TILE)) record(r.target, t);
    }
    if (pending.length && !frameQueued) { frameQueued = true; requestAnimationFrame(onFrame); }
  }).observe(document, { subtree: true, childList: true, attributes: true, attributeFilter: ['aria-label'] });

  try {
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) b.longTasks.push([performance.timeOrigin + e.startTime, e.duration]);
    }).observe({ type: 'longtask', buffered: true });
  } catch {}

  // the counts shown now are the baseline: only increases after this are recorded
  b.arm = () => {
    for (const el of tiles()) {
      const c = running(el);
      b.dom[nameOf(el)] = new Array(c).fill(0);
      b.frame[nameOf(el)] = new Array(c).fill(0);
    }
    b.armed = true;
    return Object.keys(b.dom).length;
  };
})();`;
}

export const READ_STATE =
  '(({ firstTileMs, tilesMs, fullMs, fullTiles, fullPods }) => ({ firstTileMs, tilesMs, fullMs, fullTiles, fullPods }))(window.__bench)';
export const READ_RECORDS =
  '(({ dom, frame, longTasks, unknownTiles }) => ({ dom, frame, longTasks, unknownTiles }))(window.__bench)';
export const ARM = 'window.__bench.arm()';
export const IS_FULL = 'window.__bench && window.__bench.fullMs > 0';
