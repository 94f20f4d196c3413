// Where the incident view's items lead: the node on the map, the pod's page, the volumes, the
// fences and the protectors.
export { podHref } from '../map/NodePanel';
export { protectorHref } from '../protection/usePodProtection';

/** the map with the node's panel open */
export const nodeHref = (node: string) => `/?node=${encodeURIComponent(node)}`;
export const FENCING_HREF = '/fencing';
export const VOLUMES_HREF = '/volumes';
