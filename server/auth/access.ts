// What a person may do, asked of the cluster: a SelfSubjectAccessReview sent *as the person*
// (their token, or Palisade impersonating them), so the answer is the cluster's RBAC and needs
// no privilege of Palisade's own. Answers are cached per person, cluster and attributes for a
// short time (a role change shows within ACCESS_TTL_MS) and concurrent asks share one review.
import * as k8s from '@kubernetes/client-node';
import {
  type AccessAttributes,
  type AccessDecision,
  accessKey,
  forbiddenMessage,
  selfSubjectAccessReview,
} from '../../lib/auth/forbidden.js';
import type { ClusterId } from '../../lib/console/protocol.js';
import { errorText } from '../../lib/kube/errorText.js';
import type { ClusterConnection } from '../kube/connection.js';
import { type Credential, type Identity, nameOn } from './identity.js';
import { credentialKey, makeClientAs } from './kubeAs.js';

export const ACCESS_TTL_MS = 10_000;
const MAX_ENTRIES = 20_000;

interface Entry {
  at: number;
  decision: Promise<AccessDecision>;
}

export class AccessReviews {
  private readonly entries = new Map<string, Entry>();
  private readonly clients = new Map<string, k8s.AuthorizationV1Api>();

  constructor(
    private readonly clusters: Map<ClusterId, ClusterConnection>,
    private readonly ttlMs = ACCESS_TTL_MS,
  ) {}

  /** May this identity do this on this cluster? Never throws: a failed review is a denial that says why. */
  can(id: Identity, cluster: ClusterId, a: AccessAttributes): Promise<AccessDecision> {
    const key = `${cluster}|${credentialKey(id.credential)}|${accessKey(a)}`;
    const now = Date.now();
    const hit = this.entries.get(key);
    if (hit && now - hit.at < this.ttlMs) return hit.decision;
    if (this.entries.size >= MAX_ENTRIES) this.prune(now);
    const decision = this.review(id, cluster, a);
    this.entries.set(key, { at: now, decision });
    return decision;
  }

  /** Forget what is cached for a credential (sign-out, or a 403 that contradicts a cached yes). */
  forget(credential: Credential) {
    const mark = `|${credentialKey(credential)}|`;
    for (const k of this.entries.keys()) if (k.includes(mark)) this.entries.delete(k);
  }

  private prune(now: number) {
    for (const [k, e] of this.entries) if (now - e.at >= this.ttlMs) this.entries.delete(k);
    // still full of fresh answers: drop the oldest half (Map keeps insertion order)
    if (this.entries.size >= MAX_ENTRIES) {
      let n = this.entries.size / 2;
      for (const k of this.entries.keys()) {
        if (n-- <= 0) break;
        this.entries.delete(k);
      }
    }
  }

  private api(cluster: ClusterConnection, c: Credential) {
    const key = `${cluster.id}|${credentialKey(c)}`;
    let api = this.clients.get(key);
    if (!api) {
      api = makeClientAs(cluster.spec.kc, c, k8s.AuthorizationV1Api);
      this.clients.set(key, api);
    }
    return api;
  }

  private async review(id: Identity, clusterId: ClusterId, a: AccessAttributes): Promise<AccessDecision> {
    const user = nameOn(id, clusterId);
    const conn = this.clusters.get(clusterId);
    if (!conn) return { allowed: false, message: `unknown cluster "${clusterId}"` };
    if (!id.principals.has(clusterId))
      return { allowed: false, message: `${user} is not signed in to cluster "${clusterId}"` };
    try {
      const r = await this.api(conn, id.credential).createSelfSubjectAccessReview({
        body: selfSubjectAccessReview(a) as k8s.V1SelfSubjectAccessReview,
      });
      const s = r.status;
      if (s?.allowed) return { allowed: true };
      const reason = s?.reason || undefined;
      return { allowed: false, reason, message: forbiddenMessage(a, user, reason) };
    } catch (e) {
      // the answer is unknown: treat it as no, say why, and do not keep it
      this.entries.delete(`${clusterId}|${credentialKey(id.credential)}|${accessKey(a)}`);
      return {
        allowed: false,
        message: `could not ask cluster "${clusterId}" whether ${user} may ${a.verb}: ${errorText(e)}`,
      };
    }
  }
}
