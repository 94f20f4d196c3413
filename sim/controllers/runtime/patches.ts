// Content-Type options for client-node patch calls.
import * as k8s from '@kubernetes/client-node';

export const mergePatch = k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch);
export const jsonPatch = k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.JsonPatch);
export const strategicPatch = k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.StrategicMergePatch);
