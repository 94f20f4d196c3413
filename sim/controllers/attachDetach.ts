// Attach/detach controller, standing in for kube-controller-manager's
// attachdetach-controller, plus the simulated CSI external-attacher. For every pod on
// a node it makes the pod's CSI volumes attached there (a VolumeAttachment each);
// a single-node volume held by another node is not attached but reported as a
// Multi-Attach error on the waiting pod. A volume leaves a node only as decideDetach
// allows: no pod in the API needs it there and the kubelet stopped reporting it in
// use, or the node is tainted out-of-service, or (force detach) the node is not
// Ready and maxWaitForUnmountDuration has passed. The controller mirrors attached
// volumes into node.status.volumesAttached.
import type * as k8s from '@kubernetes/client-node';
import { type PodRef, claimNamesOfPod, planAttachments, podHoldsVolumes } from '../../lib/volumes/attach.js';
import { claimKey } from '../rules/volumes/binding.js';
import { type DetachVerdict, decideDetach, forceDetachMessage } from '../../lib/volumes/detach.js';
import type { Controller, ControllerContext } from './runtime/context.js';
import {
  CSI_DRIVER,
  TAINT_OUT_OF_SERVICE,
  attachmentName,
  hasTaint,
  nodeReady,
  uniqueVolumeName,
  volumeHandleOf,
} from './runtime/conventions.js';
import { WorkQueue } from './runtime/queue.js';
import { logFailure, subject, tolerate } from './volumes/common.js';
import { CsiAttacher } from './volumes/csiAttacher.js';
import { AttachEvents } from './volumes/attachEvents.js';
import { NodeStatusMirror } from './volumes/nodeStatus.js';
import { VolumeUsageIndex } from './volumes/usageIndex.js';

const COMPONENT = 'attachdetach-controller';
/** while a volume waits for another node to let go: the informers wake us, this is a backstop */
const BLOCKED_RECHECK_MS = 10_000;
type Attachment = k8s.V1VolumeAttachment;

export class AttachDetachController implements Controller {
  readonly name = 'attach-detach';
  private ctx!: ControllerContext;
  private queue!: WorkQueue;
  private nodeStatus!: NodeStatusMirror;
  private events!: AttachEvents;
  private readonly attacher = new CsiAttacher();
  private readonly index = new VolumeUsageIndex();
  /** VolumeAttachment name -> when its volume stopped being needed on that node */
  private readonly detachRequestedAt = new Map<string, number>();
  /** attachments we created that the informer has not shown yet (so we never attach twice) */
  private readonly created = new Map<string, { va: Attachment; at: number }>();
  private readonly verdicts = new Map<string, DetachVerdict>();
  private started = false;

  register(ctx: ControllerContext) {
    this.ctx = ctx;
    this.queue = new WorkQueue((k) => this.sync(k), logFailure(ctx.log, this.name));
    this.nodeStatus = new NodeStatusMirror(ctx, this.index);
    this.events = new AttachEvents(ctx);
    this.attacher.register(ctx);
    this.watchPods();
    this.watchVolumes();
    this.watchAttachments();
    this.watchNodes();
  }

  start() {
    this.started = true;
    for (const pv of this.ctx.informers.pvs.list()) this.enqueueVolume(pv.metadata?.name);
    for (const va of this.ctx.informers.volumeAttachments.list()) this.attachmentChanged(va);
    this.attacher.start();
  }

  stop() {
    this.started = false;
    this.queue?.stop();
    this.attacher.stop();
  }

  /** The latest detach decision for a volume on a node (for diagnostics and tests). */
  detachVerdict(pv: string, node: string): DetachVerdict | undefined {
    return this.verdicts.get(this.attachmentOf(pv, node));
  }

  private attachmentOf(pv: string, node: string) {
    return attachmentName(volumeHandleOf(this.ctx.informers.pvs.get(pv), pv), node);
  }

  private enqueueVolume(pv: string | undefined) {
    if (this.started && pv) this.queue.add(`pv:${pv}`);
  }

  private enqueueNode(node: string | undefined) {
    if (this.started && node) this.queue.add(`node:${node}`);
  }

  private sync(key: string): Promise<void> {
    const name = key.slice(key.indexOf(':') + 1);
    return key.startsWith('node:') ? this.nodeStatus.sync(name) : this.syncVolume(name);
  }

  // --- informer wiring ------------------------------------------------------------

