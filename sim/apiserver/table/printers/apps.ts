// apps/v1 workloads: Deployment, ReplicaSet, StatefulSet, DaemonSet.
import type { KubeObject } from '../../resources/types.js';
import { formatAge } from '../age.js';
import { ageColumn, col, containersColumn, imagesColumn, nameColumn, selectorColumn } from '../columns.js';
import { dig, int, rec } from '../fields.js';
import { containerCells, formatLabelSelector, formatLabels, selectorString } from '../labels.js';
import type { Printer } from '../types.js';

const age = (o: KubeObject, now: Date) => formatAge(o.metadata.creationTimestamp, now);
const status = (o: KubeObject, field: string) => int(dig(o, 'status', field));

// spec.replicas is defaulted to 1 by the API, so a stored object without it means 1.
function desired(o: KubeObject): number {
  const r = dig(o, 'spec', 'replicas');
  return typeof r === 'number' ? Math.trunc(r) : 1;
}

const TEMPLATE = ['spec', 'template', 'spec'];

export const deploymentPrinter: Printer = {
  columns: [
    nameColumn(),
    col('Ready', 'string', 'Number of the pod with ready state'),
    col(
      'Up-to-date',
      'string',
      'Total number of non-terminating pods targeted by this deployment that have the desired template spec.',
    ),
    col(
      'Available',
      'string',
      'Total number of available non-terminating pods (ready for at least minReadySeconds) targeted by this deployment.',
    ),
    ageColumn(),
    containersColumn(),
    imagesColumn(),
    selectorColumn(
      'Label selector for pods. Existing ReplicaSets whose pods are selected by this will be the ones affected by this deployment.',
    ),
  ],
  print: (d, now) => {
    const [names, images] = containerCells(d, ...TEMPLATE);
    const selector = selectorString(dig(d, 'spec', 'selector')) ?? '<invalid>';
    const ready = `${status(d, 'readyReplicas')}/${desired(d)}`;
    const counts = [status(d, 'updatedReplicas'), status(d, 'availableReplicas')];
    return { cells: [d.metadata.name ?? '', ready, ...counts, age(d, now), names, images, selector] };
  },
};

export const replicaSetPrinter: Printer = {
  columns: [
    nameColumn(),
    col('Desired', 'integer', 'Replicas is the number of desired pods.'),
    col('Current', 'integer', 'Replicas is the most recently observed number of non-terminating pods.'),
    col(
      'Ready',
      'integer',
      'The number of non-terminating pods targeted by this ReplicaSet with a Ready Condition.',
    ),
    ageColumn(),
    containersColumn(),
    imagesColumn(),
    selectorColumn('Selector is a label query over pods that should match the replica count.'),
  ],
  print: (rs, now) => {
    const [names, images] = containerCells(rs, ...TEMPLATE);
    const counts = [desired(rs), status(rs, 'replicas'), status(rs, 'readyReplicas')];
    const selector = formatLabelSelector(dig(rs, 'spec', 'selector'));
    return { cells: [rs.metadata.name ?? '', ...counts, age(rs, now), names, images, selector] };
  },
};

export const statefulSetPrinter: Printer = {
  columns: [
    nameColumn(),
    col('Ready', 'string', 'Number of the pod with ready state'),
    ageColumn(),
    containersColumn(),
    imagesColumn(),
  ],
  print: (sts, now) => {
    const [names, images] = containerCells(sts, ...TEMPLATE);
    const ready = `${status(sts, 'readyReplicas')}/${desired(sts)}`;
    return { cells: [sts.metadata.name ?? '', ready, age(sts, now), names, images] };
  },
};

export const daemonSetPrinter: Printer = {
  columns: [
    nameColumn(),
    col('Desired', 'integer', 'The total number of nodes that should be running the daemon pod.'),
    col(
      'Current',
      'integer',
      'The number of nodes that are running at least 1 daemon pod and are supposed to run the daemon pod.',
    ),
    col(
      'Ready',
      'integer',
      'The number of nodes that should be running the daemon pod and have one or more of the daemon pod running with a Ready Condition.',
    ),
    col('Up-to-date', 'integer', 'The total number of nodes that are running updated daemon pod'),
    col(
      'Available',
      'integer',
      'The number of nodes that should be running the daemon pod and have one or more of the daemon pod running and available.',
    ),
    col(
      'Node Selector',
      'string',
      'NodeSelector is a selector which must be true for the pod to fit on a node.',
    ),
    ageColumn(),
    containersColumn(),
    imagesColumn(),
    selectorColumn('A label query over pods that are managed by the daemon set.'),
  ],
  print: (ds, now) => {
    const [names, images] = containerCells(ds, ...TEMPLATE);
    const fields = [
      'desiredNumberScheduled',
      'currentNumberScheduled',
      'numberReady',
      'updatedNumberScheduled',
    ];
    const counts = [...fields, 'numberAvailable'].map((f) => status(ds, f));
    const nodeSelector = formatLabels(rec(dig(ds, ...TEMPLATE)).nodeSelector);
    const selector = formatLabelSelector(dig(ds, 'spec', 'selector'));
    return {
      cells: [ds.metadata.name ?? '', ...counts, nodeSelector, age(ds, now), names, images, selector],
    };
  },
};
