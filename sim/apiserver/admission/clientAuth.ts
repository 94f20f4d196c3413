// The credentials kube-apiserver presents to admission webhooks, from its
// --admission-control-config-file: an AdmissionConfiguration whose ValidatingAdmissionWebhook
// plugin names a kubeconfig (WebhookAdmissionConfiguration.kubeConfigFile) whose users are
// named by webhook host. The lookup for "host:port" (a URL's host as written, or
// "<svc>.<ns>.svc:<port>"): that exact name; "*.<parent domain>" names, nearest first; then
// both again without the port when it is 443; then "*"; then the kubeconfig's current
// context's user; else nothing.
import { readFile } from 'node:fs/promises';
import { dirname, isAbsolute, resolve } from 'node:path';
import YAML from 'yaml';

export interface ClientCredentials {
  certPem?: string;
  keyPem?: string;
  token?: string;
}

type Obj = Record<string, any>;

export class AdmissionConfigError extends Error {}

/** the kubeconfig user entry for a webhook target, by the matching rules above; pure */
export function resolveClientUser(kubeconfig: Obj, target: string): Obj | undefined {
  const users = new Map<string, Obj>();
  for (const u of kubeconfig.users ?? [])
    if (u && typeof u.name === 'string') users.set(u.name, u.user ?? {});
  const byName = (t: string): Obj | undefined => {
    const exact = users.get(t);
    if (exact) return exact;
    const steps = t.split('.');
    for (let i = 1; i < steps.length; i++) {
      const star = users.get(`*.${steps.slice(i).join('.')}`);
      if (star) return star;
    }
    return undefined;
  };
  const found = byName(target);
  if (found) return found;
  const m = /^(.*):(\d+)$/.exec(target);
  if (m && m[2] === '443') {
    const host = m[1].replace(/^\[(.*)\]$/, '$1');
    const withoutPort = byName(host);
    if (withoutPort) return withoutPort;
  }
  const star = users.get('*');
  if (star) return star;
  const current = (kubeconfig.contexts ?? []).find((c: Obj) => c?.name === kubeconfig['current-context']);
  const userName = current?.context?.user;
  return userName ? users.get(userName) : undefined;
}

/** "host[:port]" of a webhook URL exactly as written (Go's url.Host keeps an explicit :443) */
export function urlHostPort(url: string): string {
  const m = /^[a-z][a-z0-9+.-]*:\/\/([^/?#]*)/i.exec(url);
  const authority = m ? m[1] : '';
  return authority.slice(authority.lastIndexOf('@') + 1);
}

async function readMaybe(data: unknown, file: unknown, base: string): Promise<string | undefined> {
  if (typeof data === 'string' && data) return Buffer.from(data, 'base64').toString('utf8');
  if (typeof file === 'string' && file)
    return readFile(isAbsolute(file) ? file : resolve(base, file), 'utf8');
  return undefined;
}

export class WebhookClientAuth {
  private readonly cache = new Map<string, ClientCredentials | undefined>();

  constructor(
    private readonly kubeconfig: Obj,
    private readonly kubeconfigDir: string,
  ) {}

  /** read an AdmissionConfiguration file (undefined when it configures no webhook kubeconfig) */
  static async load(configFile: string): Promise<WebhookClientAuth | undefined> {
    const base = dirname(configFile);
    const doc = YAML.parse(await readFile(configFile, 'utf8')) as Obj;
    if (doc?.kind !== 'AdmissionConfiguration')
      throw new AdmissionConfigError(`${configFile}: not an AdmissionConfiguration (kind ${doc?.kind})`);
    const plugin = (doc.plugins ?? []).find((p: Obj) => p?.name === 'ValidatingAdmissionWebhook');
    if (!plugin) return undefined;
    let cfg: Obj | undefined = plugin.configuration;
    if (!cfg && typeof plugin.path === 'string') {
      const p = isAbsolute(plugin.path) ? plugin.path : resolve(base, plugin.path);
      cfg = YAML.parse(await readFile(p, 'utf8'));
    }
    if (!cfg?.kubeConfigFile) return undefined;
    if (!['WebhookAdmissionConfiguration', 'WebhookAdmission'].includes(cfg.kind))
      throw new AdmissionConfigError(`${configFile}: unexpected webhook admission kind ${cfg.kind}`);
    const kcPath = isAbsolute(cfg.kubeConfigFile) ? cfg.kubeConfigFile : resolve(base, cfg.kubeConfigFile);
    const kubeconfig = YAML.parse(await readFile(kcPath, 'utf8')) as Obj;
    const auth = new WebhookClientAuth(kubeconfig, dirname(kcPath));
    // read every credential now: a request must not wait on the disk
    for (const u of kubeconfig.users ?? []) await auth.credentials(u.name);
    return auth;
  }

  private async credentials(name: string) {
    const user = (this.kubeconfig.users ?? []).find((u: Obj) => u?.name === name)?.user ?? {};
    const creds: ClientCredentials = {
      certPem: await readMaybe(
        user['client-certificate-data'],
        user['client-certificate'],
        this.kubeconfigDir,
      ),
      keyPem: await readMaybe(user['client-key-data'], user['client-key'], this.kubeconfigDir),
      token: typeof user.token === 'string' && user.token ? user.token : undefined,
    };
    this.cache.set(name, creds);
  }

  /** what to present to a webhook at this target ("host:port" or "host") */
  for(target: string): ClientCredentials | undefined {
    const user = resolveClientUser(this.kubeconfig, target);
    if (!user) return undefined;
    const name = (this.kubeconfig.users ?? []).find((u: Obj) => u?.user === user)?.name;
    return name === undefined ? undefined : this.cache.get(name);
  }
}
