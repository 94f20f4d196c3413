// ServiceAccount tokens (TokenRequest): JWTs signed ES256 with a key the server makes at
// start, in the shape kube-apiserver issues (iss, sub, aud, exp, iat, nbf, jti and the
// kubernetes.io claim naming the ServiceAccount and its uid, and for a token bound to a pod the
// pod and its node). A token authenticates while it has not expired, names an audience asked
// for, its ServiceAccount still exists with the same uid and, when bound to a pod, that pod
// still exists with the same uid and was not deleted more than a minute ago; its user then
// carries the pod (and node) in its extra, as kube-apiserver's does.
import { type KeyObject, createHash, generateKeyPairSync, randomUUID, sign, verify } from 'node:crypto';
import type { UserInfo } from '../core/context.js';
import { serviceAccountUsername } from './rules.js';

export const API_AUDIENCE = 'https://kubernetes.default.svc.cluster.local';
export const ISSUER = API_AUDIENCE;
const LEEWAY_SECONDS = 60;

export interface ServiceAccountRef {
  namespace: string;
  name: string;
  uid: string;
}

/** What a token is bound to (TokenRequest's boundObjectRef): a pod, and the node it was on. */
export interface BoundObjects {
  pod?: { name: string; uid: string };
  node?: { name: string; uid: string };
}

/** kube-apiserver's user extra keys for ServiceAccount tokens (pkg/serviceaccount) */
export const EXTRA_CREDENTIAL_ID = 'authentication.kubernetes.io/credential-id';
export const EXTRA_POD_NAME = 'authentication.kubernetes.io/pod-name';
export const EXTRA_POD_UID = 'authentication.kubernetes.io/pod-uid';
export const EXTRA_NODE_NAME = 'authentication.kubernetes.io/node-name';
export const EXTRA_NODE_UID = 'authentication.kubernetes.io/node-uid';

/** a bound pod deleted longer ago than this no longer vouches for its token */
const DELETED_POD_GRACE_SECONDS = 60;
const INVALIDATED = 'service account token has been invalidated';

interface Claims {
  aud: string[];
  exp: number;
  iat: number;
  iss: string;
  jti: string;
  nbf: number;
  sub: string;
  'kubernetes.io': {
    namespace: string;
    node?: { name: string; uid: string };
    pod?: { name: string; uid: string };
    serviceaccount: { name: string; uid: string };
  };
}

const b64 = (v: object | Buffer) =>
  (Buffer.isBuffer(v) ? v : Buffer.from(JSON.stringify(v))).toString('base64url');

export class ServiceAccountTokens {
  private readonly privateKey: KeyObject;
  private readonly publicKey: KeyObject;
  private readonly kid: string;

  constructor(
    /** the ServiceAccount as stored now, or undefined */
    private readonly lookup: (namespace: string, name: string) => { uid?: string } | undefined,
    private readonly now: () => number = Date.now,
    /** the pod as stored now, or undefined (for tokens bound to a pod) */
    private readonly lookupPod: (
      namespace: string,
      name: string,
    ) => { uid?: string; deletionTimestamp?: string } | undefined = () => undefined,
  ) {
    const pair = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    this.privateKey = pair.privateKey;
    this.publicKey = pair.publicKey;
    this.kid = createHash('sha256')
      .update(this.publicKey.export({ type: 'spki', format: 'der' }))
      .digest('base64url');
  }

  issue(
    sa: ServiceAccountRef,
    expirationSeconds: number,
    audiences = [API_AUDIENCE],
    bound: BoundObjects = {},
  ) {
    const iat = Math.floor(this.now() / 1000);
    const claims: Claims = {
      aud: audiences,
      exp: iat + expirationSeconds,
      iat,
      iss: ISSUER,
      jti: randomUUID(),
      'kubernetes.io': {
        namespace: sa.namespace,
        ...(bound.node ? { node: bound.node } : {}),
        ...(bound.pod ? { pod: bound.pod } : {}),
        serviceaccount: { name: sa.name, uid: sa.uid },
      },
      nbf: iat,
      sub: serviceAccountUsername(sa.namespace, sa.name),
    };
    const signed = `${b64({ alg: 'ES256', kid: this.kid })}.${b64(claims)}`;
    const sig = sign('sha256', Buffer.from(signed), { key: this.privateKey, dsaEncoding: 'ieee-p1363' });
    return { token: `${signed}.${b64(sig)}`, expiresAt: new Date(claims.exp * 1000) };
  }

