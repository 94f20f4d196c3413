// What went wrong talking to the identity provider, in words that name the cause. openid-client
// wraps whatever it did not expect as "something went wrong" and keeps the real error as its
// `cause` (a refused connection, a certificate Node would not trust, the provider's own OAuth
// error such as invalid_grant): the chain is walked and the first cause it knows is named. The
// cause also decides a renewal's fate: a provider that is away (refused, unreachable, timing
// out, a 5xx) may come back, so the session waits for it; one that answers that the grant is
// no longer valid ended the session for good. Pure.

export type OidcCause =
  | 'invalid-grant'
  | 'provider-error'
  | 'connection-refused'
  | 'connection-reset'
  | 'timeout'
  | 'dns'
  | 'tls'
  | 'http'
  | 'other';

export interface OidcProblem {
  cause: OidcCause;
  /** a sentence naming the cause, for the sign-in page and the log */
  words: string;
  /** whether asking again later may work (the provider was away, not refusing) */
  transient: boolean;
}

const TLS_CODES =
  /^(CERT_|DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_(VERIFY|GET)_|ERR_TLS_|ERR_SSL_|EPROTO$|HOSTNAME_MISMATCH|ERR_OSSL_)/;
/** OAuth error codes with which a provider says "try again later" (RFC 6749 4.1.2.1) */
const PROVIDER_BUSY = new Set(['temporarily_unavailable', 'server_error']);

interface Link {
  message?: unknown;
  code?: unknown;
  error?: unknown;
  error_description?: unknown;
  status?: unknown;
  name?: unknown;
  address?: unknown;
  port?: unknown;
  hostname?: unknown;
  cause?: unknown;
  errors?: unknown;
}

function chain(e: unknown): Link[] {
  const out: Link[] = [];
  let cur: unknown = e;
  for (let i = 0; i < 8 && cur && typeof cur === 'object'; i++) {
    out.push(cur as Link);
    const l = cur as Link;
    // an AggregateError (IPv6 then IPv4 both refused): its first error speaks for it
    cur = l.cause ?? (Array.isArray(l.errors) ? l.errors[0] : undefined);
  }
  return out;
}

const str = (v: unknown) => (typeof v === 'string' ? v : undefined);
const where = (l: Link) =>
  str(l.address)
    ? ` (${l.address}${typeof l.port === 'number' ? `:${l.port}` : ''})`
    : str(l.hostname)
      ? ` (${l.hostname})`
      : '';

/** The first cause in the error's chain that is known, in words. */
export function describeOidcError(e: unknown): OidcProblem {
  const links = chain(e);
  for (const l of links) {
    const oauth = str(l.error);
    if (oauth) {
      const desc = str(l.error_description);
      const words = `${oauth}${desc ? `: ${desc}` : ''}`;
      if (oauth === 'invalid_grant') return { cause: 'invalid-grant', words, transient: false };
      return { cause: 'provider-error', words, transient: PROVIDER_BUSY.has(oauth) };
    }
    const code = str(l.code);
    if (code === 'ECONNREFUSED')
      return { cause: 'connection-refused', words: `connection refused${where(l)}`, transient: true };
    if (code === 'ECONNRESET' || code === 'EPIPE' || code === 'UND_ERR_SOCKET' || code === 'UND_ERR_CLOSED')
      return { cause: 'connection-reset', words: `the connection was closed${where(l)}`, transient: true };
    if (
      code === 'ETIMEDOUT' ||
      code === 'UND_ERR_CONNECT_TIMEOUT' ||
      code === 'UND_ERR_HEADERS_TIMEOUT' ||
      code === 'OAUTH_TIMEOUT' ||
      code === 'EHOSTUNREACH' ||
      code === 'ENETUNREACH' ||
      l.name === 'TimeoutError'
    )
      return { cause: 'timeout', words: `no answer in time${where(l)}`, transient: true };
    if (code === 'ENOTFOUND' || code === 'EAI_AGAIN')
      return { cause: 'dns', words: `the name does not resolve${where(l)}`, transient: true };
    if (code && TLS_CODES.test(code))
      return { cause: 'tls', words: `TLS: ${str(l.message) ?? code} (${code})`, transient: true };
  }
  // an answer that was not what OAuth expects: a proxy's or the provider's own HTTP error
  for (const l of links) {
    const status = typeof l.status === 'number' ? l.status : undefined;
    if (status && status >= 400)
      return {
        cause: 'http',
        words: `the provider answered HTTP ${status}`,
        transient: status >= 500 || status === 429,
      };
  }
  const deepest = [...links].reverse().find((l) => str(l.message));
  return { cause: 'other', words: str(deepest?.message) ?? String(e), transient: false };
}