  private watchPods() {
    const { pods, pvcs } = this.ctx.informers;
    const touched = (p: k8s.V1Pod) => {
      for (const claim of claimNamesOfPod(p)) {
        const key = claimKey(p.metadata?.namespace, claim);
        this.enqueueVolume(
          pvcs.get(claim, p.metadata?.namespace)?.spec?.volumeName ?? this.index.volumeOfClaim(key),
        );
      }
    };
    // what attach decisions depend on; status churn alone changes nothing
    const state = (p: k8s.V1Pod) => `${p.spec?.nodeName}|${podHoldsVolumes(p)}|${claimNamesOfPod(p)}`;
    pods.on({
      add: (p) => {
        this.index.pod(p);
        touched(p);
      },
      update: (p, old) => {
        this.index.pod(p, old);
        if (state(p) === state(old)) return;
        touched(old);
        touched(p);
      },
      delete: (p) => {
        this.index.podGone(p);
        this.events.forgetPod(p);
        touched(p);
      },
    });
  }

  private watchVolumes() {
    const { pvs, pvcs } = this.ctx.informers;
    const claim = (c: k8s.V1PersistentVolumeClaim) => {
      const pv = c.spec?.volumeName;
      if (pv) this.index.link(pv, claimKey(c.metadata?.namespace, c.metadata?.name));
      this.enqueueVolume(pv);
    };
    pvcs.on({ add: claim, update: claim, delete: (c) => this.enqueueVolume(c.spec?.volumeName) });
    const volume = (v: k8s.V1PersistentVolume) => {
      const ref = v.spec?.claimRef;
      if (ref?.name) this.index.link(v.metadata!.name!, claimKey(ref.namespace, ref.name));
      this.enqueueVolume(v.metadata?.name);
    };
    pvs.on({
      add: volume,
      update: volume,
      delete: (v) => {
        const name = v.metadata!.name!;
        if (this.index.attachmentsOfVolume(name).length === 0) this.index.forgetVolume(name);
        this.enqueueVolume(name);
      },
    });
  }

  private watchAttachments() {
    this.ctx.informers.volumeAttachments.on({
      add: (va) => {
        this.index.attachment(va);
        this.attachmentChanged(va);
      },
      update: (va, old) => {
        this.index.attachment(va, old);
        this.attachmentChanged(va);
        if (va.status?.attached && !old.status?.attached) void this.events.attached(va, this.index);
      },
      delete: (va) => {
        const name = va.metadata!.name!;
        this.index.attachmentGone(va);
        for (const m of [this.detachRequestedAt, this.verdicts, this.created]) m.delete(name);
        this.nodeStatus.detached(name);
        const pv = va.spec?.source?.persistentVolumeName ?? '';
        if (!this.ctx.informers.pvs.get(pv) && !this.index.attachmentsOfVolume(pv).length)
          this.index.forgetVolume(pv);
        this.attachmentChanged(va);
      },
    });
  }

  private attachmentChanged(va: Attachment) {
    this.created.delete(va.metadata!.name!);
    this.enqueueVolume(va.spec?.source?.persistentVolumeName);
    this.enqueueNode(va.spec?.nodeName);
  }

  private watchNodes() {
    // what detach decisions and volumesAttached depend on; heartbeats alone change nothing
    const state = (n: k8s.V1Node) =>
      JSON.stringify([
        n.status?.volumesInUse ?? [],
        (n.spec?.taints ?? []).map((t) => `${t.key}:${t.effect}`),
        nodeReady(n),
        (n.status?.volumesAttached ?? []).map((v) => v.name),
      ]);
    const touched = (n: k8s.V1Node) => {
      const name = n.metadata!.name!;
      this.enqueueNode(name);
      for (const va of this.index.attachmentsOnNode(name))
        this.enqueueVolume(this.ctx.informers.volumeAttachments.get(va)?.spec?.source?.persistentVolumeName);
    };
    this.ctx.informers.nodes.on({
      add: touched,
      update: (n, old) => state(n) !== state(old) && touched(n),
      delete: touched,
    });
  }

  // --- decisions ------------------------------------------------------------------

  private attachmentsOf(pv: string): Attachment[] {
    const inf = this.ctx.informers.volumeAttachments;
    const seen = this.index.attachmentsOfVolume(pv).map((n) => inf.get(n)!);
    const now = Date.now();
    for (const [name, c] of this.created) {
      // an attachment the informer never showed (created and deleted meanwhile) expires
      if (now - c.at > 60_000) this.created.delete(name);
      else if (c.va.spec?.source?.persistentVolumeName === pv && !inf.get(name)) seen.push(c.va);
    }
    return seen.filter((va) => va && va.spec?.attacher === CSI_DRIVER);
  }

