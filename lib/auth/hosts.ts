// Which Host headers the console answers. A browser sends the name it resolved, so a page on
// rebind.attacker.example that resolves to 127.0.0.1 reaches the console with that name in
// Host: refusing names the console was not told about is what stops DNS rebinding (kubectl
// proxy and Jupyter do the same). Loopback names on the listening port are always allowed.

export interface HostRules {
  /** the port the console listens on */
  port: number;
  /** palisade.yaml server.allowedHosts: "name" (any port), "name:port", "*.domain" (subdomains) */
  allowed: readonly string[];
  /** server.publicURL, when the console sits behind an Ingress or proxy */
  publicURL?: string;
}

export interface HostPort {
  name: string;
  port?: number;
}

const LOOPBACK = ['127.0.0.1', 'localhost', '[::1]'];

/** "Name:8080" -> {name: "name", port: 8080}; "[::1]:80" keeps its brackets; undefined if malformed. */
export function parseHost(value: string | undefined): HostPort | undefined {
  if (!value) return undefined;
  const v = value.trim().toLowerCase().replace(/\.$/, '');
  const m = /^(\[[0-9a-f:.]+\]|[a-z0-9*]([a-z0-9.*-]*[a-z0-9])?)(?::(\d{1,5}))?$/.exec(v);
  if (!m) return undefined;
  const name = m[1].replace(/\.$/, '');
  if (m[3] === undefined) return { name };
  const port = Number(m[3]);
  return port > 0 && port < 65536 ? { name, port } : undefined;
}

function defaultPort(protocol: string) {
  return protocol === 'https:' ? 443 : 80;
}

/** The public URL as a host rule: its name on its port (the scheme's default when none is given). */
function publicHost(url: string | undefined): HostPort | undefined {
  if (!url) return undefined;
  const u = new URL(url);
  return { name: u.hostname.toLowerCase(), port: u.port ? Number(u.port) : defaultPort(u.protocol) };
}

function matches(rule: string, host: HostPort): boolean {
  const r = parseHost(rule);
  if (!r) return false;
  if (r.port !== undefined && r.port !== host.port) return false;
  if (r.name.startsWith('*.'))
    return host.name.endsWith(r.name.slice(1)) && host.name.length > r.name.length - 1;
  return r.name === host.name;
}

/** Whether a request's Host header names this console. A Host without a port means port 80. */
export function hostAllowed(header: string | undefined, rules: HostRules): boolean {
  const parsed = parseHost(header);
  if (!parsed || parsed.name.includes('*')) return false;
  const host = { name: parsed.name, port: parsed.port ?? 80 };
  if (LOOPBACK.includes(host.name) && host.port === rules.port) return true;
  const pub = publicHost(rules.publicURL);
  if (pub && pub.name === host.name && (parsed.port ?? pub.port) === pub.port) return true;
  return rules.allowed.some((r) => matches(r, host));
}

/** The origins that are this console's own for a request that passed the Host check. */
export function ownOrigins(header: string | undefined, rules: Pick<HostRules, 'publicURL'>): string[] {
  const out: string[] = [];
  const host = header?.trim().toLowerCase();
  if (host) out.push(`http://${host}`, `https://${host}`);
  if (rules.publicURL) out.push(new URL(rules.publicURL).origin);
  return out;
}

/** An Origin header normalised the way browsers serialise it (scheme://host[:port], default port dropped). */
export function normaliseOrigin(origin: string): string | undefined {
  if (origin === 'null') return undefined;
  try {
    const u = new URL(origin);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') return undefined;
    return u.origin;
  } catch {
    return undefined;
  }
}

export function originIsOwn(origin: string, own: readonly string[]): boolean {
  const o = normaliseOrigin(origin);
  if (!o) return false;
  return own.some((x) => normaliseOrigin(x) === o);
}
