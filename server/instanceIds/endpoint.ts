// POST /instance-ids/acquire and /instance-ids/release: the HTTP endpoint a pod calls with its
// own ServiceAccount token, behind the console's request gate (which lets the route through
// only with `Authorization: Bearer`, never on a session). A pod may ask only for itself:
// the token is checked with a TokenReview (sent with Palisade's credentials; the token is
// data, never used against the API), must be a ServiceAccount token bound to a pod
// (kube-apiserver puts authentication.kubernetes.io/pod-name and pod-uid in the user's extra),
// and that pod must be the one named in the body, in the token's namespace, with the uid the
// token was bound to. Only then does Palisade write, with its own credentials.
import type http from 'node:http';
import * as k8s from '@kubernetes/client-node';
import { z } from 'zod';
import {
  ACQUIRE_PATH,
  type InstanceIdRefusal,
  type RefusalCode,
  RELEASE_PATH,
} from '../../lib/instanceIds/types.js';
import type { ClusterId } from '../../lib/console/protocol.js';
import { errorText } from '../../lib/kube/errorText.js';
import { BodyError, bearerToken, readJson, sendJson } from '../auth/http.js';
import type { ClusterConnection } from '../kube/connection.js';
import { component, type Logger } from '../log.js';
import { type CasOptions, InstanceIdCas, type Outcome } from './cas.js';
import { holderFactsOf } from './holderFacts.js';

export const EXTRA_POD_NAME = 'authentication.kubernetes.io/pod-name';
export const EXTRA_POD_UID = 'authentication.kubernetes.io/pod-uid';
const SA_USER = /^system:serviceaccount:([^:]+):([^:]+)$/;

const name = z
  .string({ error: 'must be a string' })
  .min(1, 'is required')
  .max(253, 'is longer than 253 characters')
  .regex(/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/, 'must be a lowercase RFC 1123 name');
const requestBody = z.object({ namespace: name, pod: name });

/** Who the token stands for, on the cluster that issued it. */
interface TokenOwner {
  cluster: ClusterConnection;
  namespace: string;
  serviceAccount: string;
  pod?: string;
  podUid?: string;
}

function refusal(
  res: http.ServerResponse,
  status: number,
  code: RefusalCode,
  error: string,
  headers = {},
  waiting?: InstanceIdRefusal['waiting'],
) {
  const body: InstanceIdRefusal = { code, error, ...(waiting ? { waiting } : {}) };
  sendJson(res, status, body, headers);
}

export class InstanceIdEndpoint {
  /** one compare-and-swap adapter per cluster, with Palisade's own credentials */
  readonly cas = new Map<ClusterId, InstanceIdCas>();
  private readonly reviewers = new Map<ClusterId, k8s.AuthenticationV1Api>();
  private readonly log: Logger;

  constructor(
    private readonly clusters: Map<ClusterId, ClusterConnection>,
    opts: { cas?: CasOptions; logger?: Logger } = {},
  ) {
    this.log = component('instance-ids', {}, opts.logger);
    for (const c of clusters.values()) {
      this.cas.set(
        c.id,
        new InstanceIdCas(c.spec.kc, opts.cas, this.log.child({ cluster: c.id }), holderFactsOf(c)),
      );
      this.reviewers.set(c.id, c.spec.kc.makeApiClient(k8s.AuthenticationV1Api));
    }
  }

