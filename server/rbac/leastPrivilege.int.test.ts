// Least privilege, proven: every rule the chart grants Palisade's ServiceAccount is needed.
// The chart's RBAC is applied (kubectl apply --server-side, as the admin), Palisade's identity
// is a TokenRequest token of the chart's ServiceAccount, and for each rule one small scenario
// makes the calls Palisade makes for it (through Palisade's own code where it is a function of
// a kubeconfig: the fencing controller's FencingApi and Release, the fences webhook's
// SubjectAccessReview, the epoch webhook's Lease read, the protection status writer, sign-in's
// impersonation; otherwise the same client-node call, named by its source). Each scenario
// passes with the chart's roles; with exactly its rule removed it fails with the API server's
// 403 for that verb and resource; with the rule restored it passes again. A last test checks
// every rule of every role bound to the ServiceAccount has a scenario here.
import * as k8s from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  FENCE_PLURAL,
  GROUP as FENCE_GROUP,
  POLICY_PLURAL,
  VERSION as FENCE_VERSION,
} from '../../lib/fencing/types.js';
import {
  GROUP as PPR_GROUP,
  PLURAL as PPR_PLURAL,
  VERSION as PPR_VERSION,
} from '../../lib/protection/types.js';
import { eventually } from '../../sim/apiserver/test/harness.js';
import { rwoDatabaseScenario, startScenario } from '../../sim/test/clusterHarness.js';
import { makeClientAs } from '../auth/kubeAs.js';
import { FencingApi } from '../fencing/api.js';
import { subjectAccess } from '../fencing/approvalWebhook.js';
import { Release } from '../fencing/release.js';
import { liveLease } from '../leader/epochWebhook.js';
import { keepAliveStatusApi } from '../protection/statusWrite.js';
import { TRIGGER_POD } from '../protection/updateTrigger.js';
import { createProtector } from '../protection/test/protectionHarness.js';
import {
  installChartRbac,
  kubeConfigAs,
  mintToken,
  objectsOf,
  renderRbac,
  SERVICE_ACCOUNT_USER,
  servesAdmissionPolicies,
  TEST_RELEASE_NAMESPACE as RELEASE_NS,
  TEST_SESSION_NAMESPACE as SESSION_NS,
  VALUE_SETS,
} from './chart.js';

type Cluster = Awaited<ReturnType<typeof startScenario>>;
type Rule = k8s.V1PolicyRule;
type Role = { kind: 'ClusterRole' | 'Role'; name: string; namespace?: string; rules: Rule[] };

const NS = 'shop';
const GROUP_ALLOWED = 'palisade-oncall';
const SERVING = 'palisade-webhook-serving';
const LEADER_LEASE = 'palisade-controller';
const VWC = 'palisade-nodefences';

let c: Cluster;
let kc: k8s.KubeConfig;
let roles: Role[];
let rbac: k8s.RbacAuthorizationV1Api;
/** nodes without the database's pod: one to taint, one whose pods and attachments are released */
let taintNode: string;
let releaseNode: string;

// OIDC on (impersonation), a group, instance IDs in NS, a FencePolicy from palisade.yaml
const VALUES = VALUE_SETS['least-privilege test'].values!;
const CONFIG_POLICY = 'lp-config';
const SESSION_KEY = 'palisade-session-key';

beforeAll(async () => {
  c = await startScenario(rwoDatabaseScenario({ name: 'least-privilege', namespace: NS, nodes: 3 }));
  // the workload guard too, where the cluster serves ValidatingAdmissionPolicies (as helm install does)
  const rendered = await renderRbac({
    values: VALUES,
    admissionPolicies: await servesAdmissionPolicies(c.kc),
  });
  roles = objectsOf(rendered)
    .filter((o) => o.kind === 'ClusterRole' || o.kind === 'Role')
    .filter(
      (o) =>
        !(o as k8s.V1ClusterRole).aggregationRule &&
        !/^palisade-(viewer|operator|admin)/.test(o.metadata!.name!),
    )
    .map((o) => ({
      kind: o.kind as Role['kind'],
      name: o.metadata!.name!,
      namespace: o.metadata!.namespace,
      rules: (o as k8s.V1ClusterRole).rules ?? [],
    }));
  // the chart's roles only: not the test role the suites that register webhooks get
  await installChartRbac(c.kc, rendered, false);
  kc = kubeConfigAs(c.kc, await mintToken(c.kc));
  rbac = c.kc.makeApiClient(k8s.RbacAuthorizationV1Api);
  const web = await eventually(
    async () => (await c.core.readNamespacedPod({ namespace: NS, name: 'web-0' })).spec?.nodeName,
    'web-0 scheduled',
    60_000,
  );
  const free = (await c.core.listNode()).items.map((n) => n.metadata!.name!).filter((n) => n !== web);
  [taintNode, releaseNode] = free;
  await createProtector(c.kc.makeApiClient(k8s.CustomObjectsApi), NS, 'guarded', {
    minAvailable: 1,
    selector: { app: 'guarded' },
  });
}, 180_000);

afterAll(async () => {
  await c?.stop();
});

// ---- the rules, and a scenario for each ---------------------------------------------------

const admin = {
  core: () => c.core,
  custom: () => c.kc.makeApiClient(k8s.CustomObjectsApi),
};
const gone = (e: unknown) => {
  if ((e as { code?: number }).code !== 404) throw e;
};
const exists = (e: unknown) => {
  if ((e as { code?: number }).code !== 409) throw e;
};

