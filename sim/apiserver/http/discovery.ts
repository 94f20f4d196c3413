// Legacy discovery documents (/api, /apis, /api/v1, /apis/<group>[/<version>]) and
// /version, generated from the live resource registry so CRDs appear and vanish.
import type { ResourceRegistry } from '../resources/registry.js';
import type { ResourceInfo } from '../resources/types.js';

export const serverVersion = {
  major: '1',
  minor: '30',
  gitVersion: 'v1.30.0-palisade.embedded',
  gitCommit: '0000000000000000000000000000000000000000',
  gitTreeState: 'clean',
  buildDate: '2026-11-22T00:00:00Z',
  goVersion: 'n/a (embedded, TypeScript)',
  compiler: 'node',
  platform: `${process.platform}/${process.arch}`,
};

const verbs = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];

function subresourceEntries(r: ResourceInfo) {
  return r.subresources.map((sub) => {
    if (sub === 'binding')
      return {
        name: `${r.plural}/binding`,
        singularName: '',
        namespaced: r.namespaced,
        kind: 'Binding',
        verbs: ['create'],
      };
    if (sub === 'eviction')
      return {
        name: `${r.plural}/eviction`,
        singularName: '',
        namespaced: r.namespaced,
        group: 'policy',
        version: 'v1',
        kind: 'Eviction',
        verbs: ['create'],
      };
    if (sub === 'token')
      return {
        name: `${r.plural}/token`,
        singularName: '',
        namespaced: r.namespaced,
        group: 'authentication.k8s.io',
        version: 'v1',
        kind: 'TokenRequest',
        verbs: ['create'],
      };
    if (sub === 'scale')
      return {
        name: `${r.plural}/scale`,
        singularName: '',
        namespaced: r.namespaced,
        group: 'autoscaling',
        version: 'v1',
        kind: 'Scale',
        verbs: ['get', 'patch', 'update'],
      };
    return {
      name: `${r.plural}/${sub}`,
      singularName: '',
      namespaced: r.namespaced,
      kind: r.kind,
      verbs: ['get', 'patch', 'update'],
    };
  });
}

export function resourceList(registry: ResourceRegistry, group: string, version: string) {
  const resources = registry.inGroupVersion(group, version).sort((a, b) => a.plural.localeCompare(b.plural));
  if (resources.length === 0) return undefined;
  return {
    kind: 'APIResourceList',
    apiVersion: 'v1',
    groupVersion: group ? `${group}/${version}` : version,
    resources: resources.flatMap((r) => [
      {
        name: r.plural,
        singularName: r.singular,
        namespaced: r.namespaced,
        kind: r.kind,
        verbs: r.verbs ?? verbs,
        ...(r.shortNames.length ? { shortNames: r.shortNames } : {}),
        ...(r.categories.length ? { categories: r.categories } : {}),
      },
      ...subresourceEntries(r),
    ]),
  };
}

function groupDoc(name: string, versions: string[]) {
  const vs = versions.map((v) => ({ groupVersion: `${name}/${v}`, version: v }));
  return { name, versions: vs, preferredVersion: vs[0] };
}

export function apiGroupList(registry: ResourceRegistry) {
  const groups = [...registry.groups()].filter(([g]) => g !== '').map(([g, v]) => groupDoc(g, v));
  return { kind: 'APIGroupList', apiVersion: 'v1', groups };
}

export function apiGroup(registry: ResourceRegistry, group: string) {
  const versions = registry.groups().get(group);
  return versions ? { kind: 'APIGroup', apiVersion: 'v1', ...groupDoc(group, versions) } : undefined;
}

export function apiVersions(serverAddress: string) {
  return {
    kind: 'APIVersions',
    versions: ['v1'],
    serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress }],
  };
}
