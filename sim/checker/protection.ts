// Deletion protection judged from the API view (seed 004): an API deletion of an available
// protected pod must never leave its PodProtector's pods below minAvailable. Node failures
// are excluded: a pod deleted while its node is not Ready or out of service (taint eviction,
// pod GC, a fence's release — which can come before the API marks a powered-off node
// NotReady) was lost to the node, not pushed out by the API. One violation stays open per
// protector until its available count is back at the floor or the protector is gone.
import type * as k8s from '@kubernetes/client-node';
import { type Floor, type FloorPod, availableCount, judgeDeletion } from '../rules/protection/floorCheck.js';
import { type PodProtector, parseProtector, protectorKey } from '../../lib/protection/types.js';
import { type Violation, type ViolationSource, nextViolationId } from './checker.js';

export const PROTECTION_INVARIANT = 'protected-workload-above-floor';

export type ViewPod = FloorPod & {
  metadata?: FloorPod['metadata'] & { name?: string; namespace?: string };
  spec?: { nodeName?: string };
};

/** What the checker reads: the API's current state, from informers or a test's fixture. */
export interface ProtectionView {
  pods(namespace: string): ViewPod[];
  protectors(namespace: string): unknown[];
  /**
   * whether the node's Ready condition is True and it is not tainted out of service (false for
   * an unknown node)
   */
  nodeReady(name: string): boolean;
}

export interface ProtectionCheckerOptions {
  now?: () => number;
  /** pod events are coalesced this long before open violations are re-judged (0: call flush()) */
  debounceMs?: number;
  /** told of every violation opened ('violation') and closed ('violation-ended') */
  emit?: (type: 'violation' | 'violation-ended', v: Violation) => void;
}

const floorOf = (p: PodProtector): Floor => ({
  minAvailable: p.spec.minAvailable,
  minReadySeconds: p.spec.minReadySeconds,
  selector: p.spec.selector,
  aggregationSelector: p.spec.aggregationSelector,
});

export class ProtectionChecker implements ViolationSource {
  private readonly violations: Violation[] = [];
  /** protector key (ns/name) -> its open violation */
  private readonly open = new Map<string, Violation>();
  private readonly dirty = new Set<string>();
  private pending: NodeJS.Timeout | undefined;
  private readonly cleanups: (() => unknown)[] = [];
  private stopped = false;
  private readonly now: () => number;

  constructor(
    readonly view: ProtectionView,
    private readonly opts: ProtectionCheckerOptions = {},
  ) {
    this.now = opts.now ?? Date.now;
  }

  /** An informer's update: gaining a deletionTimestamp is an API deletion. */
  podUpdated(pod: ViewPod, old: ViewPod) {
    if (this.stopped) return;
    if (!old.metadata?.deletionTimestamp && pod.metadata?.deletionTimestamp) this.deleted(old);
    this.touch(pod.metadata?.namespace ?? '');
  }

  /** An informer's delete: vanishing without a deletionTimestamp is a force deletion. */
  podRemoved(last: ViewPod) {
    if (this.stopped) return;
    if (!last.metadata?.deletionTimestamp) this.deleted(last);
    this.touch(last.metadata?.namespace ?? '');
  }

  /** Re-judge a namespace's open violations soon (a burst of pod events is coalesced). */
  touch(namespace: string) {
    // every pod event of a 150 000-pod cluster passes here: nothing open, nothing to do
    if (this.open.size === 0) return;
    if (![...this.open.keys()].some((k) => k.startsWith(`${namespace}/`))) return;
    this.dirty.add(namespace);
    if (!this.pending && (this.opts.debounceMs ?? 100) > 0)
      this.pending = setTimeout(() => this.flush(), this.opts.debounceMs ?? 100);
  }

  flush() {
    if (this.pending) clearTimeout(this.pending);
    this.pending = undefined;
    for (const ns of this.dirty) this.recheck(ns);
    this.dirty.clear();
  }

  private deleted(before: ViewPod) {
    const ns = before.metadata?.namespace ?? '';
    const protectors = this.view.protectors(ns);
    if (protectors.length === 0) return;
    const node = before.spec?.nodeName;
    if (node && !this.view.nodeReady(node)) return;
    const now = this.now();
    let after: ViewPod[] | undefined;
    for (const raw of protectors) {
      const parsed = parseProtector(raw);
      if (!parsed.ok) continue;
      const key = protectorKey(parsed.value);
      if (this.open.has(key)) continue;
      after ??= this.view.pods(ns);
      const verdict = judgeDeletion(floorOf(parsed.value), before, after, now);
      if (!verdict?.breached) continue;
      const pod = `${ns}/${before.metadata?.name ?? ''}`;
      this.openViolation(
        key,
        `deleting pod ${pod} left ${verdict.available} available pods, below minAvailable ${verdict.minAvailable} of PodProtector ${key}`,
      );
    }
  }

  private openViolation(subject: string, message: string) {
    const v: Violation = {
      id: nextViolationId(),
      invariant: PROTECTION_INVARIANT,
      subject,
      message,
      since: this.now(),
      evidence: [],
    };
    this.open.set(subject, v);
    this.violations.push(v);
    this.opts.emit?.('violation', v);
  }

  /** Close the open violations (of one namespace, or all) whose protector is whole again. */
  recheck(namespace?: string) {
    if (this.open.size === 0) return;
    const now = this.now();
    for (const [key, v] of this.open) {
      const [ns, name] = key.split('/');
      if (namespace !== undefined && ns !== namespace) continue;
      const raw = this.view.protectors(ns).find((p) => (p as k8s.KubernetesObject).metadata?.name === name);
      // a protector that is gone (or no longer readable) has no floor left to judge
      const parsed = raw ? parseProtector(raw) : undefined;
      if (parsed?.ok) {
        const f = floorOf(parsed.value);
        if (availableCount(f, this.view.pods(ns), now) < f.minAvailable) continue;
      }
      v.until = now;
      this.open.delete(key);
      this.opts.emit?.('violation-ended', v);
    }
  }

  list(): Violation[] {
    return [...this.violations];
  }

  onStop(fn: () => unknown) {
    this.cleanups.push(fn);
  }

  async stop() {
    this.stopped = true;
    if (this.pending) clearTimeout(this.pending);
    for (const fn of this.cleanups.splice(0)) await fn();
  }
}
