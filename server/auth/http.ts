// Small HTTP helpers for the gate and the sign-in routes: JSON answers with a length (never
// chunked), bodies read with a limit, and the session cookie.
import type http from 'node:http';
import { parse as parseCookie, serialize as serializeCookie } from 'cookie';

export function sendJson(
  res: http.ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
) {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'cache-control': 'no-store',
    'content-length': String(Buffer.byteLength(text)),
    ...headers,
  });
  res.end(text);
}

export function redirect(
  res: http.ServerResponse,
  location: string,
  headers: Record<string, string | string[]> = {},
) {
  res.writeHead(302, { location, 'cache-control': 'no-store', 'content-length': '0', ...headers });
  res.end();
}

export class BodyError extends Error {
  constructor(
    readonly status: 400 | 413 | 415,
    message: string,
  ) {
    super(message);
  }
}

/** A JSON body of at most `limit` bytes. */
export function readJson(req: http.IncomingMessage, limit = 64 * 1024): Promise<unknown> {
  if (!/^application\/json\s*(;|$)/i.test(req.headers['content-type'] ?? ''))
    return Promise.reject(new BodyError(415, 'send the body as application/json'));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > limit) {
        reject(new BodyError(413, `the body is larger than ${limit} bytes`));
        req.destroy();
      } else chunks.push(c);
    });
    req.on('end', () => {
      try {
        resolve(chunks.length ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : {});
      } catch {
        reject(new BodyError(400, 'the body is not valid JSON'));
      }
    });
    req.on('error', reject);
  });
}

export interface CookieSettings {
  name: string;
  secure: boolean;
  maxAgeSeconds: number;
}

/**
 * Over HTTPS, __Host- binds the cookie to this exact host (browsers accept the prefix only with
 * Secure). Cookies ignore ports, so over plain HTTP on loopback the name carries the port:
 * two consoles on one machine (a demo beside the main one) must not sign each other out.
 */
export function cookieSettings(secure: boolean, port: number, maxAgeSeconds: number): CookieSettings {
  return { name: secure ? '__Host-palisade_session' : `palisade_session_${port}`, secure, maxAgeSeconds };
}

export function sessionCookie(c: CookieSettings, value: string): string {
  return serializeCookie(c.name, value, {
    httpOnly: true,
    sameSite: 'strict',
    secure: c.secure,
    path: '/',
    maxAge: c.maxAgeSeconds,
  });
}

export function clearedCookie(c: CookieSettings): string {
  return serializeCookie(c.name, '', {
    httpOnly: true,
    sameSite: 'strict',
    secure: c.secure,
    path: '/',
    maxAge: 0,
  });
}

export function cookieValue(req: http.IncomingMessage, name: string): string | undefined {
  const header = req.headers.cookie;
  if (!header) return undefined;
  return parseCookie(header)[name] || undefined;
}

export function bearerToken(req: http.IncomingMessage): string | undefined {
  const m = /^Bearer\s+(.+)$/i.exec(req.headers.authorization ?? '');
  return m?.[1].trim() || undefined;
}

export function clientAddress(req: http.IncomingMessage): string {
  return req.socket.remoteAddress ?? 'unknown';
}
