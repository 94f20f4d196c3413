// The webhook's and aggregators' view of the PodProtectors on the core cluster: a
// supervised informer of validated copies. Beyond Podseidon: a protector that vanishes
// while it still holds a finalizer and no deletionTimestamp (store corruption, a deleted
// CRD) was never retired through the API, so its last copy stays and keeps protecting,
// flagged as dangling, until someone forgets it on purpose.
import * as k8s from '@kubernetes/client-node';
import { labelSelectorMatches } from '../../lib/kube/labelSelector.js';
import {
  GROUP,
  parseProtector,
  PLURAL,
  type PodProtector,
  protectorKey,
  VERSION,
} from '../../lib/protection/types.js';
import type { InformerRegistry, SupervisedInformer } from '../kube/informer.js';
import { component, type Logger } from '../log.js';
import type { Source } from '../runtime/loop.js';

export interface ProtectorEntry {
  protector: PodProtector;
  dangling: boolean;
  /** set when the object from the API could not be read as a PodProtector */
  invalid?: string;
}

type Listener = (key: string, entry: ProtectorEntry | undefined) => void;

/** one change of the store, for a loop's watch: the key, and its entry unless it went away */
export interface ProtectorChange {
  key: string;
  entry?: ProtectorEntry;
}

export class ProtectorStore {
  private readonly informer: SupervisedInformer<
    k8s.KubernetesObject,
    { raw: k8s.KubernetesObject; entry: ProtectorEntry | undefined }
  >;
  private readonly dangling = new Map<string, ProtectorEntry>();
  private readonly listeners: Listener[] = [];
  private hasSynced = false;

  private readonly log: Logger;

  /**
   * `registry`: the core cluster's shared watches (the console's, so the incident view's freshness
   * sees this one too); `logger`: where its lines go (component 'protectors')
   */
  constructor(registry: InformerRegistry, logger?: Logger) {
    this.log = component('protectors', {}, logger);
    const custom = registry.kc.makeApiClient(k8s.CustomObjectsApi);
    this.informer = registry.informer({
      kind: PLURAL,
      path: `/apis/${GROUP}/${VERSION}/${PLURAL}`,
      list: (p) =>
        custom.listClusterCustomObject({ group: GROUP, version: VERSION, plural: PLURAL, ...p }) as never,
      project: (raw) => {
        const parsed = parseProtector(raw);
        if (!parsed.ok)
          this.log.warn(
            { protector: `${raw.metadata?.namespace}/${raw.metadata?.name}`, reason: parsed.error },
            'PodProtector ignored: not valid',
          );
        const entry: ProtectorEntry | undefined = parsed.ok
          ? { protector: parsed.value, dangling: false }
          : undefined;
        return { raw, entry };
      },
    });
    this.informer.on({
      add: (v) => this.changed(v.entry),
      update: (v) => this.changed(v.entry),
      delete: (old) => this.vanished(old.entry),
    });
    void this.informer.synced().then(() => (this.hasSynced = true));
  }

  start() {
    this.informer.start();
  }

  stop() {
    return this.informer.stop();
  }

  /** true once the first complete list arrived: before that the webhook must fail closed */
  get synced() {
    return this.hasSynced;
  }

  whenSynced() {
    return this.informer.synced();
  }

  get health() {
    return this.informer.health;
  }

  onChange(l: Listener) {
    this.listeners.push(l);
  }

  /** the store as a loop's source (server/runtime/loop.ts): a removal is a delete without a copy */
  readonly changes: Source<ProtectorChange> = {
    on: (h) =>
      this.onChange((key, entry) =>
        entry ? h.update?.({ key, entry }, { key, entry }) : h.delete?.({ key }),
      ),
  };

  get(key: string): ProtectorEntry | undefined {
    return this.informer.get(key)?.entry ?? this.dangling.get(key);
  }

  all(): ProtectorEntry[] {
    const out: ProtectorEntry[] = [];
    for (const v of this.informer.values()) if (v.entry) out.push(v.entry);
    out.push(...this.dangling.values());
    return out;
  }

  /** Protectors whose selector matches a pod of this namespace with these labels. */
  matching(namespace: string, labels: Record<string, string>): ProtectorEntry[] {
    return this.all().filter(
      (e) =>
        e.protector.metadata.namespace === namespace &&
        labelSelectorMatches(e.protector.spec.selector as never, labels, { nilMatches: false }),
    );
  }

  /** A dangling protector's status lives only here: the webhook books its admissions in memory. */
  updateDangling(key: string, protector: PodProtector) {
    const e = this.dangling.get(key);
    if (!e) return false;
    e.protector = protector;
    this.emit(key, e);
    return true;
  }

  /** An operator's explicit decision that a dangling protector no longer protects. */
  forget(key: string) {
    const had = this.dangling.delete(key);
    if (had) this.emit(key, undefined);
    return had;
  }

  private changed(entry: ProtectorEntry | undefined) {
    if (!entry) return;
    const key = protectorKey(entry.protector);
    // it is back (the CRD or the object was restored): the API copy wins again
    this.dangling.delete(key);
    this.emit(key, entry);
  }

  private vanished(entry: ProtectorEntry | undefined) {
    if (!entry) return;
    const key = protectorKey(entry.protector);
    const m = entry.protector.metadata;
    const retired = !!m.deletionTimestamp || (m.finalizers ?? []).length === 0;
    if (retired) return this.emit(key, undefined);
    this.log.warn(
      { protector: key },
      'PodProtector vanished without being retired: still protecting from its last copy (dangling)',
    );
    const kept = { protector: entry.protector, dangling: true };
    this.dangling.set(key, kept);
    this.emit(key, kept);
  }

  private emit(key: string, e: ProtectorEntry | undefined) {
    for (const l of this.listeners) l(key, e);
  }
}
