// What part of a live room a person may see: all of it, the namespaces where they may list the
// kind, or none (with the cluster's own refusal). Asked of the cluster with SelfSubjectAccessReviews
// (cached by the access reviews), before any item is sent.
import type { AccessAttributes } from '../../lib/auth/forbidden.js';
import type { ClusterId, Delta, Kind, Snapshot } from '../../lib/console/protocol.js';
import type { AccessReviews } from '../auth/access.js';
import type { Identity } from '../auth/identity.js';

export type Scope =
  | { kind: 'all' }
  | { kind: 'namespaces'; namespaces: Set<string> }
  | { kind: 'denied'; message: string };

export async function scopeOf(
  access: AccessReviews,
  id: Identity,
  cluster: ClusterId,
  kind: Kind,
  namespaces: () => Iterable<string>,
): Promise<Scope> {
  // nodes are cluster-scoped: no namespace can grant them
  return namespaceScope(access, id, cluster, { resource: kind, namespaced: kind === 'pods' }, namespaces);
}

/** May the person list this resource everywhere, in some of these namespaces, or nowhere? */
export async function namespaceScope(
  access: AccessReviews,
  id: Identity,
  cluster: ClusterId,
  what: { group?: string; resource: string; namespaced: boolean },
  namespaces: () => Iterable<string>,
): Promise<Scope> {
  const listAll: AccessAttributes = { verb: 'list', group: what.group, resource: what.resource };
  const all = await access.can(id, cluster, listAll);
  if (all.allowed) return { kind: 'all' };
  if (!what.namespaced) return { kind: 'denied', message: all.message ?? 'forbidden' };
  const names = [...new Set(namespaces())];
  const answers = await Promise.all(
    names.map(async (ns) => [ns, await access.can(id, cluster, { ...listAll, namespace: ns })] as const),
  );
  const allowed = new Set(answers.filter(([, a]) => a.allowed).map(([ns]) => ns));
  if (allowed.size === 0) return { kind: 'denied', message: all.message ?? 'forbidden' };
  return { kind: 'namespaces', namespaces: allowed };
}

const namespaceOfKey = (key: string) => key.slice(0, key.indexOf('/'));

function visible(scope: Scope, item: unknown): boolean {
  if (scope.kind === 'all') return true;
  if (scope.kind === 'denied') return false;
  return scope.namespaces.has((item as { namespace?: string }).namespace ?? '');
}

export function filterSnapshot<T>(scope: Scope, s: Snapshot<T>): Snapshot<T> {
  return scope.kind === 'all' ? s : { ...s, items: s.items.filter((i) => visible(scope, i)) };
}

/** The delta as this person sees it; sent even when empty, so the sequence stays unbroken. */
export function filterDelta<T>(scope: Scope, d: Delta<T>): Delta<T> {
  if (scope.kind === 'all') return d;
  const ok = (ns: string) => scope.kind === 'namespaces' && scope.namespaces.has(ns);
  return {
    ...d,
    upserts: d.upserts.filter((u) => visible(scope, u)),
    deletes: d.deletes.filter((k) => ok(namespaceOfKey(k))),
  };
}

export function sameScope(a: Scope, b: Scope): boolean {
  if (a.kind !== b.kind) return false;
  if (a.kind !== 'namespaces' || b.kind !== 'namespaces') return true;
  return a.namespaces.size === b.namespaces.size && [...a.namespaces].every((n) => b.namespaces.has(n));
}

/** May this socket's person join a room that carries data about this (one access check, cached)? */
export async function mayJoin(
  access: AccessReviews,
  socket: { data: unknown },
  cluster: ClusterId,
  a: AccessAttributes,
): Promise<{ ok: true } | { ok: false; error: string }> {
  const identity = (socket.data as { identity?: Identity }).identity;
  if (!identity) return { ok: false, error: 'sign in first' };
  const d = await access.can(identity, cluster, a);
  return d.allowed ? { ok: true } : { ok: false, error: d.message ?? 'forbidden' };
}
