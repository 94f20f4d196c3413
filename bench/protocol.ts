// Messages between bench/run.ts and the API server child (bench/server.ts).

export interface ServerStats {
  rss: number;
  heapUsed: number;
  external: number;
  /** highest RSS sampled (every 20 ms) since the last reset */
  peakRss: number;
  gcForced: boolean;
  cpuUserMs: number;
  cpuSystemMs: number;
  /** longest event-loop stall since the last reset */
  loopMaxMs: number;
  loopP99Ms: number;
}

export interface ChildRequest {
  type: 'stats';
  id: number;
  /** run global.gc() before reading memory */
  gc: boolean;
  /** start a new window for peakRss and the event-loop histogram */
  reset: boolean;
}

export type ChildReply =
  | { type: 'ready'; url: string; token: string; caPem: string }
  | { type: 'stats'; id: number; stats: ServerStats };
