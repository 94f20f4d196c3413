// Self-managed webhook certificates: a loop on the controller runtime (the leader of the core
// cluster only) with one key, the serving Secret. Each pass reads the Secret live, makes every
// webhook configuration's caBundle equal its ca.crt (certs/bundles.ts) and stamps the Secret
// once they all are, then asks the rotation rule (lib/pki/rotation.ts) what comes next —
// make, reissue the serving certificate, add a CA, drop the old one, or wait — and writes it
// with the resourceVersion it read (a 409 is looked at again). Every replica reloads from the
// Secret (certs/reload.ts); this loop only decides what the Secret holds.
import { X509Certificate } from 'node:crypto';
import * as k8s from '@kubernetes/client-node';
import { fingerprintOf, joinBundle, splitBundle } from '../../../lib/pki/bundle.js';
import { loadCertificateAuthority } from '../../../lib/pki/certificates.js';
import {
  decideRotation,
  type RotationDecision,
  type RotationPolicy,
  type WaitReason,
} from '../../../lib/pki/rotation.js';
import { errorText, isConflict } from '../../../lib/kube/errorText.js';
import { type Result, requeueAfter } from '../../../lib/runtime/result.js';
import { component, type Logger } from '../../log.js';
import { Loop } from '../../runtime/loop.js';
import { singletonKey } from '../../../lib/runtime/keys.js';
import type { Term } from '../../runtime/gate.js';
import {
  BUNDLE_SYNCED,
  bundleHash,
  CA_KEY,
  contentsOf,
  freshContents,
  issueServing,
  newCa,
  pairOf,
  readSecret,
  type SecretRef,
  secretContents,
  secretFacts,
  SERVING_WRITTEN_AT,
} from '../../webhook/servingSecret.js';
import { type BundleTarget, syncBundles } from './bundles.js';
import type { CertificateMetrics } from './metrics.js';

export type CertificateReason = WaitReason | 'ok' | 'written' | 'conflict' | 'configuration-missing';

const KEY = 'serving';
const SERVING_KEY = singletonKey(KEY);
/** looked at this often even when nothing is due: a caBundle someone else rewrote is put back */
const RESYNC_MS = 60_000;
/** a configuration that does not exist yet (register: false, before the chart made it) */
const MISSING_RETRY_MS = 10_000;

const mergePatch = k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch);

export class CertificateController {
  readonly loop: Loop<typeof KEY, CertificateReason>;
  private term: Term | undefined;
  private readonly log: Logger;
  /** configurations told missing (told again only after they were found) */
  private readonly toldMissing = new Set<string>();

  constructor(
    private readonly o: {
      kc: k8s.KubeConfig;
      ref: SecretRef;
      /** the names the serving certificate must carry */
      names: string[];
      policy: RotationPolicy;
      /** the configurations whose caBundle follows ca.crt, per cluster */
      targets: BundleTarget[];
      metrics: CertificateMetrics;
      logger?: Logger;
      /** now, in milliseconds (tests) */
      now?: () => number;
    },
  ) {
    this.log = component('certificates', { secret: `${o.ref.namespace}/${o.ref.name}` }, o.logger);
    this.loop = new Loop<typeof KEY, CertificateReason>({
      name: 'webhook-certificates',
      key: SERVING_KEY,
      begin: (term, loop) => {
        this.term = term;
        loop.enqueue(KEY);
      },
      reconcile: (_key, term) => this.reconcile(term),
      end: () => (this.term = undefined),
      logger: o.logger,
    });
  }

  /** look again now (the Secret changed); nothing when this replica does not lead */
  poke() {
    this.loop.enqueue(KEY);
  }

  private now() {
    return this.o.now?.() ?? Date.now();
  }

