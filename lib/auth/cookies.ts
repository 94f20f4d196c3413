// The session cookie's rules. Cookies ignore ports: over plain HTTP any other server on the same
// host (another port) can set a cookie of the console's name, and one set with a longer Path is
// sent first, so a parser that keeps the first value lets it override the real session. So:
// - a request carrying the session cookie more than once is refused (nobody's session is used);
// - the value carries a MAC under the install's cookie key (derived from the sessions key,
//   lib/auth/sealedRecord.ts): a value this install did not issue is refused before any store
//   is asked, so a planted or guessed value costs nothing and proves nothing;
// - over HTTPS the name is __Host-palisade_session (Secure, Path=/, no Domain: only this host,
//   over TLS, may set it).
// Pure: the gate and its tests share these rules.
import { createHmac, timingSafeEqual } from 'node:crypto';

const MAC_LENGTH = 22; // base64url characters: 132 bits of HMAC-SHA256

/** The session cookie's name: __Host- over HTTPS; over HTTP the port (two consoles on one host). */
export function sessionCookieName(secure: boolean, port: number): string {
  return secure ? '__Host-palisade_session' : `palisade_session_${port}`;
}

export type FoundCookie =
  | { kind: 'none' }
  | { kind: 'one'; value: string }
  | { kind: 'conflict'; count: number };

/** The values of every cookie named `name` in a Cookie header, in the order sent. */
export function cookieValues(header: string | undefined, name: string): string[] {
  if (!header) return [];
  const out: string[] = [];
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0 || part.slice(0, eq).trim() !== name) continue;
    let v = part.slice(eq + 1).trim();
    if (v.startsWith('"') && v.endsWith('"') && v.length >= 2) v = v.slice(1, -1);
    try {
      out.push(decodeURIComponent(v));
    } catch {
      out.push(v);
    }
  }
  return out;
}

/** The session cookie of a request: none, exactly one, or a conflict (sent more than once). */
export function findSessionCookie(header: string | undefined, name: string): FoundCookie {
  const values = cookieValues(header, name).filter((v) => v !== '');
  if (values.length === 0) return { kind: 'none' };
  if (values.length > 1) return { kind: 'conflict', count: values.length };
  return { kind: 'one', value: values[0] };
}

const macOf = (id: string, key: Buffer) =>
  createHmac('sha256', key).update(`palisade session cookie|${id}`).digest('base64url').slice(0, MAC_LENGTH);

/** The cookie value for a session id: "<id>.<mac>". */
export function sealCookie(id: string, key: Buffer): string {
  return `${id}.${macOf(id, key)}`;
}

/** The session id in a cookie value this install issued; undefined for any other value. */
export function openCookie(value: string, key: Buffer): string | undefined {
  const dot = value.lastIndexOf('.');
  if (dot <= 0) return undefined;
  const id = value.slice(0, dot);
  const mac = Buffer.from(value.slice(dot + 1));
  const want = Buffer.from(macOf(id, key));
  return mac.length === want.length && timingSafeEqual(mac, want) ? id : undefined;
}
