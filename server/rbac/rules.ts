// Every rule the chart can grant Palisade's ServiceAccount, with the feature that needs it and
// the calls it allows. server/rbac/chart.test.ts renders the chart's RBAC with every value set
// the tests and docs use and fails on a rule this list does not hold (a new rule fails until it
// is listed here, with its reason) and on an entry no value set renders; docs/rbac.md's table
// is generated from it (npm run docs:rbac).

export interface RuleReason {
  /**
   * the role, by the part of its name after the release (and, for ClusterRoles, the namespace):
   * ClusterRole <release>-<namespace>-<part>, Role <release>-<part>
   */
  role: string;
  kind: 'ClusterRole' | 'Role';
  /** where a Role is: a value's name, as docs/rbac.md says it */
  where?: string;
  apiGroups: string[];
  resources: string[];
  verbs: string[];
  /** the rule names its objects (resourceNames): which ones */
  names?: string;
  /** the feature that needs it */
  feature: string;
  /** the calls it allows, and the code that makes them */
  why: string;
  /** the values that grant it, when not every install has it */
  when?: string;
}

const CORE = [''];
const RELEASE_NS = 'the release namespace';

export const RULES: RuleReason[] = [
  // ---- console: the shared watches and the records of guarded actions
  {
    role: 'console',
    kind: 'ClusterRole',
    apiGroups: CORE,
    resources: ['nodes', 'pods', 'persistentvolumes', 'persistentvolumeclaims', 'events'],
    verbs: ['list', 'watch'],
    feature: 'Console views and caches',
    why: "The informers behind every page, the API and the webhook's caches; the aggregators' pod watch; the fencing controller's list of a fenced node's pods (server/kube/connection.ts).",
  },
  {
    role: 'console',
    kind: 'ClusterRole',
    apiGroups: CORE,
    resources: ['pods'],
    verbs: ['get'],
    feature: 'Console views and caches',
    why: 'The pod page and the instance-ID view read one pod live (server/trpc/pods.ts).',
  },
  {
    role: 'console',
    kind: 'ClusterRole',
    apiGroups: CORE,
    resources: ['events'],
    verbs: ['create'],
    feature: 'Guarded actions, fencing and leader election',
    why: "A guarded action's Event in its target's namespace, which may be any (server/actions/record.ts); the fencing controller's and leader election's Events. Events only: nothing reads them as Palisade's audit.",
  },
  {
    role: 'console',
    kind: 'ClusterRole',
    apiGroups: ['apps'],
    resources: ['deployments', 'statefulsets', 'replicasets'],
    verbs: ['list', 'watch'],
    feature: 'Console views and caches',
    why: 'The workload informers; the PodProtector generator watches Deployments and StatefulSets.',
  },
  {
    role: 'console',
    kind: 'ClusterRole',
    apiGroups: ['apps'],
    resources: ['deployments', 'statefulsets'],
    verbs: ['get'],
    feature: 'Console views and caches',
    why: 'The Instance IDs page reads one workload live (server/trpc/instanceIds.ts): no more than the list and watch above show.',
  },
  {
    role: 'console',
    kind: 'ClusterRole',
    apiGroups: ['batch'],
    resources: ['jobs'],
    verbs: ['get'],
    feature: 'Console views and caches',
    why: 'The Instance IDs page reads a Job live (server/trpc/instanceIds.ts): its pods, which the pod watch shows, say as much. No list: Palisade keeps no Job cache.',
  },
  {
    role: 'console',
    kind: 'ClusterRole',
    apiGroups: ['storage.k8s.io'],
    resources: ['volumeattachments'],
    verbs: ['list', 'watch'],
    feature: 'Console views and caches',
    why: "The VolumeAttachment informer: the volume view, the RWO attach guard, the fencing controller's release.",
  },
  {
    role: 'console',
    kind: 'ClusterRole',
    apiGroups: ['discovery.k8s.io'],
    resources: ['endpointslices'],
    verbs: ['list', 'watch'],
    feature: 'Console views and caches',
    why: 'The EndpointSlice informer: which pods serve which Service.',
  },
  {
    role: 'node-leases',
    kind: 'Role',
    where: 'kube-node-lease',
    apiGroups: ['coordination.k8s.io'],
    resources: ['leases'],
    verbs: ['get', 'list', 'watch'],
    feature: 'Fencing',
    why: "Node heartbeats: the node Lease informer, and the fencing controller's live read of a Lease before an irreversible step.",
  },
  // ---- sessions
  {
    role: 'sessions',
    kind: 'Role',
    where: 'console.session.namespace',
    apiGroups: CORE,
    resources: ['secrets'],
    verbs: ['get', 'list', 'watch', 'create', 'update', 'delete'],
    feature: 'Sessions shared by replicas',
    why: 'One encrypted Secret per browser session: every replica lists and watches them, creates one at sign-in, updates it (compare-and-swap), deletes it at sign-out and expiry (server/auth/sessionSecrets.ts). RBAC cannot narrow a list to a label, hence a namespace that holds nothing else.',
    when: 'rbac.sessions',
  },
  {
    role: 'session-key',
    kind: 'Role',
    where: RELEASE_NS,
    apiGroups: CORE,
    resources: ['secrets'],
    verbs: ['create'],
    feature: 'Sessions shared by replicas',
    why: 'The first replica creates the session key Secret with a random key (RBAC cannot name an object that does not exist yet). Create cannot read any other Secret.',
    when: 'rbac.sessions',
  },
  {
    role: 'session-key',
    kind: 'Role',
    where: RELEASE_NS,
    apiGroups: CORE,
    resources: ['secrets'],
    verbs: ['get'],
    names: '<release>-session-key',
    feature: 'Sessions shared by replicas',
    why: "Every replica reads the key that encrypts and decrypts the sessions (AES-256-GCM); it is kept apart from the sessions' namespace.",
    when: 'rbac.sessions',
  },
  // ---- the webhooks
  {
    role: 'webhook',
    kind: 'ClusterRole',
    apiGroups: ['podseidon.kubewharf.io'],
    resources: ['podprotectors'],
    verbs: ['get', 'list', 'watch'],
    feature: 'Deletion protection',
    why: 'The PodProtector cache admission judges from (informer; get on a cache miss).',
  },
  {
    role: 'webhook',
    kind: 'ClusterRole',
    apiGroups: ['podseidon.kubewharf.io'],
    resources: ['podprotectors/status'],
    verbs: ['get', 'update'],
    feature: 'Deletion protection',
    why: "An admitted deletion is reserved in the protector's status before it is allowed: read, then replace with that resourceVersion (server/protection/statusWrite.ts); the aggregators write the same status.",
  },
  {
    role: 'webhook',
    kind: 'ClusterRole',
    apiGroups: ['apiextensions.k8s.io'],
    resources: ['customresourcedefinitions'],
    verbs: ['get'],
    names: 'podprotectors.podseidon.kubewharf.io',
    feature: 'Deletion protection',
    why: 'At start: is the PodProtector CRD installed? The chart installs it; Palisade only reads it.',
  },
  {
    role: 'webhook',
    kind: 'ClusterRole',
    apiGroups: ['authorization.k8s.io'],
    resources: ['subjectaccessreviews'],
    verbs: ['create'],
    feature: 'NodeFence and FencePolicy checks',
    why: 'The /fences webhook asks whether the person approving or cancelling a NodeFence may (verbs approve, cancel); the FencePolicy webhook whether a writer may pause or configure a policy.',
  },
  {
    role: 'webhook-configurations',
    kind: 'ClusterRole',
    apiGroups: ['admissionregistration.k8s.io'],
    resources: ['validatingwebhookconfigurations'],
    verbs: ['get', 'patch'],
    names: "rbac.webhookConfigurations (the chart's three)",
    feature: 'Webhook certificates and failure policy',
    why: "The leader writes the CA into the caBundle of the chart's webhook configurations (self-managed certificates) and switches the pod-deletion webhook to its failure policy once a replica answers; no other configuration.",
  },
  {
    role: 'webhook-serving',
    kind: 'Role',
    where: RELEASE_NS,
    apiGroups: CORE,
    resources: ['secrets'],
    verbs: ['create'],
    feature: 'Webhook certificates and failure policy',
    why: 'The first replica makes the serving Secret (RBAC cannot name an object that does not exist yet).',
  },
  {
    role: 'webhook-serving',
    kind: 'Role',
    where: RELEASE_NS,
    apiGroups: CORE,
    resources: ['secrets'],
    verbs: ['get', 'list', 'watch', 'update', 'patch'],
    names: '<release>-webhook-serving',
    feature: 'Webhook certificates and failure policy',
    why: 'Every replica serves from it and reloads it (a watch narrowed to the name); the leader rotates it (update with the resourceVersion read) and stamps it with a merge patch once every caBundle holds its CA.',
  },
  // ---- the controllers
  {
    role: 'controllers',
    kind: 'ClusterRole',
    apiGroups: CORE,
    resources: ['nodes'],
    verbs: ['get', 'update'],
    feature: 'Fencing',
    why: 'Fencing adds and removes the out-of-service taint: a live read, then a replace at that resourceVersion, so a concurrent change is a 409 and never overwritten (server/fencing/release.ts). No patch.',
  },
  {
    role: 'controllers',
    kind: 'ClusterRole',
    apiGroups: CORE,
    resources: ['pods'],
    verbs: ['delete'],
    feature: 'Fencing',
    why: "Fencing's release force-deletes a fenced node's pods, whatever their namespace, so their controllers start them elsewhere: grace 0 with uid and resourceVersion preconditions, so a pod recreated under the same name is never deleted.",
  },
  {
    role: 'controllers',
    kind: 'ClusterRole',
    apiGroups: ['storage.k8s.io'],
    resources: ['volumeattachments'],
    verbs: ['delete'],
    feature: 'Fencing',
    why: "Fencing's release (ResourceDeletion) deletes the fenced node's VolumeAttachments, with preconditions.",
  },
  {
    role: 'controllers',
    kind: 'ClusterRole',
    apiGroups: ['palisade.dev'],
    resources: ['nodefences'],
    verbs: ['get', 'list', 'watch', 'create', 'delete'],
    feature: 'Fencing',
    why: "The fencing controller's own objects: its informer and live reads, one created when a node is lost, deleted when the node is back.",
  },
  {
    role: 'controllers',
    kind: 'ClusterRole',
    apiGroups: ['palisade.dev'],
    resources: ['nodefences/status'],
    verbs: ['update'],
    feature: 'Fencing',
    why: "A NodeFence's phase and history.",
  },
  {
    role: 'controllers',
    kind: 'ClusterRole',
    apiGroups: ['palisade.dev'],
    resources: ['fencepolicies'],
    verbs: ['list', 'watch'],
    feature: 'Fencing',
    why: 'The FencePolicy informer: which nodes may be fenced, and how.',
  },
  {
    role: 'controllers',
    kind: 'ClusterRole',
    apiGroups: ['palisade.dev'],
    resources: ['fencepolicies'],
    verbs: ['create'],
    feature: 'FencePolicies from values',
    why: 'The leader creates the FencePolicies of palisade.yaml once their CRD is served (server/fencing/configPolicies.ts): a fresh helm install cannot create a CRD and its objects at once.',
    when: 'fencing.policies',
  },
  {
    role: 'controllers',
    kind: 'ClusterRole',
    apiGroups: ['palisade.dev'],
    resources: ['fencepolicies'],
    verbs: ['get', 'update'],
    names: 'the names in fencing.policies',
    feature: 'FencePolicies from values',
    why: "The leader reads those policies and brings their spec to the file's (compare-and-swap; spec.paused stays as people set it). No other policy.",
    when: 'fencing.policies',
  },
  {
    role: 'controllers',
    kind: 'ClusterRole',
    apiGroups: ['podseidon.kubewharf.io'],
    resources: ['podprotectors'],
    verbs: ['create', 'update', 'patch', 'delete'],
    feature: 'Deletion protection',
    why: 'The PodProtector generator: one protector per labelled Deployment or StatefulSet, replaced when the workload changes, its cell annotation patched, deleted with the workload.',
  },
  {
    role: 'controllers',
    kind: 'ClusterRole',
    apiGroups: ['apps'],
    resources: ['deployments', 'statefulsets'],
    verbs: ['patch'],
    feature: 'Deletion protection',
    why: "The generator's finalizer on each labelled Deployment and StatefulSet, in any namespace (RBAC cannot select by label): a merge patch of metadata.finalizers carrying the resourceVersion read (server/protection/generator.ts). The workload guard (a ValidatingAdmissionPolicy) refuses every other change by Palisade's ServiceAccount: spec, labels, other annotations or finalizers.",
    when: 'protection.generator.enabled',
  },
  {
    role: 'controllers',
    kind: 'ClusterRole',
    apiGroups: CORE,
    resources: ['namespaces'],
    verbs: ['list', 'watch', 'patch'],
    feature: 'Deletion protection',
    why: "The protected namespaces' label: the leader watches namespaces and keeps palisade.dev/deletion-protection on exactly those holding a PodProtector (a merge patch conditional on the resourceVersion read, server/protection/namespaceLabels.ts), so the pod-deletion webhook is never called for any other. The namespace guard (a ValidatingAdmissionPolicy) refuses every other change by Palisade's ServiceAccount: no other label (never a Pod Security level), annotation, finalizer or spec.",
  },
  {
    role: 'controllers',
    kind: 'ClusterRole',
    apiGroups: ['palisade.dev'],
    resources: ['incidents'],
    verbs: ['list', 'watch', 'create', 'update', 'delete'],
    feature: 'Incidents',
    why: "The incident tracker's own objects (server/incident/tracker.ts): its informer (it reads nothing live: it writes from the informer's copy, conditional on its resourceVersion), one declared when the cluster turns unhealthy, resolved by a replace of spec.resolvedAt with the resourceVersion read, the resolved ones beyond the newest 50 deleted.",
  },
  {
    role: 'controllers',
    kind: 'ClusterRole',
    apiGroups: ['palisade.dev'],
    resources: ['incidents/status'],
    verbs: ['update'],
    feature: 'Incidents',
    why: "An Incident's status: each node that went down and each workload below its desired replicas while it is open, and since when the cluster has been healthy.",
  },
  {
    role: 'leader-election',
    kind: 'Role',
    where: RELEASE_NS,
    apiGroups: ['coordination.k8s.io'],
    resources: ['leases'],
    verbs: ['get', 'create', 'update'],
    feature: 'Leader election',
    why: 'The controller Lease: created if missing, renewed or taken over (update with the resourceVersion read); the leader-epoch webhook and the leadership view read it.',
  },
  {
    role: 'update-trigger',
    kind: 'Role',
    where: 'rbac.updateTriggerNamespace',
    apiGroups: CORE,
    resources: ['pods'],
    verbs: ['patch'],
    names: 'podseidon-update-trigger',
    feature: 'Deletion protection',
    why: "Podseidon's update trigger: the chart's never-scheduled pod, annotated every interval so the aggregators see watch events. Palisade creates no pod: create pods in a namespace would let it mount that namespace's Secrets.",
  },
  {
    role: 'fence-agent-credentials',
    kind: 'Role',
    where: 'rbac.fenceAgentCredentials.namespace',
    apiGroups: CORE,
    resources: ['secrets'],
    verbs: ['get'],
    names: 'rbac.fenceAgentCredentials.secretNames and the secretRefs of fencing.policies',
    feature: 'Fence agents',
    why: "An exec fence agent's credentials (BMC passwords), read just before each run, by name only: no other Secret of that namespace (the OIDC client secret, the session key) is readable.",
    when: 'rbac.fenceAgentCredentials.secretNames or fencing.policies with secretRefs',
  },
  // ---- OIDC sign-in
  {
    role: 'impersonation',
    kind: 'ClusterRole',
    apiGroups: CORE,
    resources: ['users'],
    verbs: ['impersonate'],
    feature: 'OIDC sign-in',
    why: "Palisade acts as the signed-in person (Impersonate-User), so the cluster's RBAC decides and its audit log names the person; Palisade itself refuses system: names.",
    when: 'auth.oidc.enabled',
  },
  {
    role: 'impersonation',
    kind: 'ClusterRole',
    apiGroups: CORE,
    resources: ['groups'],
    verbs: ['impersonate'],
    names: 'rbac.impersonation.groups',
    feature: 'OIDC sign-in',
    why: 'Palisade asserts these groups of a person, no other (never system:masters by accident of an identity provider).',
    when: 'auth.oidc.enabled and rbac.impersonation.groups',
  },
  // ---- instance IDs
  {
    role: 'instance-ids',
    kind: 'ClusterRole',
    apiGroups: ['authentication.k8s.io'],
    resources: ['tokenreviews'],
    verbs: ['create'],
    feature: 'Instance IDs',
    why: 'A pod proves who it is with its ServiceAccount token (server/instanceIds/endpoint.ts).',
    when: 'rbac.instanceIds',
  },
  {
    role: 'instance-ids',
    kind: 'ClusterRole',
    apiGroups: ['apps'],
    resources: ['replicasets'],
    verbs: ['get'],
    feature: 'Instance IDs',
    why: "A Deployment's pod belongs to it through a ReplicaSet: the owner chain is read (no more than the console's list and watch of ReplicaSets shows).",
    when: 'rbac.instanceIds',
  },
  {
    role: 'instance-id-workloads',
    kind: 'Role',
    where: 'each of instanceIds.namespaces (a ClusterRole for ["*"])',
    apiGroups: ['apps'],
    resources: ['deployments', 'statefulsets'],
    verbs: ['get', 'patch'],
    feature: 'Instance IDs',
    why: "A workload's instance-ID map lives in its annotation: read, then a merge patch carrying the resourceVersion read (server/instanceIds/cas.ts). Only where instanceIds.namespaces lists; elsewhere a person grants one workload. (With the generator on, its finalizer rule and the console's read cover Deployments and StatefulSets already; this Role is what grants them with the generator off, and Jobs always.)",
    when: 'instanceIds.namespaces',
  },
  {
    role: 'instance-id-workloads',
    kind: 'Role',
    where: 'each of instanceIds.namespaces (a ClusterRole for ["*"])',
    apiGroups: ['batch'],
    resources: ['jobs'],
    verbs: ['get', 'patch'],
    feature: 'Instance IDs',
    why: "A Job's pods: the map lives on the Job.",
    when: 'instanceIds.namespaces',
  },
];