interface Case {
  /** the role (name suffix) and the rule: its resources and verbs, as the chart writes them */
  role: string;
  resources: string[];
  verbs: string[];
  resourceNames?: boolean;
  /** what the scenario is, as a test name */
  what: string;
  /** the verb and resource (as the 403 names it) the scenario needs first */
  needs: [verb: string, resource: string];
  /** the admin's preparation before each run (fixtures; idempotent) */
  setup?: () => Promise<void>;
  /** rules also removed for this case (a rule of another role that grants a superset here) */
  alsoRemove?: { role: string; resources: string[]; verbs?: string[] }[];
  run: () => Promise<unknown>;
  /** whether this cluster serves what the scenario needs (default: yes) */
  served?: () => Promise<boolean>;
}

const configPolicy = () => ({
  apiVersion: `${FENCE_GROUP}/${FENCE_VERSION}`,
  kind: 'FencePolicy',
  metadata: { name: CONFIG_POLICY, annotations: { 'palisade.dev/defined-in': 'palisade.yaml' } },
  spec: { agent: { type: 'power' }, paused: true },
});

/** a Deployment the generator would select, in a namespace instanceIds.namespaces does not list */
const generatedDeployment = async () => {
  await c.apps
    .createNamespacedDeployment({
      namespace: 'default',
      body: {
        metadata: { name: 'lp-generated', labels: { 'podseidon.kubewharf.io/protect': 'true' } },
        spec: {
          replicas: 0,
          selector: { matchLabels: { app: 'lp-generated' } },
          template: {
            metadata: { labels: { app: 'lp-generated' } },
            spec: { containers: [{ name: 'c', image: 'registry.k8s.io/pause:3.10' }] },
          },
        },
      },
    })
    .catch(exists);
};

/** the embedded API server serves no Jobs: those scenarios run on the real control plane */
const servesJobs = async () =>
  (await c.kc.makeApiClient(k8s.BatchV1Api).getAPIResources()).resources.some((r) => r.name === 'jobs');

const suspendedJob = async (namespace: string) => {
  await c.kc
    .makeApiClient(k8s.BatchV1Api)
    .createNamespacedJob({
      namespace,
      body: {
        metadata: { name: 'lp-job' },
        spec: {
          suspend: true,
          template: {
            spec: {
              restartPolicy: 'Never',
              containers: [{ name: 'c', image: 'registry.k8s.io/pause:3.10' }],
            },
          },
        },
      },
    })
    .catch(exists);
};

const lease = (name: string, holder: string): k8s.V1Lease => ({
  metadata: { name, namespace: RELEASE_NS },
  spec: { holderIdentity: holder, leaseDurationSeconds: 15, leaseTransitions: 0 },
});

/** the Incident CRD (deploy/crds/palisade.dev_incidents.yaml), as the incident tracker addresses it */
const INCIDENTS = { group: 'palisade.dev', version: 'v1alpha1', plural: 'incidents' };
const INCIDENT = 'inc-20261130-045408';
const incident = () => ({
  apiVersion: `${INCIDENTS.group}/${INCIDENTS.version}`,
  kind: 'Incident',
  metadata: { name: INCIDENT },
  spec: { title: 'zone-a down', severity: 'SEV2', startedAt: '2026-11-30T04:54:08Z', declaredBy: 'palisade' },
});

/**
 * An informer's watch from a list's resourceVersion, open once this resolves: `seen` settles with
 * the first event for `name` (or the watch's error, or after 10 s), `stop` closes the watch.
 */
async function watchFor(path: string, resourceVersion: string | undefined, name: string) {
  let settle!: (e?: unknown) => void;
  const seen = new Promise<void>((resolve, reject) => {
    settle = (e) => (e ? reject(e) : resolve());
  });
  // awaited by the scenario; not when a call before it failed (then the watch is stopped unread)
  seen.catch(() => {});
  const timer = setTimeout(() => settle(new Error(`no watch event for ${name} within 10 s`)), 10_000);
  const abort = await new k8s.Watch(kc).watch(
    path,
    { resourceVersion, allowWatchBookmarks: true },
    (type, obj: k8s.KubernetesObject) => {
      if (type !== 'BOOKMARK' && obj?.metadata?.name === name) settle();
    },
    (e) => settle(e ?? new Error(`the watch ended before an event for ${name}`)),
  );
  return {
    seen,
    stop: () => {
      clearTimeout(timer);
      abort.abort();
    },
  };
}

