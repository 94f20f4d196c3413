// Where the history goes, from palisade.yaml, the environment and the command line: PostgreSQL
// when a URL is given ($PALISADE_POSTGRES_URL, else storage.postgres.url); else PGlite in
// storage.path, else in <state-dir>/history when there is a state directory (the embedded
// cluster's, or --state-dir given); else a temporary directory, deleted at exit.
import { isAbsolute, join, resolve } from 'node:path';
import type { StorageConfig } from '../config/schema.js';
import type { HistoryLocation } from './service.js';

export interface LocationInputs {
  storage: StorageConfig;
  /** $PALISADE_POSTGRES_URL */
  envUrl?: string;
  /** the config file's directory (storage.path is relative to it), else the working directory */
  base: string;
  /** the state directory when there is one (embedded cluster, or --state-dir given) */
  stateDir?: string;
}

export function historyLocationOf(i: LocationInputs): HistoryLocation {
  const url = i.envUrl?.trim() || i.storage.postgres.url;
  if (url) return { kind: 'postgres', url };
  if (i.storage.path)
    return {
      kind: 'pglite',
      dir: isAbsolute(i.storage.path) ? i.storage.path : resolve(i.base, i.storage.path),
    };
  if (i.stateDir) return { kind: 'pglite', dir: resolve(join(i.stateDir, 'history')) };
  return { kind: 'temporary' };
}
