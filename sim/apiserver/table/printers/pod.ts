// Pods: READY, STATUS, RESTARTS the way kube-apiserver's pod printer derives them from
// phase, init containers (including restartable "sidecar" ones) and container states.
import type { KubeObject } from '../../resources/types.js';
import { formatAge, humanDuration, parseTime } from '../age.js';
import { ageColumn, col, nameColumn } from '../columns.js';
import { type Rec, dig, int, list, orNone, rec, recs, str } from '../fields.js';
import type { Printer, RowCondition } from '../types.js';

export const podPrinter: Printer = {
  columns: [
    nameColumn(),
    col('Ready', 'string', 'The aggregate readiness state of this pod for accepting traffic.'),
    col('Status', 'string', 'The aggregate status of the containers in this pod.'),
    col(
      'Restarts',
      'string',
      'The number of times the containers in this pod have been restarted and when the last container in this pod has restarted.',
    ),
    ageColumn(),
    // the descriptions are kube-apiserver v1.34's (from the API's field documentation)
    col(
      'IP',
      'string',
      'podIP address allocated to the pod. Routable at least within the cluster. Empty if not yet allocated.',
      1,
    ),
    col(
      'Node',
      'string',
      'NodeName indicates in which node this pod is scheduled. If empty, this pod is a candidate for scheduling by the scheduler defined in schedulerName. Once this field is set, the kubelet for this node becomes responsible for the lifecycle of this pod. This field should not be used to express a desire for the pod to be scheduled on a specific node. https://kubernetes.io/docs/concepts/scheduling-eviction/assign-pod-node/#nodename',
      1,
    ),
    col(
      'Nominated Node',
      'string',
      'nominatedNodeName is set only when this pod preempts other pods on the node, but it cannot be scheduled right away as preemption victims receive their graceful termination periods. This field does not guarantee that the pod will be scheduled on this node. Scheduler may decide to place the pod elsewhere if other nodes become available sooner. Scheduler may also decide to give the resources on this node to a higher priority pod that is created after preemption. As a result, this field may be different than PodSpec.nodeName when the pod is scheduled.',
      1,
    ),
    col(
      'Readiness Gates',
      'string',
      'If specified, all readiness gates will be evaluated for pod readiness. A pod is ready when all its containers are ready AND all conditions specified in the readiness gates have status equal to "True" More info: https://git.k8s.io/enhancements/keps/sig-network/580-pod-readiness-gates',
      1,
    ),
  ],
  print: (pod, now) => {
    const s = podSummary(pod);
    const restarts =
      s.restarts !== 0 && s.lastRestart !== undefined
        ? `${s.restarts} (${humanDuration(now.getTime() - s.lastRestart)} ago)`
        : String(s.restarts);
    const cells = [pod.metadata.name ?? '', `${s.ready}/${s.total}`, s.reason, restarts];
    return {
      cells: [...cells, formatAge(pod.metadata.creationTimestamp, now), ...wideCells(pod)],
      conditions: rowConditions(str(dig(pod, 'status', 'phase'))),
    };
  },
};

// Finished pods carry a Completed row condition so clients can hide them.
function rowConditions(phase: string): RowCondition[] | undefined {
  if (phase === 'Succeeded') {
    return [
      {
        type: 'Completed',
        status: 'True',
        reason: 'Succeeded',
        message: 'The pod has completed successfully.',
      },
    ];
  }
  if (phase === 'Failed')
    return [{ type: 'Completed', status: 'True', reason: 'Failed', message: 'The pod failed.' }];
  return undefined;
}

interface Tally {
  restarts: number;
  lastRestart?: number; // epoch ms of the newest lastState.terminated.finishedAt
}

interface Summary extends Tally {
  ready: number;
  total: number;
  reason: string;
}

function addRestarts(t: Tally, status: Rec): void {
  t.restarts += int(status.restartCount);
  const finished = parseTime(str(dig(status, 'lastState', 'terminated', 'finishedAt')));
  if (finished !== undefined && (t.lastRestart === undefined || finished > t.lastRestart))
    t.lastRestart = finished;
}

