// Every replica, leader or not: a watch of the one serving Secret (supervised: it relists and
// rewatches after any failure), and on each change the pair it holds is served to every new
// connection (WebhookServer.setServing, https.Server#setSecureContext); connections already open
// keep the certificate they were made with. A pair that does not load is logged and counted, and
// the one before is still served.
import { X509Certificate } from 'node:crypto';
import * as k8s from '@kubernetes/client-node';
import { splitBundle } from '../../../lib/pki/bundle.js';
import { errorText } from '../../../lib/kube/errorText.js';
import type { InformerRegistry, SupervisedInformer } from '../../kube/informer.js';
import type { Logger } from '../../log.js';
import { pairOf, type SecretRef } from '../../webhook/servingSecret.js';
import type { ServingPair } from '../../webhook/servingSecret.js';
import type { WebhookServer } from '../../webhook/listener.js';
import type { CertificateMetrics } from './metrics.js';

const same = (a: ServingPair | undefined, b: ServingPair) =>
  a?.certPem === b.certPem && a.keyPem === b.keyPem && a.caPem === b.caPem;

/** What a pair is, for logs: its fingerprint, expiry and the CAs of its bundle. */
export function describePair(p: ServingPair) {
  const leaf = new X509Certificate(p.certPem);
  return {
    fingerprint: leaf.fingerprint256.slice(0, 23),
    notAfter: new Date(leaf.validTo).toISOString(),
    cas: splitBundle(p.caPem).map((c) => c.fingerprint256.slice(0, 23)),
  };
}

export class ServingSecretWatch {
  private readonly informer: SupervisedInformer<k8s.V1Secret, k8s.V1Secret>;
  private warnedEmpty = false;

  constructor(
    private readonly o: {
      /** the core cluster's shared watches */
      registry: InformerRegistry;
      ref: SecretRef;
      webhook: WebhookServer;
      metrics: CertificateMetrics;
      log: Logger;
      /** told after each change of the Secret (the leader's controller looks again) */
      onChange?: () => void;
    },
  ) {
    const core = o.registry.kc.makeApiClient(k8s.CoreV1Api);
    const fieldSelector = `metadata.name=${o.ref.name}`;
    // on the core cluster's shared watches: one watch of this one Secret, in the watches' health
    this.informer = o.registry.informer<k8s.V1Secret, k8s.V1Secret>({
      kind: 'Secret',
      path: `/api/v1/namespaces/${o.ref.namespace}/secrets?fieldSelector=${encodeURIComponent(fieldSelector)}`,
      list: (page) => core.listNamespacedSecret({ namespace: o.ref.namespace, fieldSelector, ...page }),
      project: (s) => s,
    });
    this.informer.on({
      add: (s) => void this.apply(s),
      update: (s) => void this.apply(s),
      delete: () => {
        o.log.warn(
          { secret: `${o.ref.namespace}/${o.ref.name}` },
          'the serving Secret is gone: still serving what it held',
        );
        o.onChange?.();
      },
    });
  }

  start() {
    this.informer.start();
    return this.informer.synced();
  }

  get synced() {
    return this.informer.health.synced;
  }

  /** the Secret as last seen */
  get secret(): k8s.V1Secret | undefined {
    return this.informer.get(`${this.o.ref.namespace}/${this.o.ref.name}`);
  }

  /** Serve what the Secret holds, if it is not what is served already. */
  async apply(s: k8s.V1Secret) {
    const { webhook, metrics, log, ref } = this.o;
    const secret = `${ref.namespace}/${ref.name}`;
    const pair = pairOf(s);
    if (!pair) {
      if (!this.warnedEmpty)
        log.warn({ secret }, 'the serving Secret has no ca.crt, tls.crt and tls.key yet');
      this.warnedEmpty = true;
    } else if (!same(webhook.serving, pair)) {
      this.warnedEmpty = false;
      try {
        const was = webhook.serving;
        await webhook.setServing(pair);
        metrics.reloads.inc({ result: 'ok' });
        this.gauge(pair);
        log.info(
          {
            secret,
            resourceVersion: s.metadata?.resourceVersion,
            serving: describePair(pair),
            ...(was ? {} : { first: true }),
          },
          'serving certificate loaded from the Secret',
        );
      } catch (e) {
        metrics.reloads.inc({ result: 'error' });
        log.error(
          { secret, err: errorText(e) },
          'the serving Secret does not load: still serving the certificate before',
        );
      }
    }
    this.o.onChange?.();
  }

  gauge(pair: ServingPair) {
    const leaf = new X509Certificate(pair.certPem);
    this.o.metrics.expiry.set({ certificate: 'serving' }, Date.parse(leaf.validTo) / 1000);
    const cas = splitBundle(pair.caPem).map((c) => Date.parse(c.validTo));
    if (cas.length) this.o.metrics.expiry.set({ certificate: 'ca' }, Math.min(...cas) / 1000);
  }

  stop() {
    return this.informer.stop();
  }
}
