// Small HTTP helpers for the gate and the sign-in routes: JSON answers with a length (never
// chunked), bodies read with a limit, and the session cookie.
import type http from 'node:http';
import { serialize as serializeCookie } from 'cookie';
import { cookieValues, sessionCookieName } from '../../lib/auth/cookies.js';

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
  return { name: sessionCookieName(secure, port), secure, maxAgeSeconds };
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

/** The first value of a cookie (the OIDC flow's, sealed: a planted one does not open). */
export function cookieValue(req: http.IncomingMessage, name: string): string | undefined {
  return cookieValues(req.headers.cookie, name)[0] || undefined;
}

/**
 * Set-Cookie lines that clear the session cookie at "/" and at every path above `path`: a
 * cookie planted with a longer Path is among them (a browser sends only those whose Path is a
 * prefix of the request's). Host-only, as the console's own; a __Host- cookie only at "/".
 */
export function clearedCookiesFor(c: CookieSettings, path: string): string[] {
  const paths = ['/'];
  if (!c.name.startsWith('__Host-')) {
    const parts = path.split('/').filter(Boolean).slice(0, 8);
    for (let i = 1; i <= parts.length; i++) {
      const p = `/${parts.slice(0, i).join('/')}`;
      paths.push(p, `${p}/`);
    }
  }
  return paths.map((p) =>
    serializeCookie(c.name, '', { httpOnly: true, sameSite: 'strict', secure: c.secure, path: p, maxAge: 0 }),
  );
}

export function bearerToken(req: http.IncomingMessage): string | undefined {
  const m = /^Bearer\s+(.+)$/i.exec(req.headers.authorization ?? '');
  return m?.[1].trim() || undefined;
}