export function podSummary(pod: KubeObject): Summary {
  const spec = rec(pod.spec);
  const status = rec(pod.status);
  const phase = str(status.phase);
  const sidecars = new Set(
    recs(spec.initContainers)
      .filter((c) => c.restartPolicy === 'Always')
      .map((c) => str(c.name)),
  );
  const s: Summary = {
    restarts: 0,
    ready: 0,
    total: list(spec.containers).length + sidecars.size,
    reason: str(status.reason) || phase,
  };
  if (recs(status.conditions).some((c) => c.type === 'PodScheduled' && c.reason === 'SchedulingGated')) {
    s.reason = 'SchedulingGated';
  }
  const init = initContainers(spec, status, sidecars, s);
  if (!init.initializing || hasCondition(status, 'Initialized')) {
    s.restarts = init.sidecar.restarts;
    s.lastRestart = init.sidecar.lastRestart;
    appContainers(status, s);
  } else {
    s.restarts = init.all.restarts;
    s.lastRestart = init.all.lastRestart;
  }
  if (pod.metadata.deletionTimestamp) {
    // A pod on an unreachable node cannot confirm it is terminating.
    if (status.reason === 'NodeLost') s.reason = 'Unknown';
    else if (phase !== 'Succeeded' && phase !== 'Failed') s.reason = 'Terminating';
  }
  return s;
}

/** Walks init container statuses until the first one that is still blocking the pod. */
function initContainers(spec: Rec, status: Rec, sidecars: Set<string>, s: Summary) {
  const all: Tally = { restarts: 0 };
  const sidecar: Tally = { restarts: 0 };
  const count = list(spec.initContainers).length;
  const statuses = recs(status.initContainerStatuses);
  for (let i = 0; i < statuses.length; i++) {
    const c = statuses[i];
    const isSidecar = sidecars.has(str(c.name));
    addRestarts(all, c);
    if (isSidecar) addRestarts(sidecar, c);
    const terminated = dig(c, 'state', 'terminated');
    if (terminated !== undefined && int(dig(terminated, 'exitCode')) === 0) continue;
    if (isSidecar && c.started === true) {
      if (c.ready === true) s.ready++;
      continue;
    }
    s.reason = initReason(rec(c.state), i, count);
    return { all, sidecar, initializing: true };
  }
  return { all, sidecar, initializing: false };
}

function initReason(state: Rec, index: number, count: number): string {
  if (state.terminated !== undefined) return `Init:${terminatedReason(rec(state.terminated))}`;
  const waiting = str(dig(state, 'waiting', 'reason'));
  if (waiting !== '' && waiting !== 'PodInitializing') return `Init:${waiting}`;
  return `Init:${index}/${count}`;
}

function terminatedReason(t: Rec): string {
  if (str(t.reason) !== '') return str(t.reason);
  return int(t.signal) !== 0 ? `Signal:${int(t.signal)}` : `ExitCode:${int(t.exitCode)}`;
}

/** App containers, last to first, so the first container's state wins the STATUS cell. */
function appContainers(status: Rec, s: Summary): void {
  let hasRunning = false;
  const statuses = recs(status.containerStatuses);
  for (let i = statuses.length - 1; i >= 0; i--) {
    const c = statuses[i];
    addRestarts(s, c);
    const state = rec(c.state);
    const waiting = str(dig(state, 'waiting', 'reason'));
    if (waiting !== '') s.reason = waiting;
    else if (state.terminated !== undefined) s.reason = terminatedReason(rec(state.terminated));
    else if (c.ready === true && state.running !== undefined) {
      hasRunning = true;
      s.ready++;
    }
  }
  // One container completed while another still runs: the pod as a whole is not done.
  if (s.reason === 'Completed' && hasRunning)
    s.reason = hasCondition(status, 'Ready') ? 'Running' : 'NotReady';
}

function hasCondition(status: Rec, type: string): boolean {
  return recs(status.conditions).some((c) => c.type === type && c.status === 'True');
}

function wideCells(pod: KubeObject): string[] {
  const spec = rec(pod.spec);
  const status = rec(pod.status);
  // v1 pods may carry only the singular podIP; the API converts it into podIPs.
  const ip = str(recs(status.podIPs)[0]?.ip) || str(status.podIP);
  return [
    orNone(ip),
    orNone(str(spec.nodeName)),
    orNone(str(status.nominatedNodeName)),
    readinessGates(spec, status),
  ];
}

function readinessGates(spec: Rec, status: Rec): string {
  const gates = recs(spec.readinessGates);
  if (gates.length === 0) return '<none>';
  const conditions = recs(status.conditions);
  const passed = gates.filter((g) => conditions.find((c) => c.type === g.conditionType)?.status === 'True');
  return `${passed.length}/${gates.length}`;
}