const CASES: Case[] = [
  // console: the shared watches
  {
    role: 'console',
    resources: ['nodes', 'pods', 'persistentvolumes', 'persistentvolumeclaims', 'events'],
    verbs: ['list', 'watch'],
    what: "the console's node, pod, volume and Event informers list",
    needs: ['list', 'nodes'],
    run: async () => {
      const core = kc.makeApiClient(k8s.CoreV1Api);
      await core.listNode();
      await core.listPodForAllNamespaces({ limit: 1 });
      await core.listPersistentVolume({ limit: 1 });
      await core.listPersistentVolumeClaimForAllNamespaces({ limit: 1 });
      await core.listEventForAllNamespaces({ limit: 1 });
    },
  },
  {
    role: 'console',
    resources: ['pods'],
    verbs: ['get'],
    what: 'the pod page reads a pod live (server/trpc/pods.ts)',
    needs: ['get', 'pods'],
    run: () => kc.makeApiClient(k8s.CoreV1Api).readNamespacedPod({ namespace: NS, name: 'web-0' }),
  },
  {
    role: 'console',
    resources: ['events'],
    verbs: ['create'],
    what: "a guarded action's record Event (server/actions/record.ts)",
    needs: ['create', 'events'],
    run: () =>
      kc.makeApiClient(k8s.CoreV1Api).createNamespacedEvent({
        namespace: NS,
        dryRun: 'All',
        body: {
          metadata: { generateName: 'palisade-action-', namespace: NS },
          involvedObject: { kind: 'Pod', namespace: NS, name: 'web-0' },
          reason: 'ForceDelete',
          message: 'least-privilege test',
          type: 'Normal',
        },
      }),
  },
  {
    role: 'console',
    resources: ['deployments', 'statefulsets', 'replicasets'],
    verbs: ['list', 'watch'],
    what: "the workload informers and the generator's list",
    needs: ['list', 'deployments'],
    run: async () => {
      const apps = kc.makeApiClient(k8s.AppsV1Api);
      await apps.listDeploymentForAllNamespaces({ limit: 1 });
      await apps.listStatefulSetForAllNamespaces({ limit: 1 });
      await apps.listReplicaSetForAllNamespaces({ limit: 1 });
    },
  },
  {
    role: 'console',
    resources: ['deployments', 'statefulsets'],
    verbs: ['get'],
    what: 'the Instance IDs page reads a workload live, where no instance-ID grant reaches (server/trpc/instanceIds.ts)',
    needs: ['get', 'deployments'],
    setup: () => generatedDeployment(),
    run: () =>
      kc
        .makeApiClient(k8s.AppsV1Api)
        .readNamespacedDeployment({ namespace: 'default', name: 'lp-generated' }),
  },
  {
    role: 'console',
    resources: ['jobs'],
    verbs: ['get'],
    what: 'the Instance IDs page reads a Job live, where no instance-ID grant reaches (server/trpc/instanceIds.ts)',
    needs: ['get', 'jobs'],
    served: servesJobs,
    setup: () => suspendedJob('default'),
    run: () => kc.makeApiClient(k8s.BatchV1Api).readNamespacedJob({ namespace: 'default', name: 'lp-job' }),
  },
  {
    role: 'console',
    resources: ['volumeattachments'],
    verbs: ['list', 'watch'],
    what: 'the VolumeAttachment informer lists',
    needs: ['list', 'volumeattachments'],
    run: () => kc.makeApiClient(k8s.StorageV1Api).listVolumeAttachment({ limit: 1 }),
  },
  {
    role: 'console',
    resources: ['endpointslices'],
    verbs: ['list', 'watch'],
    what: 'the EndpointSlice informer lists',
    needs: ['list', 'endpointslices'],
    run: () => kc.makeApiClient(k8s.DiscoveryV1Api).listEndpointSliceForAllNamespaces({ limit: 1 }),
  },
  {
    role: 'node-leases',
    resources: ['leases'],
    verbs: ['get', 'list', 'watch'],
    what: "the node Lease informer lists; the fencing controller's live read of a node and its Lease",
    needs: ['list', 'leases'],
    run: async () => {
      await kc
        .makeApiClient(k8s.CoordinationV1Api)
        .listNamespacedLease({ namespace: 'kube-node-lease', limit: 1 });
      const live = await new FencingApi(kc).liveNode(taintNode);
      if (!live?.lease) throw new Error(`node ${taintNode} has no Lease`);
    },
  },
  {
    role: 'sessions',
    resources: ['secrets'],
    verbs: ['get', 'list', 'watch', 'create', 'update', 'delete'],
    what: "a browser session Secret in the sessions' namespace: listed, created, updated, deleted (server/auth/sessionSecrets.ts)",
    needs: ['list', 'secrets'],
    run: async () => {
      const core = kc.makeApiClient(k8s.CoreV1Api);
      const selector = 'app.kubernetes.io/component=session';
      await core.listNamespacedSecret({ namespace: SESSION_NS, labelSelector: selector });
      const name = `palisade-session-lp-${Date.now()}`;
      const s = await core.createNamespacedSecret({
        namespace: SESSION_NS,
        body: { metadata: { name, labels: { 'app.kubernetes.io/component': 'session' } }, data: {} },
      });
      await core.replaceNamespacedSecret({
        namespace: SESSION_NS,
        name,
        body: { ...s, data: { a: 'Yg==' } },
      });
      await core.deleteNamespacedSecret({ namespace: SESSION_NS, name });
    },
  },
  {
    role: 'session-key',
    resources: ['secrets'],
    verbs: ['create'],
    what: 'the first replica makes the session key Secret (the serving Secret Role grants create too)',
    needs: ['create', 'secrets'],
    alsoRemove: [{ role: 'webhook-serving', resources: ['secrets'], verbs: ['create'] }],
    setup: () =>
      admin
        .core()
        .deleteNamespacedSecret({ namespace: RELEASE_NS, name: SESSION_KEY })
        .then(() => {}, gone),
    run: () =>
      kc.makeApiClient(k8s.CoreV1Api).createNamespacedSecret({
        namespace: RELEASE_NS,
        body: { metadata: { name: SESSION_KEY }, data: { key: Buffer.alloc(32).toString('base64') } },
      }),
  },
  {
    role: 'session-key',
    resources: ['secrets'],
    verbs: ['get'],
    resourceNames: true,
    what: 'every replica reads the session key, by name',
    needs: ['get', 'secrets'],
    setup: () =>
      admin
        .core()
        .createNamespacedSecret({
          namespace: RELEASE_NS,
          body: { metadata: { name: SESSION_KEY }, data: { key: Buffer.alloc(32).toString('base64') } },
        })
        .then(() => {}, exists),
    run: () =>
      kc.makeApiClient(k8s.CoreV1Api).readNamespacedSecret({ namespace: RELEASE_NS, name: SESSION_KEY }),
  },
  // the webhooks
  {
    role: 'webhook',
    resources: ['podprotectors'],
    verbs: ['get', 'list', 'watch'],
    what: "admission's PodProtector informer lists (server/protection/protectors.ts)",
    needs: ['list', 'podprotectors'],
    run: () =>
      kc
        .makeApiClient(k8s.CustomObjectsApi)
        .listClusterCustomObject({ group: PPR_GROUP, version: PPR_VERSION, plural: PPR_PLURAL, limit: 1 }),
  },
  {
    role: 'webhook',
    resources: ['podprotectors/status'],
    verbs: ['get', 'update'],
    what: "admission reserves a deletion in a protector's status (server/protection/statusWrite.ts)",
    needs: ['get', 'podprotectors/status'],
    run: async () => {
      const api = keepAliveStatusApi(kc);
      try {
        const current = await api.readStatus(NS, 'guarded');
        await api.replaceStatus(current as never);
      } finally {
        api.close?.();
      }
    },
  },
  {
    role: 'webhook',
    resources: ['customresourcedefinitions'],
    verbs: ['get'],
    resourceNames: true,
    what: 'protection checks the PodProtector CRD is installed (server/protection/service.ts)',
    needs: ['get', 'customresourcedefinitions'],
    run: () =>
      kc
        .makeApiClient(k8s.ApiextensionsV1Api)
        .readCustomResourceDefinition({ name: 'podprotectors.podseidon.kubewharf.io' }),
  },
  {
    role: 'webhook',
    resources: ['subjectaccessreviews'],
    verbs: ['create'],
    what: 'the fences webhook asks whether a person may approve a NodeFence (approvalWebhook.ts)',
    needs: ['create', 'subjectaccessreviews'],
    run: () => subjectAccess(kc)({ username: 'alice', groups: [] }, 'approve', taintNode),
  },
  {
    role: 'webhook-configurations',
    resources: ['validatingwebhookconfigurations'],
    verbs: ['get', 'patch'],
    resourceNames: true,
    what: "the leader writes the CA into a named webhook configuration's caBundle",
    needs: ['get', 'validatingwebhookconfigurations'],
    setup: async () => {
      await c.kc
        .makeApiClient(k8s.AdmissionregistrationV1Api)
        .createValidatingWebhookConfiguration({
          body: {
            metadata: { name: VWC },
            webhooks: [
              {
                name: 'fences.palisade.dev',
                admissionReviewVersions: ['v1'],
                sideEffects: 'None',
                failurePolicy: 'Ignore',
                clientConfig: { url: 'https://127.0.0.1:1/fences/x' },
                rules: [
                  {
                    apiGroups: ['palisade.dev'],
                    apiVersions: ['v1alpha1'],
                    operations: ['UPDATE'],
                    resources: ['nodefences/status'],
                  },
                ],
              },
            ],
          },
        })
        .catch(exists);
    },
    run: async () => {
      const api = kc.makeApiClient(k8s.AdmissionregistrationV1Api);
      await api.readValidatingWebhookConfiguration({ name: VWC });
      const caBundle = Buffer.from('test CA').toString('base64');
      await api.patchValidatingWebhookConfiguration(
        { name: VWC, body: [{ op: 'add', path: '/webhooks/0/clientConfig/caBundle', value: caBundle }] },
        k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.JsonPatch),
      );
    },
  },
  {
    role: 'webhook-serving',
    resources: ['secrets'],
    verbs: ['create'],
    what: "the first replica makes the serving Secret (the session key's Role grants create too)",
    needs: ['create', 'secrets'],
    alsoRemove: [{ role: 'session-key', resources: ['secrets'], verbs: ['create'] }],
    setup: () =>
      admin
        .core()
        .deleteNamespacedSecret({ namespace: RELEASE_NS, name: SERVING })
        .then(() => {}, gone),
    run: () =>
      kc.makeApiClient(k8s.CoreV1Api).createNamespacedSecret({
        namespace: RELEASE_NS,
        body: {
          metadata: { name: SERVING },
          type: 'kubernetes.io/tls',
          data: { 'tls.crt': '', 'tls.key': '' },
        },
      }),
  },
  {
    role: 'webhook-serving',
    resources: ['secrets'],
    verbs: ['get', 'list', 'watch', 'update', 'patch'],
    resourceNames: true,
    what: 'every replica reads and watches the serving Secret, the leader rotates and stamps it',
    needs: ['get', 'secrets'],
    setup: () =>
      admin
        .core()
        .createNamespacedSecret({
          namespace: RELEASE_NS,
          body: {
            metadata: { name: SERVING },
            type: 'kubernetes.io/tls',
            data: { 'tls.crt': '', 'tls.key': '' },
          },
        })
        .then(() => {}, exists),
    run: async () => {
      const core = kc.makeApiClient(k8s.CoreV1Api);
      const s = await core.readNamespacedSecret({ namespace: RELEASE_NS, name: SERVING });
      await core.listNamespacedSecret({ namespace: RELEASE_NS, fieldSelector: `metadata.name=${SERVING}` });
      const written = await core.replaceNamespacedSecret({ namespace: RELEASE_NS, name: SERVING, body: s });
      await core.patchNamespacedSecret(
        {
          namespace: RELEASE_NS,
          name: SERVING,
          body: {
            metadata: {
              resourceVersion: written.metadata?.resourceVersion,
              annotations: { 'palisade.dev/lp-bundle-synced': new Date().toISOString() },
            },
          },
        },
        k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
      );
    },
  },
  // the controllers
  {
    role: 'controllers',
    resources: ['nodes'],
    verbs: ['get', 'update'],
    what: 'fencing release adds and removes the out-of-service taint (server/fencing/release.ts)',
    needs: ['get', 'nodes'],
    run: async () => {
      const release = new Release(new FencingApi(kc));
      await release.apply(taintNode, 'OutOfServiceTaint');
      if (!(await release.removeTaint(taintNode))) throw new Error('the taint was not there to remove');
    },
  },
  {
    role: 'controllers',
    resources: ['pods'],
    verbs: ['delete'],
    what: "fencing release force-deletes a fenced node's pods, with preconditions",
    needs: ['delete', 'pods'],
    setup: async () => {
      await admin
        .core()
        .createNamespacedPod({
          namespace: NS,
          body: {
            metadata: { name: 'on-fenced-node' },
            spec: { nodeName: releaseNode, containers: [{ name: 'c', image: 'registry.k8s.io/pause:3.10' }] },
          },
        })
        .catch(exists);
    },
    run: async () => {
      const round = await new Release(new FencingApi(kc)).apply(releaseNode, 'ResourceDeletion');
      if (!/force-deleted [1-9]/.test(round.what)) throw new Error(`nothing deleted: ${round.what}`);
    },
  },
  {
    role: 'controllers',
    resources: ['volumeattachments'],
    verbs: ['delete'],
    what: "fencing release deletes a fenced node's VolumeAttachments",
    needs: ['delete', 'volumeattachments'],
    setup: async () => {
      await c.storage
        .createVolumeAttachment({
          body: {
            metadata: { name: 'on-fenced-node' },
            spec: {
              attacher: 'lp.csi.palisade.dev',
              nodeName: releaseNode,
              source: { persistentVolumeName: 'lp-pv' },
            },
          },
        })
        .catch(exists);
    },
    run: async () => {
      const round = await new Release(new FencingApi(kc)).apply(releaseNode, 'ResourceDeletion');
      if (!/deleted [1-9]\d* volume attachment/.test(round.what))
        throw new Error(`nothing detached: ${round.what}`);
    },
  },
  {
    role: 'controllers',
    resources: ['nodefences'],
    verbs: ['get', 'list', 'watch', 'create', 'delete'],
    what: 'the fencing controller creates, reads and deletes a NodeFence (FencingApi)',
    needs: ['list', 'nodefences'],
    run: async () => {
      const api = new FencingApi(kc);
      await api.custom.listClusterCustomObject({
        group: FENCE_GROUP,
        version: FENCE_VERSION,
        plural: FENCE_PLURAL,
      });
      const made = await api.createFence(`lp-${Date.now()}`, 'default');
      const read = await api.readFence(made.metadata.name);
      if (!read) throw new Error('the fence just created is not there');
      await api.deleteFence(read);
    },
  },
  {
    role: 'controllers',
    resources: ['nodefences/status'],
    verbs: ['update'],
    what: "the fencing controller writes a NodeFence's phase (FencingApi.writeStatus)",
    needs: ['update', 'nodefences/status'],
    setup: async () => {
      await admin
        .custom()
        .createClusterCustomObject({
          group: FENCE_GROUP,
          version: FENCE_VERSION,
          plural: FENCE_PLURAL,
          body: {
            apiVersion: `${FENCE_GROUP}/${FENCE_VERSION}`,
            kind: 'NodeFence',
            metadata: { name: 'lp-status' },
            spec: { nodeName: taintNode, policy: 'default' },
          },
        })
        .catch(exists);
    },
    run: async () => {
      const api = new FencingApi(kc);
      const f = await api.readFence('lp-status');
      if (!f) throw new Error('no fence');
      await api.writeStatus(f);
    },
  },
  {
    role: 'controllers',
    resources: ['fencepolicies'],
    verbs: ['list', 'watch'],
    what: 'the FencePolicy informer lists (server/fencing/informers.ts)',
    needs: ['list', 'fencepolicies'],
    run: () =>
      kc.makeApiClient(k8s.CustomObjectsApi).listClusterCustomObject({
        group: FENCE_GROUP,
        version: FENCE_VERSION,
        plural: POLICY_PLURAL,
        limit: 1,
      }),
  },
  {
    role: 'controllers',
    resources: ['fencepolicies'],
    verbs: ['create'],
    what: "the leader creates a FencePolicy of palisade.yaml's fencing.policies (configPolicies.ts)",
    needs: ['create', 'fencepolicies'],
    setup: () =>
      admin
        .custom()
        .deleteClusterCustomObject({
          group: FENCE_GROUP,
          version: FENCE_VERSION,
          plural: POLICY_PLURAL,
          name: CONFIG_POLICY,
        })
        .then(() => {}, gone),
    run: () =>
      kc.makeApiClient(k8s.CustomObjectsApi).createClusterCustomObject({
        group: FENCE_GROUP,
        version: FENCE_VERSION,
        plural: POLICY_PLURAL,
        body: configPolicy(),
      }),
  },
  {
    role: 'controllers',
    resources: ['fencepolicies'],
    verbs: ['get', 'update'],
    resourceNames: true,
    what: "the leader brings a palisade.yaml FencePolicy's spec to the file's, by name (configPolicies.ts)",
    needs: ['get', 'fencepolicies'],
    setup: async () => {
      await admin
        .custom()
        .createClusterCustomObject({
          group: FENCE_GROUP,
          version: FENCE_VERSION,
          plural: POLICY_PLURAL,
          body: configPolicy(),
        })
        .catch(exists);
    },
    run: async () => {
      const custom = kc.makeApiClient(k8s.CustomObjectsApi);
      const ref = { group: FENCE_GROUP, version: FENCE_VERSION, plural: POLICY_PLURAL, name: CONFIG_POLICY };
      const p = (await custom.getClusterCustomObject(ref)) as k8s.KubernetesObject;
      await custom.replaceClusterCustomObject({ ...ref, body: p });
    },
  },
  {
    role: 'controllers',
    resources: ['podprotectors'],
    verbs: ['create', 'update', 'patch', 'delete'],
    what: 'the generator creates, replaces, annotates and deletes a PodProtector (generator.ts)',
    needs: ['create', 'podprotectors'],
    run: async () => {
      const custom = kc.makeApiClient(k8s.CustomObjectsApi);
      const ref = { group: PPR_GROUP, version: PPR_VERSION, plural: PPR_PLURAL, namespace: NS };
      const name = `deployment-lp-${Date.now()}`;
      const made = (await custom.createNamespacedCustomObject({
        ...ref,
        body: {
          apiVersion: `${PPR_GROUP}/${PPR_VERSION}`,
          kind: 'PodProtector',
          metadata: { name },
          spec: { selector: { matchLabels: { app: 'lp' } }, minAvailable: 1 },
        },
      })) as k8s.KubernetesObject;
      await custom.replaceNamespacedCustomObject({ ...ref, name, body: made });
      await custom.patchNamespacedCustomObject(
        { ...ref, name, body: { metadata: { annotations: { 'palisade.dev/lp': 'yes' } } } },
        k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
      );
      await custom.deleteNamespacedCustomObject({ ...ref, name });
    },
  },
  {
    role: 'controllers',
    resources: ['deployments', 'statefulsets'],
    verbs: ['patch'],
    what: 'the generator adds and removes its finalizer on a labelled workload, in any namespace (generator.ts)',
    needs: ['patch', 'deployments'],
    setup: () => generatedDeployment(),
    run: async () => {
      const apps = kc.makeApiClient(k8s.AppsV1Api);
      // the generator's view is its informer (list and watch), then a merge patch with that resourceVersion
      const [d] = (
        await apps.listNamespacedDeployment({
          namespace: 'default',
          fieldSelector: 'metadata.name=lp-generated',
        })
      ).items;
      const patch = (resourceVersion: string | undefined, finalizers: string[]) =>
        apps.patchNamespacedDeployment(
          { namespace: 'default', name: 'lp-generated', body: { metadata: { resourceVersion, finalizers } } },
          k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
        );
      const added = await patch(d.metadata?.resourceVersion, ['podseidon.kubewharf.io/generator']);
      await patch(added.metadata?.resourceVersion, []);
    },
  },
  {
    role: 'controllers',
    resources: ['namespaces'],
    verbs: ['list', 'watch', 'patch'],
    what: "deletion protection's namespace label: the namespace informer lists, the leader labels a namespace holding a protector (namespaceLabels.ts)",
    needs: ['list', 'namespaces'],
    run: async () => {
      const core = kc.makeApiClient(k8s.CoreV1Api);
      await core.listNamespace({ limit: 1 });
      await core.patchNamespace(
        {
          name: NS,
          dryRun: 'All',
          body: { metadata: { labels: { 'palisade.dev/deletion-protection': 'enabled' } } },
        },
        k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
      );
    },
  },
  {
    role: 'controllers',
    resources: ['incidents'],
    verbs: ['list', 'watch', 'create', 'update', 'delete'],
    what: 'the incident tracker lists and watches Incidents, declares one, resolves it and prunes it (server/incident/tracker.ts)',
    needs: ['list', 'incidents'],
    setup: () =>
      admin
        .custom()
        .deleteClusterCustomObject({ ...INCIDENTS, name: INCIDENT })
        .then(() => {}, gone),
    run: async () => {
      const custom = kc.makeApiClient(k8s.CustomObjectsApi);
      // the informer: a list, then a watch from its resourceVersion
      const list = (await custom.listClusterCustomObject(INCIDENTS)) as k8s.KubernetesListObject<never>;
      const watch = await watchFor(
        `/apis/${INCIDENTS.group}/${INCIDENTS.version}/${INCIDENTS.plural}`,
        list.metadata?.resourceVersion,
        INCIDENT,
      );
      let made: ReturnType<typeof incident>;
      try {
        // declare
        made = (await custom.createClusterCustomObject({ ...INCIDENTS, body: incident() })) as typeof made;
        await watch.seen;
      } finally {
        watch.stop();
      }
      // resolve: a replace of spec.resolvedAt, conditional on the resourceVersion it holds (the
      // tracker writes from its informer's copy: no live read)
      await custom.replaceClusterCustomObject({
        ...INCIDENTS,
        name: INCIDENT,
        body: { ...made, spec: { ...made.spec, resolvedAt: '2026-11-30T05:10:00Z', resolvedBy: 'palisade' } },
      });
      // prune: a resolved incident beyond the newest 50
      await custom.deleteClusterCustomObject({ ...INCIDENTS, name: INCIDENT });
    },
  },
  {
    role: 'controllers',
    resources: ['incidents/status'],
    verbs: ['update'],
    what: "the incident tracker writes an Incident's status (server/incident/tracker.ts)",
    needs: ['update', 'incidents/status'],
    setup: async () => {
      await admin
        .custom()
        .createClusterCustomObject({ ...INCIDENTS, body: incident() })
        .catch(exists);
    },
    run: async () => {
      const custom = kc.makeApiClient(k8s.CustomObjectsApi);
      // the informer's copy: from a list, as the tracker has it
      const list = (await custom.listClusterCustomObject(INCIDENTS)) as { items: k8s.KubernetesObject[] };
      const read = list.items.find((i) => i.metadata?.name === INCIDENT)!;
      await custom.replaceClusterCustomObjectStatus({
        ...INCIDENTS,
        name: INCIDENT,
        body: { ...read, status: { healthySince: '2026-11-30T05:00:00Z' } },
      });
    },
  },
  {
    role: 'leader-election',
    resources: ['leases'],
    verbs: ['get', 'create', 'update'],
    what: 'a replica creates, reads (epoch webhook: liveLease) and renews the controller Lease',
    needs: ['get', 'leases'],
    setup: () =>
      c.kc
        .makeApiClient(k8s.CoordinationV1Api)
        .deleteNamespacedLease({ namespace: RELEASE_NS, name: LEADER_LEASE })
        .then(() => {}, gone),
    run: async () => {
      const co = kc.makeApiClient(k8s.CoordinationV1Api);
      await liveLease(kc, RELEASE_NS, LEADER_LEASE)().catch(gone);
      const l = await co.createNamespacedLease({ namespace: RELEASE_NS, body: lease(LEADER_LEASE, 'lp') });
      await co.replaceNamespacedLease({ namespace: RELEASE_NS, name: LEADER_LEASE, body: l });
    },
  },
  {
    role: 'update-trigger',
    resources: ['pods'],
    verbs: ['patch'],
    resourceNames: true,
    what: "Podseidon's update trigger annotates the chart's pod every interval (updateTrigger.ts)",
    needs: ['patch', 'pods'],
    setup: () =>
      admin
        .core()
        .createNamespacedPod({
          namespace: 'default',
          body: {
            metadata: { name: TRIGGER_POD },
            spec: {
              nodeName: 'podseidon-update-trigger-no-such-node',
              containers: [{ name: 'c', image: 'registry.k8s.io/pause:3.10' }],
            },
          },
        })
        .then(() => {}, exists),
    run: () =>
      kc.makeApiClient(k8s.CoreV1Api).patchNamespacedPod(
        {
          namespace: 'default',
          name: TRIGGER_POD,
          body: {
            metadata: {
              annotations: { 'podseidon.kubewharf.io/update-trigger-time': new Date().toISOString() },
            },
          },
        },
        k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
      ),
  },
  {
    role: 'fence-agent-credentials',
    resources: ['secrets'],
    verbs: ['get'],
    resourceNames: true,
    what: "an exec fence agent's credentials are read before a run, by name (server/fenceAgents/secrets.ts)",
    needs: ['get', 'secrets'],
    setup: () =>
      admin
        .core()
        .createNamespacedSecret({
          namespace: 'palisade-system',
          body: { metadata: { name: 'bmc' }, stringData: { password: 'x' } },
        })
        .then(() => {}, exists),
    run: () =>
      kc.makeApiClient(k8s.CoreV1Api).readNamespacedSecret({ namespace: 'palisade-system', name: 'bmc' }),
  },
  // impersonation
  {
    role: 'impersonation',
    resources: ['users'],
    verbs: ['impersonate'],
    what: 'OIDC sign-in asks the cluster who the person is, impersonating them (whoami.ts)',
    needs: ['impersonate', 'users'],
    run: () =>
      makeClientAs(
        kc,
        { kind: 'impersonate', as: { username: 'alice', groups: [] } },
        k8s.AuthenticationV1Api,
      ).createSelfSubjectReview({ body: {} }),
  },
  {
    role: 'impersonation',
    resources: ['groups'],
    verbs: ['impersonate'],
    resourceNames: true,
    what: 'a person in a configured group is impersonated with it',
    needs: ['impersonate', 'groups'],
    run: () =>
      makeClientAs(
        kc,
        { kind: 'impersonate', as: { username: 'alice', groups: [GROUP_ALLOWED] } },
        k8s.AuthenticationV1Api,
      ).createSelfSubjectReview({ body: {} }),
  },
  // instance IDs
  {
    role: 'instance-ids',
    resources: ['tokenreviews'],
    verbs: ['create'],
    what: "the instance-ID endpoint checks a pod's ServiceAccount token (endpoint.ts)",
    needs: ['create', 'tokenreviews'],
    run: () =>
      kc
        .makeApiClient(k8s.AuthenticationV1Api)
        .createTokenReview({ body: { spec: { token: 'not-a-token' } } }),
  },
  {
    role: 'instance-id-workloads',
    resources: ['deployments', 'statefulsets'],
    verbs: ['get', 'patch'],
    what: 'an instance ID is taken by compare-and-swap on the annotation of a workload in a listed namespace (cas.ts)',
    needs: ['get', 'statefulsets'],
    // the console's live read and the generator's finalizer grant each half of it everywhere
    alsoRemove: [
      { role: 'console', resources: ['deployments', 'statefulsets'], verbs: ['get'] },
      { role: 'controllers', resources: ['deployments', 'statefulsets'], verbs: ['patch'] },
    ],
    run: async () => {
      const apps = kc.makeApiClient(k8s.AppsV1Api);
      const s = await apps.readNamespacedStatefulSet({ namespace: NS, name: 'web' });
      await apps.patchNamespacedStatefulSet(
        {
          namespace: NS,
          name: 'web',
          body: {
            metadata: {
              resourceVersion: s.metadata?.resourceVersion,
              // the instance-ID map, the one annotation the workload guard lets Palisade write
              annotations: { 'palisade.dev/instance-ids': '{}' },
            },
          },
        },
        k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
      );
    },
  },
  {
    role: 'instance-ids',
    resources: ['replicasets'],
    verbs: ['get'],
    what: "a pod's owner chain is followed through its ReplicaSet (cas.ts)",
    needs: ['get', 'replicasets'],
    setup: async () => {
      await c.apps
        .createNamespacedReplicaSet({
          namespace: NS,
          body: {
            metadata: { name: 'lp-rs' },
            spec: {
              replicas: 0,
              selector: { matchLabels: { app: 'lp-rs' } },
              template: {
                metadata: { labels: { app: 'lp-rs' } },
                spec: { containers: [{ name: 'c', image: 'registry.k8s.io/pause:3.10' }] },
              },
            },
          },
        })
        .catch(exists);
    },
    run: () => kc.makeApiClient(k8s.AppsV1Api).readNamespacedReplicaSet({ namespace: NS, name: 'lp-rs' }),
  },
  {
    role: 'instance-id-workloads',
    resources: ['jobs'],
    verbs: ['get', 'patch'],
    what: "a Job's instance IDs live on the Job (cas.ts)",
    needs: ['get', 'jobs'],
    alsoRemove: [{ role: 'console', resources: ['jobs'], verbs: ['get'] }],
    // the embedded API server serves no Jobs: this one runs on the real control plane
    served: servesJobs,
    setup: () => suspendedJob(NS),
    run: async () => {
      const batch = kc.makeApiClient(k8s.BatchV1Api);
      await batch.readNamespacedJob({ namespace: NS, name: 'lp-job' });
      await batch.patchNamespacedJob(
        {
          namespace: NS,
          name: 'lp-job',
          body: { metadata: { annotations: { 'palisade.dev/instance-ids': '{}' } } },
        },
        k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
      );
    },
  },
];

