// ServiceAccount tokens (TokenRequest): JWTs signed ES256 with a key the server makes at
// start, in the shape kube-apiserver issues (iss, sub, aud, exp, iat, nbf, jti and the
// kubernetes.io claim naming the ServiceAccount and its uid). A token authenticates while it
// has not expired, names an audience asked for, and its ServiceAccount still exists with
// the same uid.
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

interface Claims {
  aud: string[];
  exp: number;
  iat: number;
  iss: string;
  jti: string;
  nbf: number;
  sub: string;
  'kubernetes.io': { namespace: string; serviceaccount: { name: string; uid: string } };
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
  ) {
    const pair = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    this.privateKey = pair.privateKey;
    this.publicKey = pair.publicKey;
    this.kid = createHash('sha256')
      .update(this.publicKey.export({ type: 'spki', format: 'der' }))
      .digest('base64url');
  }

  issue(sa: ServiceAccountRef, expirationSeconds: number, audiences = [API_AUDIENCE]) {
    const iat = Math.floor(this.now() / 1000);
    const claims: Claims = {
      aud: audiences,
      exp: iat + expirationSeconds,
      iat,
      iss: ISSUER,
      jti: randomUUID(),
      'kubernetes.io': { namespace: sa.namespace, serviceaccount: { name: sa.name, uid: sa.uid } },
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
    return {
      user: {
        username: serviceAccountUsername(k.namespace, k.serviceaccount.name),
        uid: k.serviceaccount.uid,
        groups: ['system:serviceaccounts', `system:serviceaccounts:${k.namespace}`, 'system:authenticated'],
        extra: { 'authentication.kubernetes.io/credential-id': [`JTI=${claims.jti}`] },
      },
      audiences: accepted,
    };
  }
}
