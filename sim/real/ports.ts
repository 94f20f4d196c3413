// Free TCP ports for servers that tests start. A port the kernel hands out for port 0 comes from
// the ephemeral range (32768–60999 on Linux), the same range every outgoing connection takes its
// local port from: between asking and binding, one of the suite's thousands of connections (or
// another test's port-0 pick) can take it, and the server then fails with EADDRINUSE. Ports here
// come from below that range, at random, never the same one twice in a process, and are checked
// free on 127.0.0.1 before they are handed out.
import { randomInt } from 'node:crypto';
import { createServer } from 'node:net';

const LOW = 20_000;
const HIGH = 32_767;
const handedOut = new Set<number>();

function listens(port: number): Promise<number | undefined> {
  return new Promise((resolve) => {
    const s = createServer();
    s.once('error', () => resolve(undefined));
    s.listen(port, '127.0.0.1', () => {
      const { port: bound } = s.address() as { port: number };
      s.close(() => resolve(bound));
    });
  });
}

/** a port free on 127.0.0.1 now, unlikely to be taken before the caller binds it */
export async function freePort(): Promise<number> {
  for (let tries = 0; tries < 100; tries++) {
    const port = randomInt(LOW, HIGH + 1);
    if (handedOut.has(port)) continue;
    if ((await listens(port)) === port) {
      handedOut.add(port);
      return port;
    }
  }
  // the low range is crowded: let the kernel choose
  const port = await listens(0);
  if (port === undefined) throw new Error('no free TCP port on 127.0.0.1');
  return port;
}