  async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    const action = path === ACQUIRE_PATH ? 'acquire' : path === RELEASE_PATH ? 'release' : undefined;
    if (!action)
      return refusal(res, 404, 'bad_request', `no such endpoint: ${ACQUIRE_PATH} and ${RELEASE_PATH} are`);
    if (req.method !== 'POST')
      return refusal(res, 405, 'bad_request', `${path} takes POST`, { allow: 'POST' });
    const token = bearerToken(req);
    if (!token)
      return refusal(
        res,
        401,
        'unauthenticated',
        "send the pod's ServiceAccount token as Authorization: Bearer <token>",
      );
    let body: z.infer<typeof requestBody>;
    try {
      const parsed = requestBody.safeParse(await readJson(req, 4096));
      if (!parsed.success)
        return refusal(
          res,
          400,
          'bad_request',
          parsed.error.issues.map((i) => `${i.path.join('.') || 'body'}: ${i.message}`).join('; '),
        );
      body = parsed.data;
    } catch (e) {
      if (e instanceof BodyError) return refusal(res, e.status, 'bad_request', e.message);
      throw e;
    }
    const who = await this.tokenOwner(token);
    if ('refused' in who) return refusal(res, who.status, who.code, who.refused);
    const asked = `${body.namespace}/${body.pod}`;
    if (!who.pod || !who.podUid)
      return refusal(
        res,
        403,
        'not_a_pod_token',
        `the token of ServiceAccount ${who.namespace}/${who.serviceAccount} is not bound to a pod: send the pod's own projected token (/var/run/secrets/kubernetes.io/serviceaccount/token), not a Secret-based one or one requested without a boundObjectRef`,
      );
    if (who.namespace !== body.namespace || who.pod !== body.pod)
      return refusal(
        res,
        403,
        'not_this_pod',
        `the token is bound to pod ${who.namespace}/${who.pod}, not ${asked}: a pod may ${action} only its own instance ID`,
      );
    // palisade.yaml (or --read-only) says Palisade changes nothing on this cluster
    if (who.cluster.spec.mode === 'read-only')
      return refusal(
        res,
        403,
        'read_only',
        `cluster "${who.cluster.id}" is read-only: Palisade changes nothing there, instance-ID maps included`,
      );
    const cas = this.cas.get(who.cluster.id)!;
    const identity = { namespace: body.namespace, pod: body.pod, uid: who.podUid };
    const outcome: Outcome<object> =
      action === 'acquire' ? await cas.acquire(identity) : await cas.release(identity);
    if (!outcome.ok) {
      this.log.info(
        { cluster: who.cluster.id, pod: asked, action, code: outcome.code, retries: outcome.retries },
        `instance ID ${action} refused: ${outcome.message}`,
      );
      return refusal(res, outcome.status, outcome.code, outcome.message, {}, outcome.waiting);
    }
    const { ok: _ok, ...answer } = outcome as Record<string, unknown>;
    if (action === 'acquire') {
      // the answer a pod gets: what lib/instanceIds/types.ts says, not the adapter's detail
      const { dropped: _d, released: _r, ...shown } = answer;
      return sendJson(res, 200, shown);
    }
    return sendJson(res, 200, answer);
  }

  /** A TokenReview on each cluster (a token authenticates only where it was issued). */
  private async tokenOwner(
    token: string,
  ): Promise<TokenOwner | { refused: string; status: number; code: RefusalCode }> {
    const answers = await Promise.all(
      [...this.clusters.values()].map(async (cluster) => {
        try {
          const r = await this.reviewers.get(cluster.id)!.createTokenReview({ body: { spec: { token } } });
          return { cluster, status: r.status };
        } catch (e) {
          return { cluster, error: errorText(e) };
        }
      }),
    );
    const ok = answers.find((a) => a.status?.authenticated);
    if (!ok) {
      const failed = answers.filter((a) => 'error' in a);
      // no cluster could even be asked: that is not the token's fault
      if (failed.length === answers.length)
        return {
          refused: `the token could not be checked: ${failed.map((a) => `cluster ${a.cluster.id}: ${a.error}`).join('; ')}`,
          status: 502,
          code: 'cluster_error',
        };
      const why = answers
        .map((a) => ('error' in a ? `cluster ${a.cluster.id}: ${a.error}` : a.status?.error))
        .filter(Boolean);
      return {
        refused: `no cluster accepts the token${why.length ? ` (${why.join('; ')})` : ''}`,
        status: 401,
        code: 'unauthenticated',
      };
    }
    const user = ok.status!.user ?? {};
    const m = SA_USER.exec(user.username ?? '');
    if (!m)
      return {
        refused: `the token authenticates as ${user.username ?? '(nobody)'}, not a ServiceAccount: send the pod's own ServiceAccount token`,
        status: 403,
        code: 'not_a_pod_token',
      };
    return {
      cluster: ok.cluster,
      namespace: m[1],
      serviceAccount: m[2],
      pod: user.extra?.[EXTRA_POD_NAME]?.[0],
      podUid: user.extra?.[EXTRA_POD_UID]?.[0],
    };
  }
}
