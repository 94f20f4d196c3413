// On the real control plane (PALISADE_CLUSTER=real) kube-controller-manager runs the loops
// these tests exercise, so the simulated ones step aside; only what it leaves to others
// (scheduler, the CSI driver's provisioner/binder and external-attacher) still runs. The
// tests then check the real controllers against the same expectations.
import { onRealControlPlane } from '../../apiserver/test/harness.js';
import { AttachDetachController } from '../attachDetach.js';
import { PvBinder } from '../pvBinder.js';
import type { Controller } from '../runtime/context.js';
import { Scheduler } from '../scheduler.js';
import { CsiAttacher } from '../volumes/csiAttacher.js';

export function underTest(controllers: Controller[]): Controller[] {
  if (!onRealControlPlane) return controllers;
  return controllers.flatMap((c) => {
    if (c instanceof Scheduler || c instanceof PvBinder || c instanceof CsiAttacher) return [c];
    if (c instanceof AttachDetachController) return [new CsiAttacher()];
    return [];
  });
}

/** skip reason for tests that look inside a simulated controller */
export const SIM_INTERNALS =
  'looks inside the simulated controller, which does not run beside the real kube-controller-manager';
