// The scenario file: a cluster's topology, storage and workloads, written by users in
// YAML and validated here, so a mistake gets an error naming the field.
import { z } from 'zod';
import { durationSchema as duration } from '../../lib/duration.js';

const name = z.string().regex(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/, { error: 'must be a lowercase DNS label' });
const quantity = z.union([z.string(), z.number()]).transform(String);

const rack = z.object({ name, count: z.number().int().min(1).max(10_000) });
const zone = z.object({ name, racks: z.array(rack).min(1) });

const storageClass = z.object({
  name,
  bindingMode: z.enum(['Immediate', 'WaitForFirstConsumer']).default('WaitForFirstConsumer'),
  /** zones that can reach this storage; empty = every zone */
  zones: z.array(name).default([]),
  reclaimPolicy: z.enum(['Delete', 'Retain']).default('Delete'),
  default: z.boolean().default(false),
});

const workloadBase = {
  name,
  namespace: name.default('default'),
  replicas: z.number().int().min(0),
  image: z.string().default('registry.example/app:1.0'),
  cpu: quantity.default('100m'),
  memory: quantity.default('128Mi'),
  terminationGracePeriodSeconds: z.number().int().min(0).default(30),
  preStop: duration.optional(),
  readyAfter: duration.optional(),
  /** how long the process takes to exit after SIGTERM; "never" ignores it */
  sigtermExit: z.union([duration, z.literal('never')]).optional(),
  service: z.boolean().default(false),
  /** schedule only in these zones */
  zones: z.array(name).optional(),
  /** label the workload podseidon.kubewharf.io/protect=true: Palisade's generator then guards it */
  protect: z.boolean().default(false),
  /**
   * its pods take unique instance IDs from Palisade (seed 002): the workload is labelled
   * palisade.dev/instance-ids-enabled=true and its container gets PALISADE_INSTANCE_IDS_URL from
   * the ConfigMap palisade-instance-ids (key url), which Palisade writes beside the embedded cluster
   */
  instanceIds: z.boolean().default(false),
};

const volume = z.object({
  storageClass: name,
  size: quantity.default('1Gi'),
  accessMode: z.enum(['ReadWriteOnce', 'ReadWriteOncePod', 'ReadWriteMany']).default('ReadWriteOnce'),
});

const workload = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('StatefulSet'),
    ...workloadBase,
    podManagementPolicy: z.enum(['OrderedReady', 'Parallel']).default('Parallel'),
    volume: volume.optional(),
  }),
  z.object({
    kind: z.literal('Deployment'),
    ...workloadBase,
    maxUnavailable: quantity.default('25%'),
    maxSurge: quantity.default('25%'),
  }),
]);

export const scenarioSchema = z.object({
  name,
  description: z.string().default(''),
  durations: z
    .object({
      nodeMonitorGracePeriod: duration,
      nodeMonitorPeriod: duration,
      leaseDuration: duration,
      leaseRenewInterval: duration,
      nodeStatusUpdate: duration,
      forceDetachTimeout: duration,
      forceDetach: z.boolean(),
      podGcInterval: duration,
      containerStart: duration,
      podReadyDelay: duration,
      attachDelay: duration,
      defaultToleration: duration,
    })
    .partial()
    .default({}),
  nodes: z.object({
    cpu: quantity.default('8'),
    memory: quantity.default('32Gi'),
    pods: z.number().int().min(1).default(110),
    zones: z.array(zone).min(1),
  }),
  storageClasses: z.array(storageClass).default([]),
  workloads: z.array(workload).default([]),
});

export type Scenario = z.output<typeof scenarioSchema>;
export type Workload = Scenario['workloads'][number];