/** A rendered rule as the chart writes it (a policy rule of a role bound to the ServiceAccount). */
export interface RenderedRule {
  roleName: string;
  kind: string;
  apiGroups?: string[];
  resources?: string[];
  verbs?: string[];
  resourceNames?: string[];
}

const sameSet = (a: readonly string[] | undefined, b: readonly string[]) =>
  (a ?? []).length === b.length && b.every((x) => a?.includes(x));

/** The entry that lists a rendered rule (by role part, group, resources, verbs, and named or not). */
export function reasonOf(r: RenderedRule, rules: RuleReason[] = RULES): RuleReason | undefined {
  return rules.find(
    (k) =>
      (r.roleName.endsWith(`-${k.role}`) || r.roleName === k.role) &&
      // a ["*"] instance-ID grant is the same rule as a ClusterRole
      (r.kind === k.kind || k.role === 'instance-id-workloads') &&
      sameSet(r.apiGroups, k.apiGroups) &&
      sameSet(r.resources, k.resources) &&
      sameSet(r.verbs, k.verbs) &&
      !!r.resourceNames?.length === !!k.names,
  );
}

const code = (xs: string[]) => xs.map((x) => `\`${x}\``).join(', ');

/** docs/rbac.md's table of the ServiceAccount's rules, one row per rule. */
export function ruleTable(rules: RuleReason[] = RULES): string {
  const rows = [
    '| Role (part) | Kind, where | Grants | Feature | Why | Granted when |',
    '|---|---|---|---|---|---|',
  ];
  for (const k of rules) {
    const groups = k.apiGroups.map((g) => (g === '' ? 'core' : g)).join(', ');
    const named = k.names ? `, only ${k.names}` : '';
    rows.push(
      `| \`${k.role}\` | ${k.kind}${k.where ? `, ${k.where}` : ''} | ${code(k.verbs)} on ${code(k.resources)} (${groups})${named} | ${k.feature} | ${k.why} | ${k.when ?? 'always'} |`,
    );
  }
  return rows.join('\n');
}
