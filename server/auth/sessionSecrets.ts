// Browser sessions kept in Kubernetes Secrets, so every replica of the console serves every
// session with nothing beyond the API server. A Secret is named after the session's key (a
// SHA-256 of its id, sessions.ts), never the id itself (the cookie is a bearer credential; the
// hash cannot be turned back into one), and labelled so each replica keeps a supervised list-watch of them all (the
// server's informer machinery: it relists after any failure, where client-node's informer
// stops for good). Writes are compare-and-swap on resourceVersion; a 409 re-reads and applies
// the change again to the fresh copy. Neither errors nor logs ever carry a Secret's content.
// Records are sealed (AES-256-GCM under the install's session key, lib/auth/sealedRecord.ts):
// whoever may read Secrets in this namespace reads no token. A plaintext record an older
// Palisade wrote is deleted on sight (its person signs in again), never used.
import * as k8s from '@kubernetes/client-node';
import { openRecord, sealRecord } from '../../lib/auth/sealedRecord.js';
import { decodeRecord, encodeRecord, type SessionRecord } from '../../lib/auth/sharedSession.js';
import type { InformerRegistry, SupervisedInformer } from '../kube/informer.js';
import type { Logger } from '../log.js';
import { codeOf } from '../../lib/kube/errorText.js';

const LABELS = { 'app.kubernetes.io/name': 'palisade', 'app.kubernetes.io/component': 'session' };
const SELECTOR = Object.entries(LABELS)
  .map(([k, v]) => `${k}=${v}`)
  .join(',');
const PREFIX = 'palisade-session-';
const DATA_KEY = 'session';
const SECRET_TYPE = 'palisade.dev/session';

export interface Stored {
  key: string;
  record: SessionRecord;
  rv: string;
}

export interface StoreEvents {
  put(s: Stored): void;
  gone(key: string, last: SessionRecord): void;
}

/** an API error in a few words: client-node's messages carry whole response bodies */
const brief = (e: unknown) => (codeOf(e) ? `HTTP ${codeOf(e)}` : ((e as Error)?.message ?? String(e)));

export class SessionSecrets {
  private readonly core: k8s.CoreV1Api;
  private readonly informer: SupervisedInformer<k8s.V1Secret, Stored | undefined>;
  /** plaintext Secrets being deleted: each once */
  private readonly purging = new Set<string>();

  constructor(
    registry: InformerRegistry,
    readonly namespace: string,
    private readonly log: Logger,
    /** seals the records (lib/auth/sealedRecord.ts sessionKeys().records) */
    private readonly key: Buffer,
  ) {
    this.core = registry.kc.makeApiClient(k8s.CoreV1Api);
    this.informer = registry.informer<k8s.V1Secret, Stored | undefined>({
      kind: 'Secret (sessions)',
      // client-node's Watch keeps the path's query: the selector narrows list and watch alike
      path: `/api/v1/namespaces/${namespace}/secrets?labelSelector=${encodeURIComponent(SELECTOR)}`,
      list: (page) =>
        this.core.listNamespacedSecret({ namespace, labelSelector: SELECTOR, ...page }) as never,
      project: (s) => this.decode(s),
    });
  }

  /** Start the list-watch; events follow every change any replica makes. */
  start(events: StoreEvents) {
    this.informer.on({
      add: (v) => v && events.put(v),
      update: (v) => v && events.put(v),
      delete: (old) => old && events.gone(old.key, old.record),
    });
    this.informer.start();
  }

  /** the watch is whole: what it has not delivered does not exist */
  get healthy(): boolean {
    return this.informer.health.synced;
  }

  synced(): Promise<void> {
    return this.informer.synced();
  }

  async stop() {
    await this.informer.stop();
  }

  async create(key: string, record: SessionRecord): Promise<Stored> {
    const s = await this.core
      .createNamespacedSecret({
        namespace: this.namespace,
        body: {
          metadata: { name: PREFIX + key, labels: LABELS },
          type: SECRET_TYPE,
          data: { [DATA_KEY]: this.seal(key, record) },
        },
      })
      .catch((e) => {
        // e.g. 403: the console's Role (deploy/rbac) does not cover this namespace
        throw new Error(`storing a session in namespace ${this.namespace} failed: ${brief(e)}`);
      });
    return { key, record, rv: s.metadata?.resourceVersion ?? '' };
  }

