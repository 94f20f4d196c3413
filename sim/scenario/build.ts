// Turns a scenario into what the cluster needs: durations, node specs, and the API
// objects (namespaces, storage classes, workloads, services) to create.
import type * as k8s from '@kubernetes/client-node';
import {
  INSTANCE_IDS_CONFIGMAP,
  INSTANCE_IDS_CONFIGMAP_KEY,
  INSTANCE_IDS_LABEL,
  INSTANCE_IDS_URL_ENV,
} from '../../lib/instanceIds/types.js';
import {
  ANN_PRESTOP_MS,
  ANN_READY_AFTER_MS,
  ANN_SIGTERM_EXIT_MS,
  CSI_DRIVER,
  LABEL_ZONE,
} from '../controllers/runtime/conventions.js';
import { type Durations, realDurations } from '../controllers/runtime/durations.js';
import type { NodeSpec } from '../kubelet/kubelet.js';
import type { Scenario, Workload } from './schema.js';

export function durationsOf(s: Scenario): Durations {
  const d = s.durations;
  return {
    ...realDurations,
    ...(d.nodeMonitorGracePeriod !== undefined && { nodeMonitorGracePeriodMs: d.nodeMonitorGracePeriod }),
    ...(d.nodeMonitorPeriod !== undefined && { nodeMonitorPeriodMs: d.nodeMonitorPeriod }),
    ...(d.leaseDuration !== undefined && { leaseDurationMs: d.leaseDuration }),
    ...(d.leaseRenewInterval !== undefined && { leaseRenewIntervalMs: d.leaseRenewInterval }),
    ...(d.nodeStatusUpdate !== undefined && { nodeStatusUpdateMs: d.nodeStatusUpdate }),
    ...(d.forceDetachTimeout !== undefined && { forceDetachTimeoutMs: d.forceDetachTimeout }),
    ...(d.forceDetach !== undefined && { forceDetachEnabled: d.forceDetach }),
    ...(d.podGcInterval !== undefined && { podGcIntervalMs: d.podGcInterval }),
    ...(d.containerStart !== undefined && { containerStartMs: d.containerStart }),
    ...(d.podReadyDelay !== undefined && { podReadyDelayMs: d.podReadyDelay }),
    ...(d.attachDelay !== undefined && { attachDelayMs: d.attachDelay }),
  };
}

export function tolerationSecondsOf(s: Scenario): number {
  return s.durations.defaultToleration !== undefined ? Math.round(s.durations.defaultToleration / 1000) : 300;
}

export function nodeSpecs(s: Scenario): NodeSpec[] {
  const out: NodeSpec[] = [];
  let i = 0;
  for (const z of s.nodes.zones) {
    for (const r of z.racks) {
      for (let n = 1; n <= r.count; n++) {
        i++;
        // node addresses are only data in objects: TEST-NET-2 (RFC 5737), never contacted
        out.push({
          name: `${r.name}-${n}`,
          zone: z.name,
          rack: r.name,
          cpu: s.nodes.cpu,
          memory: s.nodes.memory,
          pods: s.nodes.pods,
          ip: `198.51.${100 + Math.floor(i / 250)}.${(i % 250) + 1}`,
        });
      }
    }
  }
  return out;
}

export function storageClasses(s: Scenario): k8s.V1StorageClass[] {
  return s.storageClasses.map((c) => ({
    apiVersion: 'storage.k8s.io/v1',
    kind: 'StorageClass',
    metadata: {
      name: c.name,
      ...(c.default && { annotations: { 'storageclass.kubernetes.io/is-default-class': 'true' } }),
    },
    provisioner: CSI_DRIVER,
    reclaimPolicy: c.reclaimPolicy,
    volumeBindingMode: c.bindingMode,
    ...(c.zones.length && {
      allowedTopologies: [{ matchLabelExpressions: [{ key: LABEL_ZONE, values: c.zones }] }],
    }),
  }));
}

export function namespaces(s: Scenario): string[] {
  return [...new Set(s.workloads.map((w) => w.namespace))].filter((n) => n !== 'default');
}

