// Who may call the admission webhook: the API servers, recognised by the TLS client
// certificate they present (mutual TLS). At start, the trusted CAs come from
// protection.webhook.clientAuth.caFile, else from each cell's kubeconfig (the CA of its
// cluster); on every connection, the certificate's chain must end at one of them and its
// subject CN or one of its DNS SANs must be an allowed name. Pure but for reading files at
// start: the listener (webhook.ts) applies the verdicts.
import 'reflect-metadata';
import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type * as k8s from '@kubernetes/client-node';
import * as x509 from '@peculiar/x509';
import { StartupError } from '../kube/kubeconfig.js';

export const DEFAULT_ALLOWED_NAMES = ['kube-apiserver-webhook-client'];

const FIELD = 'protection.webhook.clientAuth';

export interface ClientAuthConfig {
  required: boolean;
  caFile?: string;
  allowedNames: string[];
}

/** The trust in force: every CA (for the TLS layer) and, per cell, the fingerprints it accepts. */
export type ClientTrust =
  | { required: false }
  | {
      required: true;
      /** PEM of every trusted CA, the TLS server's `ca` */
      caPems: string[];
      /** cell ID -> SHA-256 fingerprints of the CAs whose certificates may speak for that cell */
      cellCas: Map<string, Set<string>>;
      allowedNames: string[];
      /** where the trust came from, for the start-up log */
      source: string;
    };

export interface CellTrustInput {
  id: string;
  context: string;
  kc: k8s.KubeConfig;
}

/** The certificates of a PEM bundle; throws (with `where`) when there are none or one is not X.509. */
export function certificatesOf(pem: string, where: string): X509Certificate[] {
  const blocks = pem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
  if (blocks.length === 0) throw new StartupError(`${where}: no PEM certificate in it`);
  return blocks.map((b, i) => {
    try {
      return new X509Certificate(b);
    } catch (e) {
      throw new StartupError(`${where}: certificate ${i + 1} is not valid X.509: ${(e as Error).message}`);
    }
  });
}

function readPem(path: string, where: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    const why =
      code === 'ENOENT'
        ? 'no such file'
        : code === 'EACCES'
          ? 'permission denied'
          : code === 'EISDIR'
            ? 'it is a directory'
            : (e as Error).message;
    throw new StartupError(`${where}: cannot read ${path}: ${why}`);
  }
}

/** The CA bundle of a kubeconfig's current cluster (certificate-authority-data, else -authority). */
export function kubeconfigCaPem(kc: k8s.KubeConfig, where: string): string | undefined {
  const cluster = kc.getCurrentCluster();
  if (cluster?.caData) return Buffer.from(cluster.caData, 'base64').toString('utf8');
  if (cluster?.caFile) return readPem(cluster.caFile, `${where}: certificate-authority`);
  return undefined;
}

const fingerprint = (c: X509Certificate) => c.fingerprint256;

/**
 * What the webhook trusts, resolved once at start. Throws a StartupError naming the field
 * (and the context) before anything has started when the trust cannot be had.
 */
export function resolveClientTrust(cfg: ClientAuthConfig, cells: CellTrustInput[]): ClientTrust {
  if (!cfg.required) return { required: false };
  if (cfg.allowedNames.length === 0)
    throw new StartupError(`${FIELD}.allowedNames: must name at least one caller`);
  const caPems = new Map<string, string>();
  const cellCas = new Map<string, Set<string>>();
  if (cfg.caFile) {
    const path = resolve(cfg.caFile);
    const certs = certificatesOf(readPem(path, `${FIELD}.caFile`), `${FIELD}.caFile ${path}`);
    for (const c of certs) caPems.set(fingerprint(c), c.toString());
    for (const cell of cells) cellCas.set(cell.id, new Set(certs.map(fingerprint)));
    return {
      required: true,
      caPems: [...caPems.values()],
      cellCas,
      allowedNames: cfg.allowedNames,
      source: path,
    };
  }
  for (const cell of cells) {
    const where = `${FIELD}.caFile: not given, and the kubeconfig of context "${cell.context}" (cell "${cell.id}")`;
    const pem = kubeconfigCaPem(cell.kc, where);
    if (!pem)
      throw new StartupError(
        `${FIELD}.caFile: not given, and the kubeconfig of context "${cell.context}" (cell "${cell.id}") has no certificate-authority to trust the API server's client certificate by: set ${FIELD}.caFile (or ${FIELD}.required: false)`,
      );
    const certs = certificatesOf(pem, `${where} certificate-authority`);
    for (const c of certs) caPems.set(fingerprint(c), c.toString());
    cellCas.set(cell.id, new Set(certs.map(fingerprint)));
  }
  return {
    required: true,
    caPems: [...caPems.values()],
    cellCas,
    allowedNames: cfg.allowedNames,
    source: 'the CA of each cell’s kubeconfig',
  };
}