  /**
   * The user a token stands for and the audiences it was accepted for; for a token this server
   * signed that no longer holds, why (kube-apiserver's words); undefined for any other string.
   */
  authenticate(
    token: string,
    audiences = [API_AUDIENCE],
  ): { user: UserInfo; audiences: string[] } | { error: string } | undefined {
    const parts = token.split('.');
    if (parts.length !== 3) return undefined;
    let claims: Claims;
    try {
      const header = JSON.parse(Buffer.from(parts[0], 'base64url').toString('utf8'));
      if (header.alg !== 'ES256' || header.kid !== this.kid) return undefined;
      const ok = verify(
        'sha256',
        Buffer.from(`${parts[0]}.${parts[1]}`),
        { key: this.publicKey, dsaEncoding: 'ieee-p1363' },
        Buffer.from(parts[2], 'base64url'),
      );
      if (!ok) return undefined;
      claims = JSON.parse(Buffer.from(parts[1], 'base64url').toString('utf8'));
    } catch {
      return undefined;
    }
    if (claims.iss !== ISSUER) return { error: `token issuer "${claims.iss}" is invalid` };
    const accepted = audiences.filter((a) => claims.aud.includes(a));
    const goList = (l: string[]) => `[${l.map((x) => JSON.stringify(x)).join(' ')}]`;
    if (accepted.length === 0)
      return {
        error: `token audiences ${goList(claims.aud)} is invalid for the target audiences ${goList(audiences)}`,
      };
    // go-jose's default leeway: a minute either side
    const now = Math.floor(this.now() / 1000);
    if (now > claims.exp + LEEWAY_SECONDS) return { error: 'service account token has expired' };
    if (now < claims.nbf - LEEWAY_SECONDS) return { error: 'service account token is not valid yet' };
    const k = claims['kubernetes.io'];
    const sa = this.lookup(k.namespace, k.serviceaccount.name);
    if (!sa) return { error: `serviceaccounts "${k.serviceaccount.name}" not found` };
    if (sa.uid !== k.serviceaccount.uid)
      return { error: `service account UID (${sa.uid}) does not match claim (${k.serviceaccount.uid})` };
    const extra: Record<string, string[]> = { [EXTRA_CREDENTIAL_ID]: [`JTI=${claims.jti}`] };
    if (k.pod) {
      // kube-apiserver's claims validation: the pod must exist, be the same pod, and not have
      // been deleted more than a minute ago (a graceful deletion's deadline is in the future)
      const pod = this.lookupPod(k.namespace, k.pod.name);
      if (!pod || pod.uid !== k.pod.uid) return { error: INVALIDATED };
      const deleted = pod.deletionTimestamp ? Date.parse(pod.deletionTimestamp) / 1000 : undefined;
      if (deleted !== undefined && deleted < now - DELETED_POD_GRACE_SECONDS) return { error: INVALIDATED };
      extra[EXTRA_POD_NAME] = [k.pod.name];
      extra[EXTRA_POD_UID] = [k.pod.uid];
    }
    if (k.node) {
      extra[EXTRA_NODE_NAME] = [k.node.name];
      extra[EXTRA_NODE_UID] = [k.node.uid];
    }
    return {
      user: {
        username: serviceAccountUsername(k.namespace, k.serviceaccount.name),
        uid: k.serviceaccount.uid,
        groups: ['system:serviceaccounts', `system:serviceaccounts:${k.namespace}`, 'system:authenticated'],
        extra: Object.fromEntries(Object.entries(extra).sort(([a], [b]) => (a < b ? -1 : 1))),
      },
      audiences: accepted,
    };
  }
}
