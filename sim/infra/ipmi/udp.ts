// UDP helpers for the BMCs: a free loopback port, and "is an IPMI BMC answering there?"
import dgram from 'node:dgram';

/** Bind port 0 and release it. Another process may take it before ipmi_sim does: callers retry. */
export async function freeUdpPort(): Promise<number> {
  const s = dgram.createSocket('udp4');
  await new Promise<void>((resolve, reject) => {
    s.once('error', reject);
    s.bind(0, '127.0.0.1', () => resolve());
  });
  const { port } = s.address();
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

// RMCP, IPMI 1.5 session header without a session, then Get Channel Authentication
// Capabilities (netFn App, cmd 0x38) for the current channel at admin level: the first
// message any IPMI client sends, answered before login.
const AUTH_CAPS = Buffer.from('0600ff07000000000000000000092018c88100388e04b5', 'hex');

/**
 * Resolves once the BMC on 127.0.0.1:port answers, rejects after timeoutMs or as soon as
 * gone() says the process died (so a port clash is retried at once, not after a timeout).
 */
export async function waitServing(port: number, timeoutMs: number, gone: () => boolean): Promise<void> {
  const s = dgram.createSocket('udp4');
  const deadline = Date.now() + timeoutMs;
  try {
    await new Promise<void>((resolve, reject) => {
      s.on('message', (_msg, from) => from.port === port && resolve());
      s.on('error', reject);
      const tick = () => {
        if (gone()) return reject(new Error('the BMC process exited'));
        if (Date.now() > deadline)
          return reject(new Error(`no answer on UDP port ${port} in ${timeoutMs} ms`));
        s.send(AUTH_CAPS, port, '127.0.0.1');
        timer = setTimeout(tick, 50);
      };
      let timer = setTimeout(tick, 0);
      s.once('close', () => clearTimeout(timer));
    });
  } finally {
    s.close();
  }
}
