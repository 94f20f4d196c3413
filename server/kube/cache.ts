// The console's in-memory picture of one cluster: trimmed node and pod views (nodes
// with their Lease renewals folded in), pods indexed by node and by owner, events by
// the object they are about, and the last view of recently deleted pods (so a pod's
// termination story can still be told after it is gone). Fed by informer handlers;
// tells listeners which node or pod view changed.
import type { Kind, NodeView, PodView } from '../../lib/console/protocol.js';
import { podKey } from '../../lib/console/protocol.js';
import type { EventView, LeaseView } from '../../lib/console/views.js';
import { withLease } from '../../lib/console/views.js';

export type ChangeListener = (kind: Kind, key: string, view: NodeView | PodView | undefined) => void;

/** A one-to-many index of keys (node -> pod keys, owner -> pod keys, ...). */
class Index {
  private readonly sets = new Map<string, Set<string>>();

  add(group: string | undefined, key: string) {
    if (!group) return;
    let set = this.sets.get(group);
    if (!set) this.sets.set(group, (set = new Set()));
    set.add(key);
  }

  remove(group: string | undefined, key: string) {
    if (!group) return;
    const set = this.sets.get(group);
    set?.delete(key);
    if (set?.size === 0) this.sets.delete(group);
  }

  get(group: string): string[] {
    return [...(this.sets.get(group) ?? [])];
  }
}

export const ownerKey = (namespace: string, kind: string, name: string) => `${namespace}/${kind}/${name}`;
export const involvedKey = (kind = '', namespace = '', name = '') => `${kind}/${namespace}/${name}`;

const ownerOf = (p: PodView) => (p.owner ? ownerKey(p.namespace, p.owner.kind, p.owner.name) : undefined);

export class ClusterCache {
  private readonly nodes = new Map<string, NodeView>();
  /** each node's own Ready heartbeat, so a Lease renewal can be compared with it */
  private readonly heartbeats = new Map<string, number | undefined>();
  private readonly renewals = new Map<string, number | undefined>();
  private readonly pods = new Map<string, PodView>();
  private readonly podsByNode = new Index();
  private readonly podsByOwner = new Index();
  private readonly events = new Map<string, EventView>();
  private readonly eventsByObject = new Index();
  /** recently deleted pods: their last view, and when the console saw them go (ms since epoch) */
  private readonly tombstones = new Map<string, { view: PodView; at: number }>();
  /** deleted pods with claims, by uid (see departedClaimPods) */
  private readonly departures = new Map<string, { view: PodView; at: number }>();
  /** the pod a same-name pod replaced (a StatefulSet's after a force delete), by key */
  private readonly predecessors = new Map<string, { view: PodView; at: number }>();
  /** pod key by uid: the ground truth names processes by pod uid */
  private readonly keyByUid = new Map<string, string>();
  private readonly listeners: ChangeListener[] = [];

  constructor(private readonly maxTombstones = 5000) {}

  onChange(l: ChangeListener) {
    this.listeners.push(l);
  }

  private emit(kind: Kind, key: string, view: NodeView | PodView | undefined) {
    for (const l of this.listeners) l(kind, key, view);
  }

  // ---- nodes and leases

  setNode(view: NodeView, ownHeartbeat: number | undefined) {
    this.heartbeats.set(view.name, ownHeartbeat);
    this.putNode(withLease(view, ownHeartbeat, this.renewals.get(view.name)));
  }

  deleteNode(name: string) {
    this.heartbeats.delete(name);
    if (this.nodes.delete(name)) this.emit('nodes', name, undefined);
  }

  setLease(lease: LeaseView) {
    this.renewals.set(lease.name, lease.renewTime);
    const node = this.nodes.get(lease.name);
    if (node) this.putNode(withLease(node, this.heartbeats.get(lease.name), lease.renewTime));
  }

  deleteLease(name: string) {
    this.renewals.delete(name);
  }

  private putNode(view: NodeView) {
    if (this.nodes.get(view.name) === view) return;
    this.nodes.set(view.name, view);
    this.emit('nodes', view.name, view);
  }

  node(name: string) {
    return this.nodes.get(name);
  }

  nodeList(): NodeView[] {
    return [...this.nodes.values()];
  }

  // ---- pods

  setPod(incoming: PodView) {
    const key = podKey(incoming);
    const old = this.pods.get(key);
    const view = keepGracefulDeletion(incoming, old);
    this.rememberReplaced(key, view, old);
    if (old) this.unindex(key, old);
    this.pods.set(key, view);
    this.podsByNode.add(view.node, key);
    this.podsByOwner.add(ownerOf(view), key);
    this.keyByUid.set(view.uid, key);
    this.tombstones.delete(key);
    this.emit('pods', key, view);
  }

  deletePod(view: PodView) {
    const key = podKey(view);
    const old = this.pods.get(key);
    if (!old) return;
    this.unindex(key, old);
    this.pods.delete(key);
    const gone = { view: old, at: Date.now() };
    this.tombstones.set(key, gone);
    if (this.tombstones.size > this.maxTombstones)
      this.tombstones.delete(this.tombstones.keys().next().value!);
    if (old.claims.length) {
      this.departures.set(old.uid, gone);
      if (this.departures.size > this.maxTombstones)
        this.departures.delete(this.departures.keys().next().value!);
    }
    this.emit('pods', key, undefined);
  }

