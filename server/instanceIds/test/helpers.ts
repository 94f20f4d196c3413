// Test helpers for the instance-ID endpoint: workloads whose pods stay Pending (so a test
// decides who asks, and when), pod-bound tokens as a kubelet gets them, and the endpoint's
// answers read raw.
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type * as k8s from '@kubernetes/client-node';
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { eventually } from '../../../sim/apiserver/test/harness.js';
import { INSTANCE_IDS_ANNOTATION, INSTANCE_IDS_LABEL } from '../../../lib/instanceIds/types.js';

/** matches no node: the pods exist and never run */
export const NOWHERE = { 'palisade.dev/test-nowhere': 'true' };

export function deployment(
  namespace: string,
  name: string,
  replicas: number,
  opts: {
    runs?: boolean;
    env?: k8s.V1EnvVar[];
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    /** labelled palisade.dev/instance-ids-enabled=true (default) */
    optIn?: boolean;
  } = {},
): k8s.V1Deployment {
  const optIn: Record<string, string> = opts.optIn === false ? {} : { [INSTANCE_IDS_LABEL]: 'true' };
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: {
      name,
      namespace,
      labels: { app: name, ...optIn, ...opts.labels },
      annotations: opts.annotations,
    },
    spec: {
      replicas,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: {
          terminationGracePeriodSeconds: 5,
          ...(opts.runs ? {} : { nodeSelector: NOWHERE }),
          containers: [
            { name: 'app', image: 'registry.example/app:1.0', ...(opts.env ? { env: opts.env } : {}) },
          ],
        },
      },
    },
  };
}

/** The workload's pods that exist and are not terminating, once there are `n` of them. */
export async function livePods(
  core: k8s.CoreV1Api,
  namespace: string,
  app: string,
  n: number,
  timeoutMs = 60_000,
) {
  return eventually(
    async () => {
      const list = await core.listNamespacedPod({ namespace, labelSelector: `app=${app}` });
      const live = list.items.filter((p) => !p.metadata?.deletionTimestamp);
      return live.length === n && live;
    },
    `${n} pods of ${namespace}/${app}`,
    timeoutMs,
  );
}

/**
 * The workload's pods once `n` of them run on a node (deployment `runs: true`). A pod not yet
 * scheduled runs nowhere: the collector may rightly give back an ID such a pod is named with.
 */
export async function runningPods(core: k8s.CoreV1Api, namespace: string, app: string, n: number) {
  return eventually(
    async () => {
      const live = await livePods(core, namespace, app, n);
      return live.every((p) => p.spec?.nodeName && p.status?.phase === 'Running') && live;
    },
    `${n} pods of ${namespace}/${app} running`,
    60_000,
  );
}

/** A token bound to the pod, as the kubelet requests it for the projected volume. */
export async function podToken(core: k8s.CoreV1Api, pod: k8s.V1Pod): Promise<string> {
  const r = await core.createNamespacedServiceAccountToken({
    namespace: pod.metadata!.namespace!,
    name: pod.spec?.serviceAccountName || 'default',
    body: {
      spec: {
        audiences: [],
        expirationSeconds: 3600,
        boundObjectRef: { apiVersion: 'v1', kind: 'Pod', name: pod.metadata!.name!, uid: pod.metadata!.uid! },
      },
    },
  });
  return r.status!.token;
}

export interface Answer {
  status: number;
  body: any;
}

/**
 * POST /instance-ids/<action> as a pod would. Through node:http, not fetch: fetch gives up on an
 * answer after 300 s (undici's headersTimeout), and the unbatched herd's last pod is answered
 * after up to 540 s at load (race.int.test.ts), which the endpoint's own deadline allows.
 */
export async function ask(
  url: string,
  action: 'acquire' | 'release',
  token: string | undefined,
  body: unknown,
): Promise<Answer> {
  const payload = typeof body === 'string' ? body : JSON.stringify(body);
  const target = new URL(`${url}/instance-ids/${action}`);
  const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
  const { status, text } = await new Promise<{ status: number; text: string }>((resolve, reject) => {
    const req = send(
      target,
      {
        method: 'POST',
        agent: false,
        headers: {
          ...(token ? { authorization: `Bearer ${token}` } : {}),
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(payload),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString() }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = text;
  }
  return { status, body: parsed };
}

/** The map annotation as stored. */
export async function mapOf(
  apps: k8s.AppsV1Api,
  namespace: string,
  name: string,
): Promise<string | undefined> {
  const d = await apps.readNamespacedDeployment({ namespace, name });
  return d.metadata?.annotations?.[INSTANCE_IDS_ANNOTATION];
}

/** Run `fn` over `items` with at most `n` at once. */
export async function pool<T, R>(items: T[], n: number, fn: (t: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(n, items.length) }, async () => {
      while (next < items.length) {
        const i = next++;
        out[i] = await fn(items[i]);
      }
    }),
  );
  return out;
}

/**
 * A kubeconfig for a ServiceAccount of the cluster (its token requested now), the way Palisade
 * runs with the rights a person granted it.
 */
export async function serviceAccountKc(
  admin: k8s.KubeConfig,
  namespace: string,
  name: string,
): Promise<k8s.KubeConfig> {
  const core = admin.makeApiClient(CoreV1Api);
  const r = await core.createNamespacedServiceAccountToken({
    namespace,
    name,
    body: { spec: { audiences: [], expirationSeconds: 3600 } },
  });
  const cluster = admin.getCurrentCluster()!;
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [cluster],
    users: [{ name, token: r.status!.token }],
    contexts: [{ name: admin.getCurrentContext(), cluster: cluster.name, user: name }],
    currentContext: admin.getCurrentContext(),
  });
  return kc;
}
