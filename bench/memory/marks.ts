// What a stage of bench:memory's breakdown (stage.ts) reports.
export const STAGES = ['modules', 'console', 'ui', 'history'] as const;
export type Stage = (typeof STAGES)[number];

export interface Mark {
  name: string;
  /** /proc/self/status, bytes */
  rss: number;
  hwm: number;
  heapUsed: number;
  heapTotal: number;
  external: number;
  arrayBuffers: number;
  /** V8's code space and the parsed-code caches of the main isolate */
  codeAndMetadata: number;
  /** objects the console's informers hold, per kind */
  objects?: Record<string, number>;
  url?: string;
}