// ---- removing and restoring one rule --------------------------------------------------------

const same = (a: string[] | undefined, b: string[]) =>
  (a ?? []).length === b.length && b.every((x) => a?.includes(x));

function roleOf(suffix: string): Role {
  const r = roles.find((x) => x.name.endsWith(`-${suffix}`));
  if (!r) throw new Error(`no role ending -${suffix} in the chart`);
  return r;
}

function ruleIndex(role: Role, resources: string[], verbs?: string[], named?: boolean): number {
  const i = role.rules.findIndex(
    (r) =>
      same(r.resources, resources) &&
      (!verbs || same(r.verbs, verbs)) &&
      (named === undefined || !!r.resourceNames?.length === named),
  );
  if (i < 0) throw new Error(`${role.name}: no rule for ${resources.join(',')} ${verbs?.join(',') ?? ''}`);
  return i;
}

async function writeRules(role: Role, rules: Rule[]) {
  if (role.kind === 'ClusterRole') {
    const cur = await rbac.readClusterRole({ name: role.name });
    await rbac.replaceClusterRole({ name: role.name, body: { ...cur, rules } });
  } else {
    const cur = await rbac.readNamespacedRole({ name: role.name, namespace: role.namespace! });
    await rbac.replaceNamespacedRole({
      name: role.name,
      namespace: role.namespace!,
      body: { ...cur, rules },
    });
  }
}

