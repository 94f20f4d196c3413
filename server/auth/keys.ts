// The install's keys: the session key (seals session records at rest and MACs the session
// cookie, lib/auth/sealedRecord.ts) and the audit key (seals the Events Palisade writes for
// people's actions, lib/guard/auditSeal.ts). Replicas share them through one Secret
// (server.session.store.keySecret, default palisade-session-key in Palisade's own namespace),
// made by whichever replica finds it missing, with random keys; when two make it at once the
// API server keeps the first (409) and the other reads the winner's. Palisade needs `get` on it
// by name and `create` in its namespace, never `update`. A single process without
// a shared session store makes its own keys at start: its sessions live in its memory anyway.
// Neither key ever leaves the server or reaches a log.
import { hkdfSync, randomBytes } from 'node:crypto';
import type * as k8s from '@kubernetes/client-node';
import { SESSION_KEY_BYTES } from '../../lib/auth/sealedRecord.js';
import type { Logger } from '../log.js';
import { codeOf } from '../../lib/kube/errorText.js';

export interface InstallKeys {
  session: Buffer;
  audit: Buffer;
}

export interface KeySecretRef {
  namespace: string;
  name: string;
}

export const DEFAULT_KEY_SECRET_NAME = 'palisade-session-key';
const DATA = { session: 'session', audit: 'audit' } as const;
const LABELS = { 'app.kubernetes.io/name': 'palisade', 'app.kubernetes.io/component': 'session-key' };
const TYPE = 'palisade.dev/session-key';

export function processKeys(): InstallKeys {
  return { session: randomBytes(SESSION_KEY_BYTES), audit: randomBytes(SESSION_KEY_BYTES) };
}

const brief = (e: unknown) => (codeOf(e) ? `HTTP ${codeOf(e)}` : ((e as Error)?.message ?? String(e)));

function keyOf(s: k8s.V1Secret, ref: KeySecretRef, name: string): Buffer | undefined {
  const b64 = s.data?.[name];
  if (b64 === undefined) return undefined;
  const key = Buffer.from(b64, 'base64');
  if (key.length !== SESSION_KEY_BYTES)
    throw new Error(
      `Secret ${ref.namespace}/${ref.name}: key "${name}" is ${key.length} bytes, not ${SESSION_KEY_BYTES}`,
    );
  return key;
}

/**
 * The keys in the Secret, or made there with random ones when it is missing (a create: a
 * concurrent replica's keys win with 409 and are read back). A Secret made by hand may hold
 * the session key only: the audit key is then derived from it (HKDF, its own label), so
 * Palisade never needs to write a Secret that exists.
 */
export async function keysFromSecret(
  core: k8s.CoreV1Api,
  ref: KeySecretRef,
  log: Logger,
): Promise<InstallKeys> {
  for (let attempt = 0; attempt < 6; attempt++) {
    let found: k8s.V1Secret | undefined;
    try {
      found = await core.readNamespacedSecret(ref);
    } catch (e) {
      if (codeOf(e) !== 404)
        throw new Error(`reading the session key Secret ${ref.namespace}/${ref.name} failed: ${brief(e)}`);
    }
    if (found) {
      const session = keyOf(found, ref, DATA.session);
      if (!session)
        throw new Error(
          `Secret ${ref.namespace}/${ref.name} has no key "${DATA.session}" (${SESSION_KEY_BYTES} random bytes)`,
        );
      const audit =
        keyOf(found, ref, DATA.audit) ??
        Buffer.from(hkdfSync('sha256', session, 'palisade', 'palisade audit seal v1', SESSION_KEY_BYTES));
      return { session, audit };
    }
    const keys = processKeys();
    try {
      await core.createNamespacedSecret({
        namespace: ref.namespace,
        body: {
          metadata: { name: ref.name, namespace: ref.namespace, labels: LABELS },
          type: TYPE,
          data: {
            [DATA.session]: keys.session.toString('base64'),
            [DATA.audit]: keys.audit.toString('base64'),
          },
        },
      });
      log.info({ secret: `${ref.namespace}/${ref.name}` }, 'session key Secret created');
      return keys;
    } catch (e) {
      // another replica made it first: read its keys on the next round
      if (codeOf(e) === 409) continue;
      throw new Error(`creating the session key Secret ${ref.namespace}/${ref.name} failed: ${brief(e)}`);
    }
  }
  throw new Error(`the session key Secret ${ref.namespace}/${ref.name} could not be read or made`);
}
