// The install's keys: the session key (seals session records at rest and MACs the session
// cookie, lib/auth/sealedRecord.ts) and the audit key (seals the Events Palisade writes for
// people's actions, lib/guard/auditSeal.ts). Replicas share them through one Secret
// (server.session.store.keySecret, default palisade-session-key in Palisade's own namespace),
// made by whichever replica finds it missing, with random keys; when two make it at once the
// API server keeps the first (409) and the other reads the winner's. A single process without
// a shared session store makes its own keys at start: its sessions live in its memory anyway.
// Neither key ever leaves the server or reaches a log.
import { randomBytes } from 'node:crypto';
import type * as k8s from '@kubernetes/client-node';
import { SESSION_KEY_BYTES } from '../../lib/auth/sealedRecord.js';
import type { Logger } from '../log.js';

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

const codeOf = (e: unknown) => (e as { code?: number } | undefined)?.code;
const brief = (e: unknown) => (codeOf(e) ? `HTTP ${codeOf(e)}` : ((e as Error)?.message ?? String(e)));

function keysOf(s: k8s.V1Secret, ref: KeySecretRef): Partial<InstallKeys> {
  const out: Partial<InstallKeys> = {};
  for (const k of ['session', 'audit'] as const) {
    const b64 = s.data?.[DATA[k]];
    if (b64 === undefined) continue;
    const key = Buffer.from(b64, 'base64');
    if (key.length !== SESSION_KEY_BYTES)
      throw new Error(
        `Secret ${ref.namespace}/${ref.name}: key "${DATA[k]}" is ${key.length} bytes, not ${SESSION_KEY_BYTES}`,
      );
    out[k] = key;
  }
  return out;
}

const complete = (k: Partial<InstallKeys>): k is InstallKeys => !!k.session && !!k.audit;

/**
 * The keys in the Secret, made (or completed) with random ones when missing. Every write is
 * conditional: a concurrent replica's keys win and are read back.
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
    const have = found ? keysOf(found, ref) : {};
    if (complete(have)) return have;
    const fresh = processKeys();
    const keys = { session: have.session ?? fresh.session, audit: have.audit ?? fresh.audit };
    const body: k8s.V1Secret = {
      metadata: {
        name: ref.name,
        namespace: ref.namespace,
        labels: LABELS,
        ...(found ? { resourceVersion: found.metadata?.resourceVersion } : {}),
      },
      type: found?.type ?? TYPE,
      data: {
        ...found?.data,
        [DATA.session]: keys.session.toString('base64'),
        [DATA.audit]: keys.audit.toString('base64'),
      },
    };
    try {
      if (found) await core.replaceNamespacedSecret({ ...ref, body });
      else await core.createNamespacedSecret({ namespace: ref.namespace, body });
      log.info(
        { secret: `${ref.namespace}/${ref.name}` },
        found ? 'session key Secret completed' : 'session key Secret created',
      );
      return keys;
    } catch (e) {
      // another replica wrote first: read its keys on the next round
      if (codeOf(e) === 409) continue;
      throw new Error(`writing the session key Secret ${ref.namespace}/${ref.name} failed: ${brief(e)}`);
    }
  }
  throw new Error(`the session key Secret ${ref.namespace}/${ref.name} kept changing under every write`);
}
