// Calls validating admission webhooks over HTTPS exactly as kube-apiserver does:
// AdmissionReview v1 in and out, the caBundle as the only trusted CA, the webhook's
// timeout, failurePolicy on errors, and the real error shapes and wording; with the client
// certificate (or token) that --admission-control-config-file names for the webhook's host.
import { randomUUID } from 'node:crypto';
import https from 'node:https';
import tls from 'node:tls';
import { z } from 'zod';
import { type StatusBody, StatusError, errors } from '../http/errors.js';
import { type KubeObject, qualifiedResource } from '../resources/types.js';
import type { Authorize } from './cel/authorizer.js';
import { type WebhookClientAuth, urlHostPort } from './clientAuth.js';
import {
  type AdmissionAttributes,
  type RuleWithOperations,
  reviewOptions,
  ruleMatches,
  selectorsMatch,
} from './match.js';
import { type MatchCondition, ConditionCache, activation, evaluateConditions } from './matchConditions.js';

export interface Webhook {
  name: string;
  clientConfig: {
    url?: string;
    caBundle?: string;
    service?: { namespace: string; name: string; path?: string; port?: number };
  };
  rules?: RuleWithOperations[];
  failurePolicy?: 'Ignore' | 'Fail';
  sideEffects?: string;
  timeoutSeconds?: number;
  namespaceSelector?: any;
  objectSelector?: any;
  matchConditions?: MatchCondition[];
}

export interface WebhookDeps {
  configurations(): KubeObject[];
  namespaceLabels(name: string): Record<string, string> | undefined;
  /** "name.namespace.svc" -> "host:port" for service references */
  serviceHosts: Record<string, string>;
  /** the credentials to present, by webhook host (an AdmissionConfiguration's kubeconfig) */
  clientAuth?: () => WebhookClientAuth | undefined;
}

/** Warnings from webhooks, passed to the client as Warning headers. */
export type Warnings = string[];

class CallFailure extends Error {}

/**
 * kube-apiserver keeps its connections to a webhook alive (Go's transport pools them per
 * host and TLS config); so does this one: Node's agent pools by host, port, servername and
 * CA. Idle sockets are unref'd and so never hold the process open.
 */
const keepAlive = new https.Agent({ keepAlive: true, maxSockets: 64 });

/** a reused idle socket the webhook had already closed: nothing reached it, so try again once */
const staleSocket = (e: NodeJS.ErrnoException, reused: boolean) =>
  reused && (e.code === 'ECONNRESET' || e.code === 'EPIPE');

/** NewForbidden's subject: `pods "name"`, or the resource alone when the request names none */
function forbiddenSubject(a: AdmissionAttributes): string {
  return a.name ? `${qualifiedResource(a.resource)} "${a.name}"` : qualifiedResource(a.resource);
}

export class WebhookAdmission {
  private readonly conditions = new ConditionCache();
  /** the cluster's authorizer, for matchConditions' `authorizer` (set once auth exists) */
  authorize?: Authorize;

  constructor(private readonly deps: WebhookDeps) {}

  /**
   * The webhooks to call, in configuration order. Throws the 403 kube-apiserver answers
   * when a matchCondition of a failurePolicy Fail webhook cannot be evaluated.
   */
  matching(a: AdmissionAttributes): Webhook[] {
    const out: Webhook[] = [];
    let vars: ReturnType<typeof activation> | undefined;
    const lazyVars = () => {
      vars ??= activation(a, this.authorize);
      return vars;
    };
    for (const cfg of this.deps.configurations()) {
      const hooks = ((cfg as any).webhooks ?? []) as Webhook[];
      hooks.forEach((w, i) => {
        if (!(w.rules ?? []).some((r) => ruleMatches(r, a))) return;
        const nsLabels = a.namespace ? this.deps.namespaceLabels(a.namespace) : undefined;
        if (!selectorsMatch(w, a, nsLabels)) return;
        if (w.matchConditions?.length) {
          const outcome = evaluateConditions(this.conditions.conditions(cfg, i), lazyVars, w.failurePolicy);
          if (outcome.error !== undefined)
            throw errors.forbidden(
              `${forbiddenSubject(a)} is forbidden: ${outcome.error}`,
              a.resource,
              a.name,
            );
          if (!outcome.call) return;
        }
        out.push(w);
      });
    }
    return out;
  }

