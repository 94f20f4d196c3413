// Watch streams: replay from a resourceVersion (or a snapshot of current state), then
// live events in commit order, selector transitions as ADDED/DELETED, bookmarks,
// timeoutSeconds, and the real "too old resource version" ERROR event (410 Expired).
import type { ServerResponse } from 'node:http';
import type { ApiCore, Selection } from '../core/api.js';
import type { KubeObject, ResourceInfo } from '../resources/types.js';
import type { Stored, StoreEvent } from '../store/store.js';
import { type IncludeObject, toTable } from '../table/index.js';
import { errors } from './errors.js';

export interface WatchQuery {
  resourceVersion?: string;
  allowWatchBookmarks: boolean;
  /** WatchList: the current state as ADDED events, closed by an annotated BOOKMARK */
  sendInitialEvents?: boolean;
  timeoutSeconds?: number;
  table?: { includeObject: IncludeObject };
}

export interface WatchTiming {
  bookmarkIntervalMs: number;
  maxWatchSeconds: number;
  /** close a watcher whose unread output exceeds this many bytes */
  maxBufferedBytes: number;
  /** how long events may wait to be written together */
  flushDelayMs: number;
}

type Sink = ServerResponse;

export function serveWatch(
  core: ApiCore,
  r: ResourceInfo,
  ns: string | undefined,
  sel: Selection,
  q: WatchQuery,
  timing: WatchTiming,
  res: Sink,
) {
  const c = core.store.collection(core.key(r));
  // a watch that can only match one node's pods or one namespace is indexed by that key
  const nodeEq =
    r.group === '' && r.plural === 'pods'
      ? sel.fields.find((f) => f.field === 'spec.nodeName' && f.operator === '=' && f.value)
      : undefined;
  const watchKey = nodeEq ? `node:${nodeEq.value}` : ns && r.namespaced ? `ns:${ns}` : undefined;
  const inScope = (o: KubeObject) => !ns || !r.namespaced || o.metadata.namespace === ns;
  const visible = (o: KubeObject | undefined) => !!o && inScope(o) && core.matches(r, sel, o);

  // kube-apiserver sends a Table's column definitions with the first event only
  let headersSent = false;
  const render = (type: string, s: Stored): string => {
    const p = core.present(r, s);
    if (q.table) {
      const table: Record<string, unknown> = {
        ...toTable(r, [p.obj], { includeObject: q.table.includeObject, resourceVersion: String(s.rv) }),
      };
      if (headersSent) table.columnDefinitions = null;
      headersSent = true;
      return `{"type":"${type}","object":${JSON.stringify(table)}}\n`;
    }
    return `{"type":"${type}","object":${p.json}}\n`;
  };

  res.writeHead(200, {
    'content-type': 'application/json',
    'transfer-encoding': 'chunked',
    'cache-control': 'no-cache, private',
  });
  // clients wait for the headers before they consider the watch established
  res.flushHeaders();
  let closed = false;
  // events committed close together go out in one write: one TLS record instead of one per event
  let pending: string[] = [];
  let flushScheduled = false;
  const flush = () => {
    flushScheduled = false;
    if (closed || pending.length === 0) return;
    res.write(pending.length === 1 ? pending[0] : pending.join(''));
    pending = [];
    pendingBytes = 0;
    if (res.writableLength > timing.maxBufferedBytes) close();
  };
  let pendingBytes = 0;
  const send = (line: string) => {
    if (closed) return;
    pending.push(line);
    pendingBytes += line.length;
    if (pendingBytes > 256 * 1024) return flush();
    if (!flushScheduled) {
      flushScheduled = true;
      // a few milliseconds of coalescing turns a burst of commits into one TLS write
      setTimeout(flush, timing.flushDelayMs);
    }
  };

  const deliver = (e: StoreEvent) => {
    const now = visible(e.current.obj);
    const before = e.type !== 'ADDED' && visible(e.previous?.obj);
    if (e.type === 'DELETED') {
      if (before) send(render('DELETED', e.current));
    } else if (now && before) send(render('MODIFIED', e.current));
    else if (now) send(render('ADDED', e.current));
    else if (before) send(render('DELETED', e.current));
  };

  const rv = q.resourceVersion;
  const bookmarkObject = (annotations?: Record<string, string>) =>
    JSON.stringify({
      kind: r.kind,
      apiVersion: r.group ? `${r.group}/${r.version}` : r.version,
      metadata: { resourceVersion: String(core.store.currentRv()), ...(annotations ? { annotations } : {}) },
    });
  if (!rv || rv === '0' || q.sendInitialEvents) {
    for (const k of c.keys()) {
      const s = c.items.get(k)!;
      if (visible(s.obj)) send(render('ADDED', s));
    }
    if (q.sendInitialEvents && q.allowWatchBookmarks)
      send(`{"type":"BOOKMARK","object":${bookmarkObject({ 'k8s.io/initial-events-end': 'true' })}}\n`);
  } else {
    const from = Number(rv);
    const replay = Number.isInteger(from) && from >= 0 ? c.since(from) : undefined;
    if (!Number.isInteger(from) || from < 0) {
      send(
        `{"type":"ERROR","object":${JSON.stringify(errors.badRequest(`invalid resource version: ${rv}`).toStatus())}}\n`,
      );
      flush();
      res.end();
      return;
    }
    if (!replay) {
      const status = errors.expired(`too old resource version: ${from} (${c.oldestRetained()})`).toStatus();
      send(`{"type":"ERROR","object":${JSON.stringify(status)}}\n`);
      flush();
      res.end();
      return;
    }
    for (const e of replay) deliver(e);
  }
  c.addWatcher(deliver, watchKey);

  const bookmark = q.allowWatchBookmarks
    ? setInterval(() => send(`{"type":"BOOKMARK","object":${bookmarkObject()}}\n`), timing.bookmarkIntervalMs)
    : undefined;
  const limit = Math.min(q.timeoutSeconds ?? timing.maxWatchSeconds, timing.maxWatchSeconds);
  const timeout = setTimeout(() => close(), limit * 1000);

  function close() {
    if (closed) return;
    flush();
    closed = true;
    c.removeWatcher(deliver, watchKey);
    if (bookmark) clearInterval(bookmark);
    clearTimeout(timeout);
    res.end();
  }
  res.on('close', close);
  return close;
}
