// The set of resources currently served: the built-ins plus whatever the stored
// CustomResourceDefinitions declare. Looked up by URL parts and by kind.
import { builtinGroupOrder, builtinResources } from './builtin.js';
import type { ResourceInfo } from './types.js';

export class ResourceRegistry {
  private byPath = new Map<string, ResourceInfo>();
  private customByCrd = new Map<string, ResourceInfo[]>();

  constructor() {
    for (const r of builtinResources) this.add(r);
  }

  private key(group: string, version: string, plural: string) {
    return `${group}/${version}/${plural}`;
  }

  private add(r: ResourceInfo) {
    this.byPath.set(this.key(r.group, r.version, r.plural), r);
  }

  lookup(group: string, version: string, plural: string): ResourceInfo | undefined {
    return this.byPath.get(this.key(group, version, plural));
  }

  /** Replace the resources served for one CRD (by CRD name); [] removes them. */
  setCustom(crdName: string, resources: ResourceInfo[]) {
    for (const old of this.customByCrd.get(crdName) ?? [])
      this.byPath.delete(this.key(old.group, old.version, old.plural));
    this.customByCrd.set(crdName, resources);
    for (const r of resources) this.add(r);
    if (resources.length === 0) this.customByCrd.delete(crdName);
  }

  /** A served resource for a storage key (group/plural), for in-process controllers. */
  byStorageKey(key: string): ResourceInfo | undefined {
    for (const r of this.byPath.values()) if (ResourceRegistry.storageKey(r) === key) return r;
    return undefined;
  }

  all(): ResourceInfo[] {
    return [...this.byPath.values()];
  }

  /** group -> versions (preferred first) in discovery order. */
  groups(): Map<string, string[]> {
    const out = new Map<string, string[]>();
    for (const g of builtinGroupOrder) out.set(g, []);
    for (const r of this.byPath.values()) {
      const versions = out.get(r.group) ?? [];
      if (!versions.includes(r.version)) versions.push(r.version);
      out.set(r.group, versions);
    }
    for (const [g, versions] of out) {
      if (versions.length === 0) out.delete(g);
      else versions.sort(compareKubeVersions);
    }
    return out;
  }

  inGroupVersion(group: string, version: string): ResourceInfo[] {
    return this.all().filter((r) => r.group === group && r.version === version);
  }

  /** Storage identity: one collection per group+plural, shared by all versions. */
  static storageKey(r: Pick<ResourceInfo, 'group' | 'plural'>): string {
    return `${r.group}/${r.plural}`;
  }
}

/** Kubernetes version priority: GA > beta > alpha, higher numbers first (v2 > v1 > v1beta2). */
export function compareKubeVersions(a: string, b: string): number {
  const rank = (v: string) => {
    const m = /^v(\d+)(?:(alpha|beta)(\d+))?$/.exec(v);
    if (!m) return [0, 0, 0];
    const stability = m[2] === undefined ? 3 : m[2] === 'beta' ? 2 : 1;
    return [stability, Number(m[1]), Number(m[3] ?? 0)];
  };
  const [ra, rb] = [rank(a), rank(b)];
  for (let i = 0; i < 3; i++) if (ra[i] !== rb[i]) return rb[i] - ra[i];
  return a.localeCompare(b);
}
