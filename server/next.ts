// The Next.js request handler for the built console UI, when there is a build. Without
// one the APIs still run and the pages say how to build them.
import { existsSync } from 'node:fs';
import type http from 'node:http';
import { join } from 'node:path';

export type RequestHandler = (req: http.IncomingMessage, res: http.ServerResponse) => Promise<void> | void;

export interface NextUi {
  handle: RequestHandler;
  close(): Promise<void>;
}

export const NO_BUILD_MESSAGE =
  'the console UI is not built yet: run `npm run build`, then start Palisade again';

interface NextServerLike {
  prepare(): Promise<void>;
  getRequestHandler(): RequestHandler;
  close(): Promise<void>;
}

export async function loadNextUi(dir: string, hostname: string, port: number): Promise<NextUi | undefined> {
  if (!existsSync(join(dir, '.next', 'BUILD_ID'))) return undefined;
  // imported lazily: tests and API-only runs never pay for loading Next
  const mod = (await import('next')) as unknown as { default: unknown };
  const create = ((mod.default as { default?: unknown }).default ?? mod.default) as (
    o: object,
  ) => NextServerLike;
  const app = create({ dev: false, dir, hostname, port });
  await app.prepare();
  return { handle: app.getRequestHandler(), close: () => app.close() };
}

export const noUiHandler: RequestHandler = (_req, res) => {
  res.writeHead(503, { 'content-type': 'text/plain; charset=utf-8' });
  res.end(`Palisade: ${NO_BUILD_MESSAGE}\nThe APIs are up: /api/trpc and socket.io at /socket.io.\n`);
};
