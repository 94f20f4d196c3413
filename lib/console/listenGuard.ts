// Where the console may listen. It has no sign-in yet and acts with its own credentials, so a
// console that can change a cluster (force delete, detach, fence approvals, simulated faults)
// listens on loopback only: whoever reaches it is someone already on this machine. `--host`
// with any other address is refused unless --insecure-no-auth says, in so many words, that
// there is no authentication; the UI then shows a banner saying so on every page. A console
// whose clusters are all read-only cannot act, so it may listen anywhere, still with a banner
// (it shows the clusters to anyone who can reach it).
import { isIP } from 'node:net';

export const NO_AUTH_FLAG = 'insecure-no-auth';

export interface ListenRequest {
  host: string;
  /** --insecure-no-auth */
  noAuth: boolean;
  /** some cluster is not read-only: the console can change it */
  canAct: boolean;
}

export type ListenVerdict = { ok: true; banner?: string } | { ok: false; message: string };

/** 127.0.0.0/8, ::1 (also in brackets or IPv4-mapped) and "localhost". */
export function isLoopback(host: string): boolean {
  const h = host
    .trim()
    .toLowerCase()
    .replace(/^\[(.*)\]$/, '$1');
  if (h === 'localhost' || h.endsWith('.localhost')) return true;
  const v4 = h.startsWith('::ffff:') ? h.slice(7) : h;
  if (isIP(v4) === 4) return v4.split('.')[0] === '127';
  return isIP(h) === 6 && /^(0{0,4}:){2,7}0{0,3}1$|^::1$/.test(h);
}

export function judgeListen(r: ListenRequest): ListenVerdict {
  if (isLoopback(r.host)) return { ok: true };
  const where = `--host ${r.host}`;
  if (!r.canAct)
    return {
      ok: true,
      banner: `No sign-in: this console listens on ${r.host} and shows its (read-only) clusters to anyone who can reach it.`,
    };
  if (!r.noAuth)
    return {
      ok: false,
      message: `${where} refused: Palisade has no sign-in yet and acts on your clusters with its own credentials, so anyone who could reach ${r.host} could force-delete pods, detach volumes and approve fences. Listen on loopback (the default, 127.0.0.1) and reach it through an SSH tunnel or an authenticating proxy on this machine; or pass --read-only; or pass --${NO_AUTH_FLAG} to accept that there is no authentication.`,
    };
  return {
    ok: true,
    banner: `No authentication (--${NO_AUTH_FLAG}): this console listens on ${r.host}, and anyone who can reach it can force-delete pods, detach volumes and approve fences with Palisade's credentials.`,
  };
}