  /** Resolves with warnings when every matching webhook allows; throws a StatusError otherwise. */
  async validate(a: AdmissionAttributes): Promise<Warnings> {
    const hooks = this.matching(a);
    if (hooks.length === 0) return [];
    const results = await Promise.all(
      hooks.map((w) =>
        this.callOne(w, a).then(
          (r) => r,
          (e: unknown) => e,
        ),
      ),
    );
    const warnings: string[] = [];
    for (const r of results) {
      if (r instanceof Error) throw r;
      warnings.push(...(r as string[]));
    }
    return warnings;
  }

  private async callOne(w: Webhook, a: AdmissionAttributes): Promise<string[]> {
    if (a.dryRun && !['None', 'NoneOnDryRun'].includes(w.sideEffects ?? '')) {
      throw new StatusError(400, 'BadRequest', `admission webhook "${w.name}" does not support dry run`);
    }
    const review = buildReview(a);
    let response: any;
    try {
      response = await this.post(w, review);
    } catch (e) {
      if (!(e instanceof CallFailure)) throw e;
      if (w.failurePolicy === 'Ignore') return [];
      throw errors.internal(`failed calling webhook "${w.name}": ${e.message}`);
    }
    if (response.allowed) return Array.isArray(response.warnings) ? response.warnings : [];
    throw denial(w.name, response.status);
  }

  private target(w: Webhook, timeout: number) {
    const cc = w.clientConfig;
    let url: URL;
    let connectTo: string | undefined;
    if (cc.url) url = new URL(cc.url);
    else {
      const s = cc.service!;
      const host = `${s.name}.${s.namespace}.svc`;
      url = new URL(`https://${host}:${s.port ?? 443}${s.path ?? ''}`);
      connectTo = this.deps.serviceHosts[host];
    }
    url.searchParams.set('timeout', `${timeout}s`);
    // the name kube-apiserver looks the webhook's credentials up by
    const authTarget = cc.url
      ? urlHostPort(cc.url)
      : `${cc.service!.name}.${cc.service!.namespace}.svc:${cc.service!.port ?? 443}`;
    return { url, connectTo, authTarget };
  }

  private post(w: Webhook, review: object, fresh = false): Promise<any> {
    const timeout = w.timeoutSeconds ?? 10;
    const { url, connectTo, authTarget } = this.target(w, timeout);
    const creds = this.deps.clientAuth?.()?.for(authTarget);
    const shown = `Post "${url.toString()}"`;
    const [host, port] = connectTo ? connectTo.split(':') : [url.hostname, url.port || '443'];
    const ca = w.clientConfig.caBundle
      ? Buffer.from(w.clientConfig.caBundle, 'base64').toString('utf8')
      : undefined;
    const body = JSON.stringify(review);
    return new Promise((resolve, reject) => {
      const fail = (msg: string) => reject(new CallFailure(msg));
      const req = https.request(
        {
          host: host.replace(/^\[|\]$/g, ''),
          port: Number(port),
          servername: /^[\d.]+$/.test(url.hostname) ? undefined : url.hostname,
          path: url.pathname + url.search,
          method: 'POST',
          ca,
          ...(creds?.certPem && creds.keyPem ? { cert: creds.certPem, key: creds.keyPem } : {}),
          headers: {
            'content-type': 'application/json',
            accept: 'application/json',
            'content-length': Buffer.byteLength(body),
            ...(creds?.token ? { authorization: `Bearer ${creds.token}` } : {}),
          },
          // the certificate must name the URL's host, not the address we connect to
          checkServerIdentity: (_h: string, cert: tls.PeerCertificate) =>
            tls.checkServerIdentity(url.hostname.replace(/^\[|\]$/g, ''), cert),
          agent: fresh ? false : keepAlive,
        } as https.RequestOptions,
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c) => chunks.push(c));
          res.on('error', (e) => fail(`failed to call webhook: ${shown}: ${e.message}`));
          res.on('end', () => {
            clearTimeout(timer);
            const text = Buffer.concat(chunks).toString('utf8');
            if (res.statusCode !== 200) {
              return fail(
                `failed to call webhook: an error on the server ("${text.slice(0, 200)}") has prevented the request from succeeding (code ${res.statusCode})`,
              );
            }
            try {
              resolve(parseReviewResponse(text, (review as any).request.uid));
            } catch (e) {
              fail(`received invalid webhook response: ${(e as Error).message}`);
            }
          });
        },
      );
      let timedOut = false;
      const timer = setTimeout(() => {
        timedOut = true;
        req.destroy();
        fail(`failed to call webhook: ${shown}: context deadline exceeded`);
      }, timeout * 1000);
      req.on('error', (e: NodeJS.ErrnoException) => {
        clearTimeout(timer);
        // the deadline already answered; destroying the request is what raised this
        if (timedOut) return;
        if (!fresh && staleSocket(e, req.reusedSocket))
          return void this.post(w, review, true).then(resolve, reject);
        fail(`failed to call webhook: ${shown}: ${describeNetError(e, host, port)}`);
      });
      req.end(body);
    });
  }
}

