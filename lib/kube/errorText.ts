// One line for a failed Kubernetes call. client-node's ApiException message is several lines
// ("HTTP-Code: 403 / Message: Unknown API Status Code! / Body: ... / Headers: ..."); what an
// operator needs is the code and the API server's own message from the Status body.

interface MaybeApiError {
  code?: unknown;
  body?: unknown;
  message?: unknown;
}

function statusMessage(body: unknown): string | undefined {
  let b = body;
  if (typeof body === 'string') {
    try {
      b = JSON.parse(body);
    } catch {
      return body.trim() || undefined;
    }
  }
  const m = (b as { message?: unknown } | null)?.message;
  return typeof m === 'string' && m ? m : undefined;
}

export function errorText(e: unknown): string {
  const x = (e ?? {}) as MaybeApiError;
  const fromBody = x.body !== undefined ? statusMessage(x.body) : undefined;
  if (fromBody) return typeof x.code === 'number' ? `HTTP ${x.code}: ${fromBody}` : fromBody;
  const m = typeof x.message === 'string' ? x.message : String(e);
  return m.split('\n')[0];
}

/** A failed Kubernetes call's HTTP code: 409 (someone wrote first) and 404 are the ones callers branch on. */
export const codeOf = (e: unknown): number | undefined => {
  const c = (e as MaybeApiError | null)?.code;
  return typeof c === 'number' ? c : undefined;
};
export const isConflict = (e: unknown) => codeOf(e) === 409;
export const isNotFound = (e: unknown) => codeOf(e) === 404;