  /** A new uid under a known name: keep the pod it replaced (seen deleted, or swapped in a relist). */
  private rememberReplaced(key: string, view: PodView, old: PodView | undefined) {
    const before = old ? { view: old, at: Date.now() } : this.tombstones.get(key);
    if (!before || before.view.uid === view.uid) return;
    this.predecessors.delete(key);
    this.predecessors.set(key, before);
    if (this.predecessors.size > this.maxTombstones)
      this.predecessors.delete(this.predecessors.keys().next().value!);
  }

  /** The pod the current one of this name replaced, and when the console saw it go. */
  replacedPod(namespace: string, name: string): { view: PodView; at: number } | undefined {
    const r = this.predecessors.get(`${namespace}/${name}`);
    const now = this.pods.get(`${namespace}/${name}`) ?? this.tombstones.get(`${namespace}/${name}`)?.view;
    return r && now && r.view.uid !== now.uid ? r : undefined;
  }

  private unindex(key: string, old: PodView) {
    if (this.keyByUid.get(old.uid) === key) this.keyByUid.delete(old.uid);
    this.podsByNode.remove(old.node, key);
    this.podsByOwner.remove(ownerOf(old), key);
  }

  /** The pod the API has with this uid (not one that replaced it under the same name). */
  podByUid(uid: string): PodView | undefined {
    const key = this.keyByUid.get(uid);
    return key === undefined ? undefined : this.pods.get(key);
  }

  pod(namespace: string, name: string): PodView | undefined {
    return this.pods.get(`${namespace}/${name}`);
  }

  /** The last view of a pod that has been deleted, while it is remembered. */
  /** When the console saw the pod disappear from the API, if it did. */
  podDeletedAt(namespace: string, name: string): number | undefined {
    return this.tombstones.get(`${namespace}/${name}`)?.at;
  }

  deletedPod(namespace: string, name: string): PodView | undefined {
    return this.tombstones.get(`${namespace}/${name}`)?.view;
  }

  /**
   * Deleted pods that used claims, by uid, with when the console saw each go (oldest first).
   * Unlike the tombstones a same-name replacement does not erase them: a StatefulSet's new
   * web-0 must not hide when the old one left the node its volume is still attached to.
   */
  departedClaimPods(): { view: PodView; at: number }[] {
    return [...this.departures.values()];
  }

  podList(): PodView[] {
    return [...this.pods.values()];
  }

  podsOnNode(node: string): PodView[] {
    return this.resolve(this.podsByNode.get(node));
  }

  podsOfOwner(namespace: string, kind: string, name: string): PodView[] {
    return this.resolve(this.podsByOwner.get(ownerKey(namespace, kind, name)));
  }

  private resolve(keys: string[]): PodView[] {
    return keys.map((k) => this.pods.get(k)).filter((p): p is PodView => !!p);
  }

  // ---- events

  setEvent(e: EventView) {
    const key = e.uid;
    const old = this.events.get(key);
    if (old)
      this.eventsByObject.remove(
        involvedKey(old.involved.kind, old.involved.namespace, old.involved.name),
        key,
      );
    this.events.set(key, e);
    this.eventsByObject.add(involvedKey(e.involved.kind, e.involved.namespace, e.involved.name), key);
  }

  deleteEvent(key: string) {
    // events are keyed by uid: names are reused by the event deduplication of old clients
    const old = this.events.get(key);
    if (!old) return;
    this.events.delete(key);
    this.eventsByObject.remove(
      involvedKey(old.involved.kind, old.involved.namespace, old.involved.name),
      key,
    );
  }

  /** Events about one object, oldest first; with a uid, only that incarnation's. */
  eventsFor(kind: string, namespace: string, name: string, uid?: string): EventView[] {
    return this.eventsByObject
      .get(involvedKey(kind, namespace, name))
      .map((k) => this.events.get(k))
      .filter((e): e is EventView => !!e && (!uid || !e.involved.uid || e.involved.uid === uid))
      .sort((a, b) => (a.lastSeen ?? 0) - (b.lastSeen ?? 0));
  }

  /** Every Event held, in no order (the Audit page picks the console's own). */
  eventList(): EventView[] {
    return [...this.events.values()];
  }
}

/**
 * The kubelet ends every termination with a grace-0 delete, which rewrites
 * deletionTimestamp and deletionGracePeriodSeconds just before the pod goes. Keep the
 * graceful deletion the pod actually went through, so its timeline shows the real
 * grace period rather than the final 0 s bookkeeping.
 */
export function keepGracefulDeletion(view: PodView, old: PodView | undefined): PodView {
  if (!old?.deletionTimestamp || !old.deletionGracePeriodSeconds) return view;
  if (view.uid !== old.uid || view.deletionGracePeriodSeconds !== 0) return view;
  return {
    ...view,
    deletionTimestamp: old.deletionTimestamp,
    deletionGracePeriodSeconds: old.deletionGracePeriodSeconds,
  };
}
