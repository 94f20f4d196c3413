// `tsx scripts/image/history-template.ts DIR`: a fresh, migrated, closed history store in DIR, made
// by the server's own code (PGlite's initdb and the migrations in its worker): the template the
// image ships (PALISADE_HISTORY_TEMPLATE), so that no pod runs initdb (scripts/image/build.sh).
import { existsSync } from 'node:fs';
import { createStore } from '../../server/history/service.js';

const dir = process.argv[2];
if (!dir || existsSync(dir)) {
  console.error('usage: tsx scripts/image/history-template.ts DIR (a directory that does not exist yet)');
  process.exit(2);
}
await createStore(dir);