/** The names a client certificate speaks for: its subject CNs and DNS subject alternative names. */
export function certificateNames(der: Uint8Array): { cn: string[]; dns: string[] } {
  const cert = new x509.X509Certificate(Uint8Array.from(der));
  const san = cert.getExtension(x509.SubjectAlternativeNameExtension);
  return {
    cn: cert.subjectName.getField('CN'),
    dns: san?.names.items.filter((n) => n.type === 'dns').map((n) => n.value) ?? [],
  };
}

/** The first of the certificate's names (CN first, then DNS SANs) that is allowed, exactly as written. */
export function allowedName(names: { cn: string[]; dns: string[] }, allowed: readonly string[]) {
  return [...names.cn, ...names.dns].find((n) => allowed.includes(n));
}

/** How a caller is shown in refusals: its CN, else its first DNS name, else that it has none. */
export const shownName = (names: { cn: string[]; dns: string[] }) =>
  names.cn[0] !== undefined
    ? `CN=${names.cn[0]}`
    : names.dns[0] !== undefined
      ? `DNS:${names.dns[0]}`
      : '(no CN, no DNS name)';

export type RefusalReason = 'no-certificate' | 'untrusted-certificate' | 'name-not-allowed' | 'wrong-cell';

/** The peer certificate as node:tls gives it with getPeerCertificate(true). */
export interface PeerCertificate {
  raw?: Buffer;
  fingerprint256?: string;
  issuerCertificate?: PeerCertificate;
}

/** Fingerprints along the chain node:tls built (leaf to the trust anchor). */
export function chainFingerprints(peer: PeerCertificate): string[] {
  const out: string[] = [];
  const seen = new Set<PeerCertificate>();
  for (let c: PeerCertificate | undefined = peer; c && !seen.has(c); c = c.issuerCertificate) {
    seen.add(c);
    if (c.fingerprint256) out.push(c.fingerprint256);
  }
  return out;
}

/** The caller as established by the TLS layer, before any HTTP is read. */
export type Caller =
  | { ok: true; name: string; chain: string[] }
  | { ok: false; reason: RefusalReason; status?: 403; detail: string };

/**
 * Judge a TLS connection: `authorized` and `authorizationError` as node:tls reports them
 * (verification against the trusted CAs), the peer certificate, and the allowed names.
 */
export function judgeCaller(
  authorized: boolean,
  authorizationError: string | undefined,
  peer: PeerCertificate | undefined,
  allowed: readonly string[],
): Caller {
  if (!peer?.raw) return { ok: false, reason: 'no-certificate', detail: 'no client certificate' };
  if (!authorized)
    return {
      ok: false,
      reason: 'untrusted-certificate',
      detail: `client certificate not trusted (${authorizationError ?? 'unverified'})`,
    };
  let names: { cn: string[]; dns: string[] };
  try {
    names = certificateNames(peer.raw);
  } catch (e) {
    return {
      ok: false,
      reason: 'untrusted-certificate',
      detail: `client certificate unreadable: ${(e as Error).message}`,
    };
  }
  const name = allowedName(names, allowed);
  if (name === undefined)
    return {
      ok: false,
      reason: 'name-not-allowed',
      status: 403,
      detail: `client certificate ${shownName(names)} is not allowed to call this webhook (allowed: ${allowed.join(', ')})`,
    };
  return { ok: true, name, chain: chainFingerprints(peer) };
}

/** May this (accepted) caller speak for this cell: does its chain end at one of the cell's CAs? */
export function callerMaySpeakFor(caller: { chain: string[] }, cas: ReadonlySet<string> | undefined) {
  return !!cas && caller.chain.some((f) => cas.has(f));
}
