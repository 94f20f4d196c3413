// Sessions at rest. A shared session's record (who the person is, their bearer token or OIDC
// refresh token) is kept in a Kubernetes Secret; anyone who may read Secrets there would read
// those tokens. So the record is sealed with AES-256-GCM under a key only sessions use (the
// install's session key, kept in its own Secret: server.session.store.keySecret), with the
// Secret's name as associated data, so a record copied into another session's Secret does not
// open. The same key, through HKDF, gives the session cookie's MAC key (lib/auth/cookies.ts).
// Pure: node:crypto only.
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

/** byte 0 of a sealed record: the format (a plain JSON record, from before, starts with "{") */
const VERSION = 2;
const IV = 12;
const TAG = 16;

export const SESSION_KEY_BYTES = 32;

export interface SessionKeys {
  /** seals session records */
  records: Buffer;
  /** MACs the session cookie's value */
  cookie: Buffer;
}

const derive = (key: Buffer, info: string) => Buffer.from(hkdfSync('sha256', key, 'palisade', info, 32));

/** The keys sessions use, from the install's 32-byte session key. */
export function sessionKeys(key: Buffer): SessionKeys {
  if (key.length !== SESSION_KEY_BYTES)
    throw new Error(`the session key must be ${SESSION_KEY_BYTES} bytes, not ${key.length}`);
  return {
    records: derive(key, 'palisade session records v2'),
    cookie: derive(key, 'palisade session cookie v1'),
  };
}

const aad = (name: string) => Buffer.from(`palisade session|${name}`);

/** The record's bytes sealed for the Secret named `name`: version | iv | ciphertext | tag. */
export function sealRecord(plain: string, name: string, key: Buffer): Buffer {
  const iv = randomBytes(IV);
  const c = createCipheriv('aes-256-gcm', key, iv);
  c.setAAD(aad(name));
  const body = Buffer.concat([c.update(plain, 'utf8'), c.final()]);
  return Buffer.concat([Buffer.from([VERSION]), iv, body, c.getAuthTag()]);
}

export type Opened =
  | { ok: true; text: string }
  /** plaintext: a record written before sessions were sealed (to be deleted, never used) */
  | { ok: false; why: 'plaintext' | 'unreadable' };

/** The record sealed for `name` under `key`, or why it cannot be used. */
export function openRecord(data: Buffer, name: string, key: Buffer): Opened {
  if (data.length > 0 && data[0] === '{'.charCodeAt(0)) return { ok: false, why: 'plaintext' };
  if (data.length < 1 + IV + TAG || data[0] !== VERSION) return { ok: false, why: 'unreadable' };
  try {
    const d = createDecipheriv('aes-256-gcm', key, data.subarray(1, 1 + IV));
    d.setAAD(aad(name));
    d.setAuthTag(data.subarray(data.length - TAG));
    const text = Buffer.concat([d.update(data.subarray(1 + IV, data.length - TAG)), d.final()]).toString(
      'utf8',
    );
    return { ok: true, text };
  } catch {
    return { ok: false, why: 'unreadable' };
  }
}
