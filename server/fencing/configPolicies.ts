// FencePolicies from palisade.yaml (`fencing.policies`, which the Helm chart fills from its
// values). The chart cannot create them itself: a fresh `helm install` sends the CRD and its
// objects in one release, and the API server does not serve a kind before its CRD is
// established, so the install failed. Instead the leader, once the CRD is served, creates each
// policy that does not exist and brings an existing one's spec to the file's — once per term
// (a change of palisade.yaml rolls the pods, so it reaches a new term). spec.paused is people's
// decision (the console's Pause and Resume): the file sets it only on a policy it creates. A
// policy dropped from the file is left as it is: deleting one could end a fence in progress.
import * as k8s from '@kubernetes/client-node';
import { isDeepStrictEqual } from 'node:util';
import { API_VERSION, fencePolicySpec, GROUP, POLICY_PLURAL, VERSION } from '../../lib/fencing/types.js';
import { done, type Result } from '../../lib/runtime/result.js';
import { component, type Logger } from '../log.js';
import { Loop } from '../runtime/loop.js';
import { nameKey } from '../../lib/runtime/keys.js';
import type { Term } from '../runtime/gate.js';
import { codeOf } from '../../lib/kube/errorText.js';

/** The annotation on a FencePolicy that palisade.yaml defines (its spec is the file's). */
export const FROM_CONFIG_ANNOTATION = 'palisade.dev/defined-in';
export const FROM_CONFIG_VALUE = 'palisade.yaml';

export type ConfigPolicySpecs = Record<string, Record<string, unknown>>;

type Policy = k8s.KubernetesObject & { spec?: Record<string, unknown> };

/** The spec to write over `current`: the file's, with the paused flag people set kept. */
export function desiredSpec(file: Record<string, unknown>, current?: Record<string, unknown>) {
  if (!current || current.paused === undefined) return { ...file };
  return { ...file, paused: current.paused };
}

/** equal once both have the defaults the API server and Palisade's reader fill in */
function sameMeaning(a: unknown, b: unknown) {
  const pa = fencePolicySpec.safeParse(a);
  const pb = fencePolicySpec.safeParse(b);
  return pa.success && pb.success && isDeepStrictEqual(pa.data, pb.data);
}

export class ConfigPolicies {
  readonly loop: Loop<string, never>;
  private custom: k8s.CustomObjectsApi | undefined;
  private readonly log: Logger;

  constructor(private readonly o: { kc: k8s.KubeConfig; policies: ConfigPolicySpecs; logger?: Logger }) {
    this.log = component('fencePolicies', {}, o.logger);
    this.loop = new Loop<string, never>({
      name: 'fence-policies-from-config',
      key: nameKey,
      begin: (term) => this.begin(term),
      reconcile: (name) => this.apply(name),
      end: () => (this.custom = undefined),
      logger: o.logger,
    });
  }

  private begin(term: Term) {
    this.custom = term.kc(this.o.kc).makeApiClient(k8s.CustomObjectsApi);
    for (const name of Object.keys(this.o.policies)) this.loop.enqueue(name);
  }

  /** One policy: created, or its spec made the file's (compare-and-swap); errors back off and retry. */
  private async apply(name: string): Promise<Result<never>> {
    const custom = this.custom;
    const file = this.o.policies[name];
    if (!custom) throw new Error('no term: not leading');
    if (!file) return done;
    const ref = { group: GROUP, version: VERSION, plural: POLICY_PLURAL, name };
    let current: Policy | undefined;
    try {
      current = (await custom.getClusterCustomObject(ref)) as Policy;
    } catch (e) {
      if (codeOf(e) !== 404) throw e;
    }
    if (!current) {
      await custom.createClusterCustomObject({
        group: GROUP,
        version: VERSION,
        plural: POLICY_PLURAL,
        body: {
          apiVersion: API_VERSION,
          kind: 'FencePolicy',
          metadata: {
            name,
            labels: { 'app.kubernetes.io/managed-by': 'palisade' },
            annotations: { [FROM_CONFIG_ANNOTATION]: FROM_CONFIG_VALUE },
          },
          spec: file,
        },
      });
      this.log.info({ policy: name }, 'FencePolicy created from palisade.yaml');
      return done;
    }
    const spec = desiredSpec(file, current.spec);
    const marked = current.metadata?.annotations?.[FROM_CONFIG_ANNOTATION] === FROM_CONFIG_VALUE;
    if (marked && sameMeaning(current.spec, spec)) return done;
    // the resourceVersion read: a change made meanwhile is a 409, and the retry reads it again
    await custom.replaceClusterCustomObject({
      ...ref,
      body: {
        ...current,
        metadata: {
          ...current.metadata,
          annotations: { ...current.metadata?.annotations, [FROM_CONFIG_ANNOTATION]: FROM_CONFIG_VALUE },
        },
        spec,
      },
    });
    this.log.info(
      { policy: name, tookOver: !marked },
      marked ? 'FencePolicy updated from palisade.yaml' : 'FencePolicy taken over by palisade.yaml',
    );
    return done;
  }
}
