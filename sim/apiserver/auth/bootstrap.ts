// The bootstrap roles and bindings of kube-apiserver's RBAC (bootstrappolicy) that clients
// rely on, with the labels and annotations the real ones carry: cluster-admin for
// system:masters, self reviews for everyone authenticated (system:basic-user), discovery
// paths (system:discovery) and health/version for everyone (system:public-info-viewer).
import type { KubeObject } from '../resources/types.js';
import { type PolicyRule, RBAC_GROUP } from './rules.js';

const meta = (name: string) => ({
  name,
  labels: { 'kubernetes.io/bootstrapping': 'rbac-defaults' },
  annotations: { 'rbac.authorization.kubernetes.io/autoupdate': 'true' },
});

const clusterRole = (name: string, rules: PolicyRule[]): KubeObject => ({
  apiVersion: `${RBAC_GROUP}/v1`,
  kind: 'ClusterRole',
  metadata: meta(name),
  rules,
});

const groupBinding = (name: string, role: string, groups: string[]): KubeObject => ({
  apiVersion: `${RBAC_GROUP}/v1`,
  kind: 'ClusterRoleBinding',
  metadata: meta(name),
  roleRef: { apiGroup: RBAC_GROUP, kind: 'ClusterRole', name: role },
  subjects: groups.map((g) => ({ kind: 'Group', apiGroup: RBAC_GROUP, name: g })),
});

const healthPaths = ['/healthz', '/livez', '/readyz', '/version', '/version/'];

export const bootstrapClusterRoles: KubeObject[] = [
  clusterRole('cluster-admin', [
    { verbs: ['*'], apiGroups: ['*'], resources: ['*'] },
    { verbs: ['*'], nonResourceURLs: ['*'] },
  ]),
  clusterRole('system:discovery', [
    {
      verbs: ['get'],
      nonResourceURLs: [
        '/api',
        '/api/*',
        '/apis',
        '/apis/*',
        '/healthz',
        '/livez',
        '/openapi',
        '/openapi/*',
        '/readyz',
        '/version',
        '/version/',
      ],
    },
  ]),
  clusterRole('system:basic-user', [
    {
      verbs: ['create'],
      apiGroups: ['authorization.k8s.io'],
      resources: ['selfsubjectaccessreviews', 'selfsubjectrulesreviews'],
    },
    { verbs: ['create'], apiGroups: ['authentication.k8s.io'], resources: ['selfsubjectreviews'] },
  ]),
  clusterRole('system:public-info-viewer', [{ verbs: ['get'], nonResourceURLs: healthPaths }]),
];

export const bootstrapClusterRoleBindings: KubeObject[] = [
  groupBinding('cluster-admin', 'cluster-admin', ['system:masters']),
  groupBinding('system:discovery', 'system:discovery', ['system:authenticated']),
  groupBinding('system:basic-user', 'system:basic-user', ['system:authenticated']),
  groupBinding('system:public-info-viewer', 'system:public-info-viewer', [
    'system:authenticated',
    'system:unauthenticated',
  ]),
];
