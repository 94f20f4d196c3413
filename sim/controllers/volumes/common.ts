// Small helpers the volume controllers share.
import type * as k8s from '@kubernetes/client-node';
import { statusCode } from '../runtime/context.js';

/** Thrown to retry a key with the queue's backoff without logging it as a failure. */
export class RetryLater extends Error {}

/** Event subject for an object from an informer (list items carry no kind). */
export function subject(kind: string, apiVersion: string, obj: k8s.KubernetesObject) {
  return { kind, apiVersion, metadata: obj.metadata };
}

/** Run a write; a 404 (already gone) or 409 AlreadyExists counts as done when `ok` lists it. */
export async function tolerate<T>(p: Promise<T>, ok: number[]): Promise<T | undefined> {
  try {
    return await p;
  } catch (err) {
    if (ok.includes(statusCode(err))) return undefined;
    throw err;
  }
}

/** Logs a failed sync; conflicts and deliberate retries are expected and quiet. */
export function logFailure(log: (c: string, m: string) => void, component: string) {
  return (key: string, err: unknown) => {
    if (err instanceof RetryLater) return;
    const code = statusCode(err);
    if (code === 409) return log(component, `${key}: conflict, requeued`);
    log(component, `${key}: ${err instanceof Error ? err.message : String(err)}`);
  };
}

export function uniqueVolumePrefix(driver: string): string {
  return `kubernetes.io/csi/${driver}^`;
}
