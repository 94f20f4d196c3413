// Every simulated control-plane loop: the stand-ins for kube-scheduler and
// kube-controller-manager, each an ordinary API client; and the few that still run beside
// a real kube-controller-manager.
import { AttachDetachController } from './attachDetach.js';
import { DeploymentController } from './deployment.js';
import { DisruptionController } from './disruption.js';
import { EndpointSliceController } from './endpoints.js';
import { NodeLifecycleController } from './nodeLifecycle.js';
import { PodGcController } from './podGc.js';
import { PvBinder } from './pvBinder.js';
import { ReplicaSetController } from './replicaSet.js';
import type { Controller } from './runtime/context.js';
import { Scheduler } from './scheduler.js';
import { StatefulSetController } from './statefulSet.js';
import { TaintEvictionController } from './taintEviction.js';
import { CsiAttacher } from './volumes/csiAttacher.js';

export function allControllers(): Controller[] {
  return [
    new Scheduler(),
    new NodeLifecycleController(),
    new TaintEvictionController(),
    new PodGcController(),
    new DisruptionController(),
    new StatefulSetController(),
    new ReplicaSetController(),
    new DeploymentController(),
    new EndpointSliceController(),
    new PvBinder(),
    new AttachDetachController(),
  ];
}

/**
 * Beside a real kube-controller-manager only what it leaves to others runs: the scheduler,
 * the simulated CSI driver's provisioner and binder (its PV binder is turned off, see
 * sim/real/flags.ts), and the driver's external-attacher, which acts on the
 * VolumeAttachments the real attach/detach controller creates.
 */
export function controllersBesideRealControlPlane(): Controller[] {
  return [new Scheduler(), new PvBinder(), new CsiAttacher()];
}
