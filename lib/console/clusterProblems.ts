// Turns the raw errors informers report (client-node's "HTTP-Code: 401\nMessage: …", Node's
// "connect ECONNREFUSED …") into what an SRE needs to read: what is wrong and where to look.
// The console shows it as a banner instead of a map that waits for ever.
import type { ClusterHealth } from './protocol.js';

export type ProblemKind = 'unauthorized' | 'forbidden' | 'unreachable' | 'tls' | 'not-found' | 'other';

export interface Explained {
  kind: ProblemKind;
  text: string;
}

const UNREACHABLE =
  /ECONNREFUSED|ENOTFOUND|EHOSTUNREACH|ENETUNREACH|ETIMEDOUT|EAI_AGAIN|ECONNRESET|socket hang up|went silent/;
const TLS = /certificate|CERT_|self[- ]signed|SSL|TLS/i;

function firstLine(s: string) {
  return s.split('\n')[0].trim();
}

export function explainInformerError(raw: string, resource = 'this resource'): Explained {
  const code =
    raw.match(/HTTP-Code: (\d{3})/)?.[1] ??
    raw.match(/\b(401|403|404)\b (Unauthorized|Forbidden|Not Found)/)?.[1];
  if (code === '401')
    return {
      kind: 'unauthorized',
      text: "401 Unauthorized: the API server rejected the kubeconfig's credentials (wrong or expired token or certificate)",
    };
  if (code === '403')
    return {
      kind: 'forbidden',
      text: `403 Forbidden: the context's user may not list and watch ${resource}; grant it in RBAC`,
    };
  if (code === '404')
    return { kind: 'not-found', text: `404 Not Found: the API server does not serve ${resource}` };
  if (TLS.test(raw))
    return {
      kind: 'tls',
      text: `TLS failed: ${firstLine(raw)} (does the kubeconfig's CA match the API server?)`,
    };
  const unreachable = raw.match(UNREACHABLE);
  if (unreachable) {
    const url = raw.match(/https?:\/\/[^/\s]+/)?.[0];
    return {
      kind: 'unreachable',
      text: `API server unreachable${url ? ` at ${url}` : ''}: ${unreachable[0]}`,
    };
  }
  if (code)
    return { kind: 'other', text: `HTTP ${code}: ${firstLine(raw.replace(/^HTTP-Code: \d+\n?/, ''))}` };
  return { kind: 'other', text: firstLine(raw) };
}

export interface ClusterProblem {
  kinds: string[];
  text: string;
}

/** A cluster whose informers cannot sync: one sentence for the banner, or undefined when fine. */
export function clusterProblem(
  health: Pick<ClusterHealth, 'informers'> | undefined,
): ClusterProblem | undefined {
  const failing = (health?.informers ?? []).filter((i) => !i.synced && i.lastError);
  if (failing.length === 0) return undefined;
  // the same cause usually hits every informer: name it once, with the kinds it hit
  const byText = new Map<string, string[]>();
  for (const i of failing) {
    const text = i.lastError!;
    byText.set(text, [...(byText.get(text) ?? []), i.kind]);
  }
  const [text, kinds] = [...byText].sort((a, b) => b[1].length - a[1].length)[0];
  return {
    kinds: failing.map((i) => i.kind),
    text:
      byText.size === 1
        ? text
        : `${text} (and ${byText.size - 1} other error${byText.size > 2 ? 's' : ''}; ${kinds.length} of ${failing.length} informers)`,
  };
}