  private async syncVolume(pv: string) {
    const volume = this.ctx.informers.pvs.get(pv);
    if (volume && volume.spec?.csi?.driver !== CSI_DRIVER) return;
    const attachments = this.attachmentsOf(pv);
    const users = this.index.usersOf(pv, volume, this.ctx.informers);
    if (volume) await this.attachWhereNeeded(pv, volume, users, attachments);
    for (const va of attachments) await this.maybeDetach(pv, va, users);
  }

  private async attachWhereNeeded(
    pv: string,
    volume: k8s.V1PersistentVolume,
    users: PodRef[],
    vas: Attachment[],
  ) {
    const plan = planAttachments({
      accessModes: volume.spec?.accessModes,
      wanting: users,
      attachedNodes: vas.map((va) => va.spec!.nodeName),
      attachable: (node) => !!this.ctx.informers.nodes.get(node),
    });
    for (const node of plan.attach) await this.attach(pv, node);
    for (const b of plan.blocked) await this.events.multiAttach(pv, b);
    // a look again now and then while blocked (the error is not recorded again)
    if (plan.blocked.length) this.queue.addAfter(`pv:${pv}`, BLOCKED_RECHECK_MS);
  }

  private async attach(pv: string, nodeName: string) {
    const body: Attachment = {
      apiVersion: 'storage.k8s.io/v1',
      kind: 'VolumeAttachment',
      metadata: { name: this.attachmentOf(pv, nodeName) },
      spec: { attacher: CSI_DRIVER, nodeName, source: { persistentVolumeName: pv } },
    };
    const va = await tolerate(this.ctx.clients.storage.createVolumeAttachment({ body }), [409]);
    if (va) this.created.set(va.metadata!.name!, { va, at: Date.now() });
    this.ctx.log(this.name, `attacherDetacher.AttachVolume started for volume "${pv}" on node "${nodeName}"`);
  }

  private async maybeDetach(pv: string, va: Attachment, users: PodRef[]) {
    const name = va.metadata!.name!;
    if (va.metadata?.deletionTimestamp) return; // the attacher is detaching it
    const nodeName = va.spec!.nodeName;
    const node = this.ctx.informers.nodes.get(nodeName);
    const podsUsing = users.filter((p) => p.node === nodeName).map((p) => `${p.namespace}/${p.name}`);
    const now = Date.now();
    if (podsUsing.length) this.detachRequestedAt.delete(name);
    else if (!this.detachRequestedAt.has(name)) this.detachRequestedAt.set(name, now);
    const verdict = decideDetach({
      podsUsing,
      mountedByNode: (node?.status?.volumesInUse ?? []).includes(uniqueVolumeName(pv)),
      node: node && { ready: nodeReady(node), outOfService: hasTaint(node, TAINT_OUT_OF_SERVICE) },
      detachRequestedAtMs: this.detachRequestedAt.get(name) ?? now,
      nowMs: now,
      maxWaitForUnmountMs: this.ctx.durations.forceDetachTimeoutMs,
      forceDetachEnabled: this.ctx.durations.forceDetachEnabled,
    });
    this.verdicts.set(name, verdict);
    if (verdict.detach) return this.detach(pv, va, node, verdict);
    if (verdict.recheckInMs !== undefined) this.queue.addAfter(`pv:${pv}`, verdict.recheckInMs + 1);
  }

  private async detach(pv: string, va: Attachment, node: k8s.V1Node | undefined, verdict: DetachVerdict) {
    const nodeName = va.spec!.nodeName;
    if (verdict.kind === 'force-timeout' && node) {
      const msg = forceDetachMessage(
        pv,
        uniqueVolumeName(pv),
        nodeName,
        this.ctx.durations.forceDetachTimeoutMs,
      );
      this.ctx.log(this.name, msg);
      await this.ctx.events.record(COMPONENT, subject('Node', 'v1', node), 'Warning', 'ForceDetach', msg);
    } else {
      const why = verdict.kind === 'out-of-service' ? ' (node has out-of-service taint)' : '';
      this.ctx.log(
        this.name,
        `attacherDetacher.DetachVolume started for volume "${pv}" on node "${nodeName}"${why}`,
      );
    }
    // as kube-controller-manager does: stop reporting it attached first, then detach
    await this.nodeStatus.detaching(va.metadata!.name!, nodeName);
    await tolerate(this.ctx.clients.storage.deleteVolumeAttachment({ name: va.metadata!.name! }), [404]);
  }
}
