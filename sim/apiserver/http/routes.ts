// URL -> (group, version, resource, namespace, name, subresource), as kube-apiserver
// lays out its REST paths.
import type { ResourceRegistry } from '../resources/registry.js';
import type { ResourceInfo } from '../resources/types.js';
import { errors } from './errors.js';

export interface ResourceRoute {
  resource: ResourceInfo;
  namespace?: string;
  name?: string;
  subresource: string;
  /** the deprecated /watch/ path prefix */
  watchPrefix: boolean;
}

export function parseResourcePath(registry: ResourceRegistry, segments: string[]): ResourceRoute | undefined {
  let group: string;
  let version: string;
  let rest: string[];
  if (segments[0] === 'api' && segments.length >= 3) {
    [group, version, rest] = ['', segments[1], segments.slice(2)];
  } else if (segments[0] === 'apis' && segments.length >= 4) {
    [group, version, rest] = [segments[1], segments[2], segments.slice(3)];
  } else return undefined;

  let watchPrefix = false;
  if (rest[0] === 'watch') {
    watchPrefix = true;
    rest = rest.slice(1);
  }
  let namespace: string | undefined;
  // namespaces/<ns>/<resource>...; but namespaces/<name>[/status|/finalize] is the Namespace itself
  if (
    rest[0] === 'namespaces' &&
    rest.length >= 3 &&
    !(group === '' && ['status', 'finalize'].includes(rest[2]) && rest.length === 3)
  ) {
    namespace = rest[1];
    rest = rest.slice(2);
  }
  if (rest.length === 0 || rest.length > 3) throw errors.pathNotFound();
  const resource = registry.lookup(group, version, rest[0]);
  if (!resource) throw errors.pathNotFound();
  if (namespace !== undefined && !resource.namespaced) throw errors.pathNotFound();
  const subresource = rest[2] ?? '';
  if (
    subresource &&
    !resource.subresources.includes(subresource) &&
    !(subresource === 'finalize' && resource.plural === 'namespaces')
  ) {
    throw errors.pathNotFound();
  }
  return { resource, namespace, name: rest[1], subresource, watchPrefix };
}
