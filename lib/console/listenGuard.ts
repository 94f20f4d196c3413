// Whether the console listens on loopback only. Sign-in is always on wherever it listens; on
// loopback with no identity provider configured, `npm start` also prints a one-time sign-in
// link (whoever can read that terminal started Palisade and holds its kubeconfig).
import { isIP } from 'node:net';

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