  async get(key: string): Promise<Stored | undefined> {
    try {
      return this.decode(
        await this.core.readNamespacedSecret({ namespace: this.namespace, name: PREFIX + key }),
      );
    } catch (e) {
      if (codeOf(e) === 404) return undefined;
      throw new Error(`reading session ${key.slice(0, 8)} failed: ${brief(e)}`);
    }
  }

  async list(): Promise<Stored[]> {
    const l = await this.core.listNamespacedSecret({ namespace: this.namespace, labelSelector: SELECTOR });
    return l.items.map((s) => this.decode(s)).filter((s): s is Stored => s !== undefined);
  }

  /**
   * Apply `change` to the stored record and write it back if its resourceVersion is still the
   * one read; on 409 read again and re-apply. undefined when the Secret is gone or `change`
   * declines (returns undefined) for the copy it was given.
   */
  async modify(
    key: string,
    from: Stored | undefined,
    change: (r: SessionRecord) => SessionRecord | undefined,
    tries = 8,
  ): Promise<Stored | undefined> {
    let cur = from ?? (await this.get(key));
    for (let i = 0; cur && i < tries; i++) {
      const next = change(cur.record);
      if (!next) return undefined;
      try {
        const s = await this.core.replaceNamespacedSecret({
          namespace: this.namespace,
          name: PREFIX + key,
          body: {
            metadata: { name: PREFIX + key, labels: LABELS, resourceVersion: cur.rv },
            type: SECRET_TYPE,
            data: { [DATA_KEY]: this.seal(key, next) },
          },
        });
        return { key, record: next, rv: s.metadata?.resourceVersion ?? '' };
      } catch (e) {
        if (codeOf(e) === 404) return undefined;
        if (codeOf(e) !== 409) throw new Error(`writing session ${key.slice(0, 8)} failed: ${brief(e)}`);
        cur = await this.get(key);
      }
    }
    if (cur) throw new Error(`writing session ${key.slice(0, 8)}: still conflicting after ${tries} tries`);
    return undefined;
  }

  /** Delete, only if still at `rv` when given: 'conflict' when someone wrote in between. */
  async remove(key: string, rv?: string): Promise<'removed' | 'conflict'> {
    try {
      await this.core.deleteNamespacedSecret({
        namespace: this.namespace,
        name: PREFIX + key,
        body: rv ? { preconditions: { resourceVersion: rv } } : {},
      });
    } catch (e) {
      if (codeOf(e) === 409) return 'conflict';
      if (codeOf(e) !== 404) throw new Error(`deleting session ${key.slice(0, 8)} failed: ${brief(e)}`);
    }
    return 'removed';
  }

  /** The Secret's data value: the record sealed for this Secret's name. */
  private seal(key: string, record: SessionRecord): string {
    return sealRecord(encodeRecord(record), PREFIX + key, this.key).toString('base64');
  }

  private decode(s: k8s.V1Secret): Stored | undefined {
    const name = s.metadata?.name ?? '';
    const data = s.data?.[DATA_KEY];
    if (!name.startsWith(PREFIX) || !data) return undefined;
    const opened = openRecord(Buffer.from(data, 'base64'), name, this.key);
    if (!opened.ok) {
      if (opened.why === 'plaintext') this.purge(name, s.metadata?.resourceVersion);
      else
        this.log.warn(
          { secret: name.slice(0, PREFIX.length + 8) },
          'session Secret not sealed with this install’s session key: ignored',
        );
      return undefined;
    }
    const d = decodeRecord(opened.text);
    if (!d.ok) {
      this.log.warn(
        { secret: name.slice(0, PREFIX.length + 8), err: d.error },
        'unreadable session Secret: ignored',
      );
      return undefined;
    }
    return { key: name.slice(PREFIX.length), record: d.record, rv: s.metadata?.resourceVersion ?? '' };
  }

  /** A plaintext record of an older Palisade: its tokens must not stay readable. */
  private purge(name: string, rv: string | undefined) {
    if (this.purging.has(name)) return;
    this.purging.add(name);
    this.log.warn(
      { secret: name.slice(0, PREFIX.length + 8) },
      'a plaintext session Secret (from before sessions were sealed): deleting it; its person signs in again',
    );
    void this.core
      .deleteNamespacedSecret({
        namespace: this.namespace,
        name,
        body: rv ? { preconditions: { resourceVersion: rv } } : {},
      })
      .catch((e) => {
        if (codeOf(e) !== 404)
          this.log.warn({ secret: name.slice(0, PREFIX.length + 8), err: brief(e) }, 'deleting it failed');
      })
      .finally(() => this.purging.delete(name));
  }
}