function describeNetError(e: NodeJS.ErrnoException, host: string, port: string): string {
  if (e.code === 'ECONNREFUSED') return `dial tcp ${host}:${port}: connect: connection refused`;
  if (
    e.code === 'UNABLE_TO_VERIFY_LEAF_SIGNATURE' ||
    e.code === 'SELF_SIGNED_CERT_IN_CHAIN' ||
    e.code === 'DEPTH_ZERO_SELF_SIGNED_CERT'
  ) {
    return 'x509: certificate signed by unknown authority';
  }
  if (e.code === 'ERR_TLS_CERT_ALTNAME_INVALID')
    return `x509: certificate is valid for other names, not ${host}`;
  return e.message;
}

// The webhook's answer is untrusted input: check its shape before acting on it.
const reviewResponse = z.object({
  apiVersion: z.literal('admission.k8s.io/v1', {
    error: (i) =>
      `expected webhook response of admission.k8s.io/v1, Kind=AdmissionReview, got ${String(i.input)}`,
  }),
  kind: z.literal('AdmissionReview', {
    error: (i) => `expected Kind=AdmissionReview, got ${String(i.input)}`,
  }),
  response: z.object(
    {
      uid: z.string({ error: 'response.uid is missing' }),
      allowed: z.boolean({ error: 'response.allowed must be a boolean' }),
      status: z
        .object({
          code: z.number().optional(),
          message: z.string().optional(),
          reason: z.string().optional(),
        })
        .passthrough()
        .optional(),
      warnings: z.array(z.string()).optional(),
    },
    { error: 'webhook response was absent' },
  ),
});

function parseReviewResponse(text: string, uid: string) {
  const parsed = reviewResponse.safeParse(JSON.parse(text));
  if (!parsed.success) throw new Error(parsed.error.issues[0]?.message ?? 'malformed AdmissionReview');
  const r = parsed.data.response;
  if (r.uid !== uid) throw new Error(`expected response.uid="${uid}", got "${r.uid}"`);
  return r;
}

function denial(name: string, result: Partial<StatusBody> | undefined): StatusError {
  const deniedBy = `admission webhook "${name}" denied the request`;
  const code = result?.code && result.code >= 400 ? result.code : 400;
  const message = result?.message
    ? `${deniedBy}: ${result.message}`
    : result?.reason
      ? `${deniedBy}: ${result.reason}`
      : `${deniedBy} without explanation`;
  return new StatusError(code, result?.reason ?? '', message, result?.details);
}

export function buildReview(a: AdmissionAttributes) {
  const resource = { group: a.resource.group, version: a.resource.version, resource: a.resource.plural };
  const request: Record<string, unknown> = {
    uid: randomUUID(),
    kind: a.kind,
    resource,
    requestKind: a.kind,
    requestResource: resource,
    operation: a.operation,
    userInfo: a.user,
    object: a.object ?? null,
    oldObject: a.oldObject ?? null,
    dryRun: a.dryRun,
    options: reviewOptions(a),
  };
  // omitempty: a deletecollection item or a generateName CREATE has none
  if (a.name) request.name = a.name;
  if (a.subresource) {
    request.subResource = a.subresource;
    request.requestSubResource = a.subresource;
  }
  if (a.namespace) request.namespace = a.namespace;
  return { apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', request };
}