  private async reconcile(term: Term): Promise<Result<CertificateReason>> {
    const core = term.kc(this.o.kc).makeApiClient(k8s.CoreV1Api);
    let secret = await readSecret(core, this.o.ref);
    let missing: string[] = [];
    const caPem = secret && pairOf(secret) ? contentsOf(secret).caPem : undefined;
    if (secret && caPem) {
      const sync = await syncBundles(
        this.o.targets.map((t) => ({ ...t, kc: term.kc(t.kc) })),
        caPem,
      );
      missing = sync.missing;
      for (const p of sync.patched) {
        this.o.metrics.rotations.inc({ action: 'patch-ca-bundle', reason: 'bundle-differs' });
        this.log.info(
          { configuration: p, cas: splitBundle(caPem).map((c) => c.fingerprint256.slice(0, 23)) },
          "caBundle patched to the Secret's ca.crt",
        );
      }
      for (const m of missing)
        if (!this.toldMissing.has(m)) {
          this.toldMissing.add(m);
          this.log.warn(
            { configuration: m },
            'webhook configuration not found: its caBundle is patched once it exists (protection.webhook.configurations)',
          );
        }
      for (const m of [...this.toldMissing]) if (!missing.includes(m)) this.toldMissing.delete(m);
      // every caBundle there is holds ca.crt: stamped, so the rule knows since when. A caBundle
      // that had to be put back (a replica starting mid-rotation registered the bundle it read)
      // starts the wait again: the API servers have held this bundle only from now.
      const stamp = secret.metadata?.annotations?.[BUNDLE_SYNCED] ?? '';
      if (sync.current && (sync.patched.length > 0 || !stamp.startsWith(`${bundleHash(caPem)}@`))) {
        try {
          secret = await core.patchNamespacedSecret(
            {
              ...this.o.ref,
              body: {
                metadata: {
                  resourceVersion: secret.metadata?.resourceVersion,
                  annotations: {
                    [BUNDLE_SYNCED]: `${bundleHash(caPem)}@${new Date(this.now()).toISOString()}`,
                  },
                },
              },
            },
            mergePatch,
          );
        } catch (e) {
          if (isConflict(e)) return requeueAfter(0, 'conflict');
          throw e;
        }
      }
    }
    const now = this.now();
    const d = decideRotation(secretFacts(secret, this.o.names), this.o.policy, now);
    if (d.action === 'none' || d.action === 'wait') {
      const reason: CertificateReason =
        missing.length && d.action === 'none' ? 'configuration-missing' : d.reason;
      const cap = missing.length ? MISSING_RETRY_MS : RESYNC_MS;
      return requeueAfter(Math.min(Math.max(0, d.at - now), cap), reason);
    }
    try {
      await this.write(core, secret, d);
    } catch (e) {
      if (isConflict(e)) return requeueAfter(0, 'conflict');
      throw new Error(`${d.action} (${d.reason}): ${errorText(e)}`);
    }
    this.o.metrics.rotations.inc({ action: d.action, reason: d.reason });
    return requeueAfter(0, 'written');
  }

  private async write(
    core: k8s.CoreV1Api,
    secret: k8s.V1Secret | undefined,
    d: Exclude<RotationDecision, { action: 'none' | 'wait' }>,
  ) {
    const { ref, names, policy } = this.o;
    const issue = { validity: policy.validity, caValidity: policy.caValidity };
    let next: { data: Record<string, string>; annotations: Record<string, string> };
    const c = contentsOf(secret);
    const cas = splitBundle(c.caPem);
    if (d.action === 'create') next = await freshContents(names, issue);
    else if (d.action === 'issue-serving') {
      const signer = cas.find((ca) => ca.fingerprint256 === secretFacts(secret, names).signer)!;
      const ca = await loadCertificateAuthority(signer.toString(), c.caKeyPem);
      const leaf = await issueServing(ca, names, issue);
      next = secretContents({
        cas: c.caPem,
        caKeyPem: c.caKeyPem,
        ...leaf,
        servingWrittenAt: new Date(this.now()),
      });
      next.annotations = { ...secret?.metadata?.annotations, ...next.annotations };
    } else if (d.action === 'add-ca') {
      const ca = await newCa(issue);
      const now = this.now();
      const kept = cas.filter((x) => Date.parse(x.validTo) > now);
      next = {
        data: {
          ...secret?.data,
          'ca.crt': Buffer.from(joinBundle([...kept, new X509Certificate(ca.certPem)])).toString('base64'),
          [CA_KEY]: Buffer.from(ca.keyPem).toString('base64'),
        },
        annotations: { ...secret?.metadata?.annotations },
      };
    } else {
      const keep = cas.filter((x) => d.keep.includes(fingerprintOf(x)));
      next = {
        data: {
          ...secret?.data,
          'ca.crt': Buffer.from(joinBundle(keep)).toString('base64'),
        },
        annotations: { ...secret?.metadata?.annotations },
      };
    }
    // a new ca.crt has not reached any caBundle yet
    if (next.data['ca.crt'] !== secret?.data?.['ca.crt']) delete next.annotations[BUNDLE_SYNCED];
    if (!secret) {
      await core.createNamespacedSecret({
        namespace: ref.namespace,
        body: {
          metadata: {
            name: ref.name,
            labels: { 'app.kubernetes.io/managed-by': 'palisade' },
            annotations: next.annotations,
          },
          type: 'kubernetes.io/tls',
          data: next.data,
        },
      });
    } else {
      await core.replaceNamespacedSecret({
        ...ref,
        body: {
          ...secret,
          metadata: { ...secret.metadata, annotations: next.annotations, managedFields: undefined },
          data: next.data,
        },
      });
    }
    const leaf = new X509Certificate(Buffer.from(next.data['tls.crt'], 'base64').toString('utf8'));
    this.log.info(
      {
        action: d.action,
        reason: d.reason,
        cas: splitBundle(Buffer.from(next.data['ca.crt'], 'base64').toString('utf8')).map((x) => ({
          fingerprint: x.fingerprint256.slice(0, 23),
          notAfter: new Date(x.validTo).toISOString(),
        })),
        serving: {
          fingerprint: leaf.fingerprint256.slice(0, 23),
          notAfter: new Date(leaf.validTo).toISOString(),
          writtenAt: next.annotations[SERVING_WRITTEN_AT],
        },
      },
      'serving Secret written',
    );
  }
}
