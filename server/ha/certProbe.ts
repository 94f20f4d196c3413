// What a replica's webhook listener serves, seen as a TLS client with a given CA bundle.
import tls from 'node:tls';

/** What one replica serves, verified against this CA bundle: its fingerprint, or the TLS error. */
export function served(port: number, caPem: string): Promise<{ fingerprint?: string; error?: string }> {
  return new Promise((resolve) => {
    const socket = tls.connect({
      host: '127.0.0.1',
      port,
      servername: 'localhost',
      ca: caPem,
      timeout: 5000,
    });
    const done = (r: { fingerprint?: string; error?: string }) => {
      socket.destroy();
      resolve(r);
    };
    socket.once('secureConnect', () =>
      done({ fingerprint: socket.getPeerX509Certificate()?.fingerprint256 }),
    );
    socket.once('error', (e: Error & { code?: string }) => done({ error: e.code ?? e.message }));
    socket.once('timeout', () => done({ error: 'timeout' }));
  });
}
