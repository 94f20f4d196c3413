// (b), (c) and the manual variant: the embedded cluster's plain behaviour, nobody acting (or,
// in the manual variant, a person force-deleting the stuck pod as a runbook would say).
import type * as k8s from '@kubernetes/client-node';
import { NS, type Profile, STS, scenarioYaml } from './profiles.js';
import { type Rig, sleep, startRig } from './rig.js';
import { partitionAtRandom, place, relative, type Sample, violationsOf, watchRecovery } from './steps.js';

export const PLAIN_APPS = {
  sts: STS,
  deployment: 'web',
  /** a person force-deletes its old pod as soon as it is Terminating (kubectl delete --force) */
  manual: 'web-manual',
} as const;

/** The person of the manual case: force-deletes the old pod (grace 0, uid precondition) once Terminating. */
async function personForceDeletes(rig: Rig, old: k8s.V1Pod, windowMs: number) {
  const t = await rig.marks.until(`${PLAIN_APPS.manual}:evicted`, windowMs);
  if (t === undefined) return;
  await rig.core
    .deleteNamespacedPod({
      name: old.metadata!.name!,
      namespace: NS,
      gracePeriodSeconds: 0,
      body: { gracePeriodSeconds: 0, preconditions: { uid: old.metadata!.uid } },
    })
    .catch(() => undefined);
  rig.marks.set(`${PLAIN_APPS.manual}:forceDeleted`);
}

/**
 * (b), (c) and the manual variant in one plain cluster (no Palisade): the StatefulSet, a
 * Deployment nobody touches and one whose stuck pod a person force-deletes; every node running
 * one of them is partitioned at once, and the cluster is watched for the profile's window.
 */
export async function plainRep(
  p: Profile,
  opts: { partitioned?: () => void } = {},
): Promise<Record<string, Sample>> {
  const rig = await startRig(scenarioYaml(p, 4));
  try {
    // all three on one node: partitioning more would trip the node lifecycle controller's
    // zone-disruption rule (>2 nodes and >= 55% NotReady: no evictions at all in a small cluster)
    const apps = Object.values(PLAIN_APPS);
    const { node: home, olds } = await place(rig, p, [PLAIN_APPS.deployment, PLAIN_APPS.manual]);
    const t0 = await partitionAtRandom(rig, p, [home]);
    opts.partitioned?.();
    for (const [i, o] of olds.entries()) watchRecovery(rig, apps[i], o, `${apps[i]}:`);
    const person = personForceDeletes(rig, olds[2], p.plainWindowMs);
    await sleep(p.plainWindowMs - (Date.now() - t0));
    await person;
    await multiAttachErrors(rig);
    const violations = violationsOf(rig);
    const out: Record<string, Sample> = {};
    olds.forEach((o, i) => {
      const app = apps[i];
      const phases = relative(rig, t0, `${app}:`);
      const pvs = volumesOf(rig, o);
      out[app] = {
        mttrMs: phases.running,
        windowMs: p.plainWindowMs,
        phases,
        violations: violations.filter(
          (v) => pvs.some((pv) => v.includes(pv)) || v.includes(` ${NS}/${app}/`),
        ),
      };
    });
    return out;
  } finally {
    await rig.stop();
  }
}

/** Stamp `<app>:multiAttach` from the first FailedAttachVolume event on a replacement (second precision). */
async function multiAttachErrors(rig: Rig) {
  const at = (e: k8s.CoreV1Event) =>
    new Date((e.firstTimestamp ?? e.eventTime) as unknown as string).getTime();
  const events = (await rig.core.listNamespacedEvent({ namespace: NS })).items
    .filter((e) => e.reason === 'FailedAttachVolume' && /Multi-Attach/.test(e.message ?? ''))
    .sort((a, b) => at(a) - at(b));
  for (const e of events) {
    const pod = e.involvedObject.name ?? '';
    // the longest app name the pod is named after: web-manual-… is not web's
    const app = Object.values(PLAIN_APPS)
      .filter((a) => pod.startsWith(`${a}-`))
      .sort((a, b) => b.length - a.length)[0];
    if (app) rig.marks.set(`${app}:multiAttach`, at(e));
  }
}

/** The PV names of a pod's claims (violations name the volume, or the StatefulSet identity). */
function volumesOf(rig: Rig, pod: k8s.V1Pod): string[] {
  const inf = rig.cluster.context.informers;
  return (pod.spec?.volumes ?? [])
    .map((v) => v.persistentVolumeClaim?.claimName)
    .map((c) => (c ? inf.pvcs.get(c, NS)?.spec?.volumeName : undefined))
    .filter((v): v is string => !!v);
}