function podTemplate(w: Workload): k8s.V1PodTemplateSpec {
  const annotations: Record<string, string> = {};
  if (w.preStop !== undefined) annotations[ANN_PRESTOP_MS] = String(w.preStop);
  if (w.readyAfter !== undefined) annotations[ANN_READY_AFTER_MS] = String(w.readyAfter);
  if (w.sigtermExit !== undefined) annotations[ANN_SIGTERM_EXIT_MS] = String(w.sigtermExit);
  const container: k8s.V1Container = {
    name: 'app',
    image: w.image,
    resources: { requests: { cpu: w.cpu, memory: w.memory } },
    ...(w.preStop !== undefined && {
      lifecycle: { preStop: { exec: { command: ['sh', '-c', `sleep ${Math.ceil(w.preStop / 1000)}`] } } },
    }),
    ...(w.instanceIds && {
      // where Palisade's endpoint is, as a real pod would be told: from a ConfigMap Palisade writes
      env: [
        {
          name: INSTANCE_IDS_URL_ENV,
          valueFrom: { configMapKeyRef: { name: INSTANCE_IDS_CONFIGMAP, key: INSTANCE_IDS_CONFIGMAP_KEY } },
        },
      ],
    }),
  };
  const volumes: k8s.V1Volume[] = [];
  if (w.kind === 'StatefulSet' && w.volume) container.volumeMounts = [{ name: 'data', mountPath: '/data' }];
  return {
    metadata: { labels: { app: w.name }, ...(Object.keys(annotations).length && { annotations }) },
    spec: {
      terminationGracePeriodSeconds: w.terminationGracePeriodSeconds,
      containers: [container],
      ...(volumes.length && { volumes }),
      ...(w.zones && {
        affinity: {
          nodeAffinity: {
            requiredDuringSchedulingIgnoredDuringExecution: {
              nodeSelectorTerms: [
                { matchExpressions: [{ key: LABEL_ZONE, operator: 'In', values: w.zones }] },
              ],
            },
          },
        },
      }),
    },
  };
}

export function workloadObjects(w: Workload): k8s.KubernetesObject[] {
  const metadata = {
    name: w.name,
    namespace: w.namespace,
    labels: {
      app: w.name,
      ...(w.protect ? { 'podseidon.kubewharf.io/protect': 'true' } : {}),
      ...(w.instanceIds ? { [INSTANCE_IDS_LABEL]: 'true' } : {}),
    },
  };
  const selector = { matchLabels: { app: w.name } };
  const out: k8s.KubernetesObject[] = [];
  if (w.kind === 'StatefulSet') {
    const sts: k8s.V1StatefulSet = {
      apiVersion: 'apps/v1',
      kind: 'StatefulSet',
      metadata,
      spec: {
        replicas: w.replicas,
        serviceName: w.name,
        podManagementPolicy: w.podManagementPolicy,
        selector,
        template: podTemplate(w),
      },
    };
    if (w.volume) {
      sts.spec!.volumeClaimTemplates = [
        {
          metadata: { name: 'data' },
          spec: {
            accessModes: [w.volume.accessMode],
            storageClassName: w.volume.storageClass,
            resources: { requests: { storage: w.volume.size } },
          },
        },
      ];
    }
    out.push(sts);
  } else {
    out.push({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata,
      spec: {
        replicas: w.replicas,
        selector,
        strategy: {
          type: 'RollingUpdate',
          rollingUpdate: { maxUnavailable: w.maxUnavailable, maxSurge: w.maxSurge },
        },
        template: podTemplate(w),
      },
    } as k8s.V1Deployment);
  }
  if (w.service || w.kind === 'StatefulSet') {
    out.push({
      apiVersion: 'v1',
      kind: 'Service',
      metadata,
      spec: {
        selector: { app: w.name },
        ports: [{ name: 'http', port: 80, targetPort: 8080 }],
        ...(w.kind === 'StatefulSet' && { clusterIP: 'None' }),
      },
    } as k8s.V1Service);
  }
  return out;
}