const forbidden = (verb: string, resource: string) =>
  new RegExp(
    `is forbidden: User "${SERVICE_ACCOUNT_USER}" cannot ${verb} resource "${resource.replace('/', '\\/')}"`,
  );

/** an error's text, with the API server's Status message as it wrote it (not JSON-escaped) */
const textOf = (e: unknown) => {
  const body = (e as { body?: unknown }).body;
  let status: unknown = body;
  if (typeof body === 'string')
    try {
      status = JSON.parse(body);
    } catch {
      status = body;
    }
  const message = (status as { message?: string } | undefined)?.message ?? JSON.stringify(status ?? '');
  return `${(e as Error).message ?? ''} ${message}`;
};

/** run the scenario (after its setup): undefined when it passed, else its error's text */
async function attempt(k: Case): Promise<string | undefined> {
  await k.setup?.();
  try {
    await k.run();
    return undefined;
  } catch (e) {
    return textOf(e);
  }
}

describe('least privilege: each rule the chart grants is needed', () => {
  for (const k of CASES) {
    it(`${k.role}: ${k.verbs.join('/')} ${k.resources.join(',')}${k.resourceNames ? ' (by name)' : ''} — ${k.what}`, async (ctx) => {
      if (k.served && !(await k.served().catch(() => false))) return ctx.skip();
      const role = roleOf(k.role);
      const i = ruleIndex(role, k.resources, k.verbs, k.resourceNames ?? false);
      const others = (k.alsoRemove ?? []).map((x) => {
        const r = roleOf(x.role);
        return { role: r, index: ruleIndex(r, x.resources, x.verbs) };
      });
      // with the chart's roles: passes
      expect(
        await eventually(async () => (await attempt(k)) === undefined, `${k.what} to pass`).catch(
          async (e) => {
            throw new Error(`${(e as Error).message}: ${await attempt(k)}`);
          },
        ),
      ).toBe(true);
      // exactly that rule removed (and a superset elsewhere, if any): the API server's 403
      for (const o of others)
        await writeRules(
          o.role,
          o.role.rules.filter((_, j) => j !== o.index),
        );
      await writeRules(
        role,
        role.rules.filter((_, j) => j !== i),
      );
      try {
        const failure = await eventually(
          async () => {
            const t = await attempt(k);
            return t && forbidden(...k.needs).test(t) ? t : undefined;
          },
          `${k.what} to fail with 403 (cannot ${k.needs.join(' ')})`,
          10_000,
        );
        expect(failure).toMatch(/forbidden/);
      } finally {
        await writeRules(role, role.rules);
        for (const o of others) await writeRules(o.role, o.role.rules);
      }
      // restored: passes again
      await eventually(async () => (await attempt(k)) === undefined, `${k.what} to pass again`, 10_000);
    });
  }

  it('every rule bound to the ServiceAccount has a scenario above', () => {
    const missing: string[] = [];
    for (const role of roles)
      role.rules.forEach((r) => {
        const covered = CASES.some(
          (k) =>
            role.name.endsWith(`-${k.role}`) &&
            same(r.resources, k.resources) &&
            same(r.verbs, k.verbs) &&
            !!r.resourceNames?.length === (k.resourceNames ?? false),
        );
        if (!covered) missing.push(`${role.name}: ${r.verbs?.join('/')} ${r.resources?.join(',')}`);
      });
    expect(missing).toEqual([]);
  });
});
