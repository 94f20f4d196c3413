// The fencing controller: for every node a FencePolicy covers, it asks the pure state machine
// (lib/fencing/machine.ts) for the next step and carries it out through the Kubernetes API,
// recording the result in the node's NodeFence before the next step. One reconcile per node at
// a time; every irreversible step (agent run, release, recovery) re-reads the Node and its Lease
// live first. An agent attempt is written as Running *before* the agent starts, so a controller
// that restarts mid-fence finds it, marks it Interrupted and verifies instead of running it again.
import { nodeHealth } from '../../lib/fencing/health.js';
import { type Decision, decide, type FenceWorld } from '../../lib/fencing/machine.js';
import { durationMs, type FencePolicy, type NodeFence } from '../../lib/fencing/types.js';
import { errorText, isConflict } from '../../lib/kube/errorText.js';
import type { ClusterConnection } from '../kube/connection.js';
import { component, type Logger, logger as rootLogger } from '../log.js';
import type { FenceAgent } from './agents.js';
import { agentFor } from './agents.js';
import { FencingApi } from './api.js';
import { withLease } from './facts.js';
import { type FencingInformers, fencingInformers } from './informers.js';
import { Release } from './release.js';
import { policyFor, worldOf } from './world.js';
import { attemptOf, detected, isoNow, trimOutput, withAttempt, withPhase } from './status.js';

export type ExecAgentFactory = (spec: Extract<FencePolicy['spec']['agent'], { type: 'exec' }>) => FenceAgent;

export interface FencingOptions {
  conn: ClusterConnection;
  exec: ExecAgentFactory;
  /** where its lines go (component 'fencing', with the cluster; the root logger by default) */
  logger?: Logger;
  /** how long a status query may take to confirm an agent's success (default 15 s) */
  verifyWindowMs?: number;
  /** how often the status query is repeated within that window */
  verifyEveryMs?: number;
  /** leader election: only the leader acts (every console watches); none given, this one always acts */
  leader?: LeaderGate;
}

/** What the controller needs of leader election (server/leader/elector.ts). */
export interface LeaderGate {
  isLeader(): boolean;
  /** read the Lease live: still this process's, before an irreversible step */
  confirm(): Promise<boolean>;
  onChange(cb: (leading: boolean) => void): void;
}

const MAX_STEPS_PER_RECONCILE = 25;
/** an action that found nothing to do yet: end this reconcile and look again shortly */
const AGAIN_LATER = 'again-later' as const;

export class FencingController {
  readonly informers: FencingInformers;
  private readonly api: FencingApi;
  private readonly release: Release;
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private readonly busy = new Set<string>();
  private readonly again = new Set<string>();
  private readonly inFlight = new Set<string>();
  /** the last "wait" reason told as an Event per node, so a held fence is told once, not every second */
  private readonly told = new Map<string, string>();
  /** told when the held list changes or leadership moves (the console pushes the Fencing page) */
  private readonly viewListeners = new Set<() => void>();
  private stopped = true;
  /** resolves once every cache a decision reads has its first list: no step acts on a partial one */
  private ready: Promise<unknown> = Promise.resolve();
  private readonly log: Logger;

  constructor(private readonly o: FencingOptions) {
    const kc = o.conn.spec.kc;
    const root = (o.logger ?? rootLogger).child({ cluster: o.conn.id });
    this.log = component('fencing', {}, root);
    this.api = new FencingApi(kc);
    this.release = new Release(this.api);
    this.informers = fencingInformers(kc, undefined, root);
    const byName = {
      add: (v: { name: string }) => this.schedule(v.name),
      update: (v: { name: string }) => this.schedule(v.name),
      delete: (v: { name: string }) => this.schedule(v.name),
    };
    this.informers.nodes.on(byName);
    this.informers.leases.on(byName); // a Lease is named after its node
    this.informers.fences.on({
      add: (f) => this.schedule(f.value?.spec.nodeName ?? f.name),
      update: (f) => this.schedule(f.value?.spec.nodeName ?? f.name),
      delete: (f) => this.schedule(f.value?.spec.nodeName ?? f.name),
    });
    const everyNode = () => {
      for (const n of this.informers.nodes.values()) this.schedule(n.name);
    };
    this.informers.policies.on({ add: everyNode, update: everyNode, delete: everyNode });
    // a new leader picks up every fence where the last one stopped (as after a restart)
    o.leader?.onChange((leading) => {
      if (leading) everyNode();
      else this.told.clear();
      this.viewChanged();
    });
  }

  start() {
    if (!this.stopped) return;
    this.stopped = false;
    for (const inf of Object.values(this.informers)) inf.start();
    // informer events arrive while the first lists come in (a fence before its node): hold them
    this.ready = Promise.all([this.synced(), this.o.conn.synced()]);
  }

  async synced() {
    await Promise.all(Object.values(this.informers).map((i) => i.synced()));
  }

  async stop() {
    this.stopped = true;
    for (const t of this.timers.values()) clearTimeout(t);
    this.timers.clear();
    await Promise.all(Object.values(this.informers).map((i) => i.stop()));
  }

  private schedule(node: string, delayMs = 0) {
    if (this.stopped || !node) return;
    if (this.busy.has(node)) {
      if (delayMs === 0) this.again.add(node);
      else
        this.timers.set(
          node,
          setTimeout(() => this.schedule(node), delayMs),
        );
      return;
    }
    const existing = this.timers.get(node);
    if (existing) clearTimeout(existing);
    this.timers.set(
      node,
      setTimeout(() => void this.reconcile(node), Math.max(0, delayMs)),
    );
  }

  private async reconcile(node: string) {
    this.timers.delete(node);
    if (this.stopped || this.busy.has(node)) return;
    this.busy.add(node);
    let recheck: number | undefined;
    try {
      recheck = await this.steps(node);
    } catch (e) {
      recheck = 2_000;
      this.log.warn({ node, err: errorText(e), retryMs: recheck }, 'reconcile failed');
    } finally {
      this.busy.delete(node);
    }
    if (this.again.delete(node)) this.schedule(node);
    else if (recheck !== undefined) this.schedule(node, recheck);
  }

  /** Decide and act until the machine says wait; returns when to look again. */
  private async steps(node: string): Promise<number | undefined> {
    await this.ready;
    if (this.o.leader && !this.o.leader.isLeader()) return undefined;
    let fence = this.informers.fences.get(node)?.value;
    for (let i = 0; i < MAX_STEPS_PER_RECONCILE && !this.stopped; i++) {
      const world = this.world(node, fence);
      if (!world) return undefined;
      const d = decide(world);
      // every decision says whether the node is held (a fence held before its agent by the budget
      // too) or no longer: the held list follows the latest one
      await this.tell(node, world, d.kind === 'wait' ? d.why : d.kind === 'phase' ? d.message : '');
      if (d.kind === 'wait') return d.recheckMs;
      const next = await this.act(world, d).catch((e) => {
        if (isConflict(e)) return 'reread' as const;
        throw e;
      });
      if (next === AGAIN_LATER) return 1_000;
      // nothing was written (the phase already recorded, the node not back yet): wait for the world
      if (next === fence) return (d.kind === 'phase' && d.recheckMs) || 1_000;
      fence = next === 'reread' ? await this.api.readFence(node) : next;
    }
    return 1_000;
  }

  private world(node: string, fence: NodeFence | undefined): FenceWorld | undefined {
    return worldOf(this.informers, this.o.conn, node, fence, this.inFlight.has(node));
  }

  onViewChange(cb: () => void) {
    this.viewListeners.add(cb);
  }

  private viewChanged() {
    for (const cb of this.viewListeners) cb();
  }

  /** Nodes whose fence is held right now (budget exceeded, waiting for approval), with why. */
  held(): { node: string; why: string }[] {
    return [...this.told].map(([node, why]) => ({ node, why }));
  }

  /** A held fence (budget exceeded, waiting for approval) is told once as an Event, not every second. */
  private async tell(node: string, w: FenceWorld, why: string) {
    const held = why.startsWith('fencing budget exceeded') || why === 'waiting for approval';
    if (!held) {
      if (this.told.delete(node)) this.viewChanged();
      return;
    }
    if (this.told.get(node) === why) return;
    this.told.set(node, why);
    this.viewChanged();
    const reason = why === 'waiting for approval' ? 'FenceAwaitingApproval' : 'FencingBlockedByBudget';
    if (reason === 'FenceAwaitingApproval') this.log.info({ node, reason }, why);
    else this.log.warn({ node, reason }, why);
    await this.api
      .event({ name: node, uid: w.node?.uid }, reason, `Palisade fencing: ${why}`, true)
      .catch(() => undefined);
  }

  private async act(
    w: FenceWorld,
    d: Exclude<Decision, { kind: 'wait' }>,
  ): Promise<NodeFence | undefined | typeof AGAIN_LATER> {
    const node = w.node?.name ?? w.fence?.spec.nodeName ?? '';
    const irreversible = d.kind === 'run-agent' || d.kind === 'release' || d.kind === 'recover';
    if (irreversible && this.o.leader && !(await this.o.leader.confirm())) return AGAIN_LATER;
    switch (d.kind) {
      case 'create':
        return this.create(node, d.why);
      case 'replace':
        await this.api.deleteFence(w.fence!);
        this.log.info(
          { node, fence: w.fence!.metadata.name, why: d.why },
          'new incident: NodeFence replaced',
        );
        await this.api.event(
          { name: node, uid: w.node?.uid },
          'FenceReplaced',
          `Palisade fencing: a new incident (${d.why}); the previous NodeFence was removed`,
        );
        return undefined;
      case 'phase':
        return this.phase(w, d);
      case 'run-agent':
        return this.runAgent(w, d.attempt);
      case 'interrupted':
        return this.interrupted(w.fence!, d.attempt);
      case 'verify':
        return this.verify(w, d.attempt);
      case 'release':
        return this.releaseStep(w, d.strategy);
      case 'recover':
        return this.recover(w);
    }
  }

  /** Re-read the node live: a fence starts only if it is still unhealthy long enough now. */
  private async create(node: string, why: string): Promise<NodeFence | undefined> {
    const live = await this.api.liveNode(node);
    const policy = policyFor(this.informers, node, undefined);
    if (!live || !policy?.spec) return undefined;
    const h = nodeHealth(policy.spec, withLease(live.facts, live.lease), Date.now());
    if (h.healthy || !h.longEnough) return undefined;
    let f: NodeFence;
    try {
      f = await this.api.createFence(node, policy.name);
    } catch (e) {
      if (isConflict(e)) return this.api.readFence(node);
      throw e;
    }
    f = await this.api.writeStatus(detected(f, live.facts, why, Date.now()));
    await this.event(f, 'FenceDetected', `node unhealthy: ${why}; policy ${policy.name}`, true);
    return f;
  }

  private async phase(w: FenceWorld, d: Extract<Decision, { kind: 'phase' }>) {
    const f = w.fence!;
    if (f.status.phase === d.to && f.status.message === d.message) return f;
    // a cancel ends the fence for good: only if the live Node agrees (gone, re-created, healthy)
    if (d.to === 'Cancelled') {
      const again = await this.decideLive(w);
      if (again.kind !== 'phase' || again.to !== 'Cancelled') return AGAIN_LATER;
    }
    const next = await this.api.writeStatus(withPhase(f, d.to, d.reason, d.message, Date.now()));
    if (f.status.phase !== d.to) await this.event(next, `Fence${d.to}`, d.message, d.to === 'Failed');
    return next;
  }

  /** The machine's decision again with the Node and its Lease read live (never the cache) and the clock now. */
  private async decideLive(w: FenceWorld, fence = w.fence): Promise<Decision> {
    const live = await this.api.liveNode(fence!.spec.nodeName);
    return decide({ ...w, now: Date.now(), node: live && withLease(live.facts, live.lease), fence });
  }

  private agent(w: FenceWorld): FenceAgent {
    return agentFor(w.policy.agent, this.o.conn.spec.infra, this.o.exec);
  }

  /** The irreversible step: re-read live, record the attempt as Running, then run the agent once. */
  private async runAgent(w: FenceWorld, number: number): Promise<NodeFence | undefined> {
    const node = w.fence!.spec.nodeName;
    const fresh = await this.api.readFence(node);
    if (!fresh) return undefined;
    const again = await this.decideLive(w, fresh);
    if (again.kind !== 'run-agent' || again.attempt !== number) return fresh;
    let agent: FenceAgent;
    try {
      agent = this.agent(w);
    } catch (e) {
      this.log.warn(
        { node, fence: fresh.metadata.name, attempt: number, err: errorText(e) },
        'no fence agent',
      );
      const started = isoNow(Date.now());
      const failed = withAttempt(fresh, {
        number,
        startedAt: started,
        finishedAt: started,
        result: 'Failed',
        output: errorText(e),
      });
      return this.api.writeStatus(failed);
    }
    let f = await this.api.writeStatus(
      withAttempt(fresh, { number, startedAt: isoNow(Date.now()), result: 'Running', output: '' }),
    );
    await this.event(
      f,
      'FenceAgentStarted',
      `attempt ${number}: running the ${w.policy.agent.type === 'exec' ? w.policy.agent.agent : w.policy.agent.type} agent`,
    );
    this.inFlight.add(node);
    let run: Awaited<ReturnType<FenceAgent['fence']>>;
    try {
      run = await agent.fence(node, durationMs(w.policy.timeout));
    } finally {
      this.inFlight.delete(node);
    }
    const finished = {
      finishedAt: isoNow(Date.now()),
      result: run.result,
      exitCode: run.exitCode,
      output: trimOutput(run.output),
    };
    f = await this.updateAttempt(node, number, finished);
    const ok = run.result === 'Succeeded';
    await this.event(
      f,
      ok ? 'FenceAgentSucceeded' : 'FenceAgentFailed',
      `attempt ${number}: ${run.result}${run.output ? `: ${trimOutput(run.output, 300)}` : ''}`,
      !ok,
    );
    return f;
  }

  /** An attempt's result must not be lost to a 409 (someone approved or cancelled meanwhile). */
  private async updateAttempt(
    node: string,
    number: number,
    patch: Partial<NonNullable<ReturnType<typeof attemptOf>>>,
  ) {
    for (let i = 0; ; i++) {
      const f = await this.api.readFence(node);
      const a = f && attemptOf(f, number);
      if (!f || !a) throw new Error(`NodeFence ${node} lost attempt ${number}`);
      try {
        return await this.api.writeStatus(withAttempt(f, { ...a, ...patch }));
      } catch (e) {
        if (!isConflict(e) || i >= 5) throw e;
      }
    }
  }

  private async interrupted(f: NodeFence, number: number) {
    const a = attemptOf(f, number)!;
    const note =
      'Palisade stopped while the agent ran; its outcome is unknown, so the status query decides (the agent is not run again for this attempt)';
    const next = await this.api.writeStatus(
      withAttempt(f, {
        ...a,
        result: 'Interrupted',
        finishedAt: isoNow(Date.now()),
        output: trimOutput(`${a.output}\n${note}`),
      }),
    );
    await this.event(next, 'FenceAgentInterrupted', `attempt ${number}: ${note}`, true);
    return next;
  }

  /** Believe the agent only when a status query confirms it, polling briefly: BMCs act late. */
  private async verify(w: FenceWorld, number: number) {
    const node = w.fence!.spec.nodeName;
    const agent = this.agent(w);
    const deadline = Date.now() + (this.o.verifyWindowMs ?? 15_000);
    let check = { state: 'unknown', confirmed: false, detail: '' };
    this.inFlight.add(node);
    try {
      while (!this.stopped) {
        check = await agent.check(node).catch((e) => ({
          state: 'unknown',
          confirmed: false,
          detail: `status query failed: ${errorText(e)}`,
        }));
        if (check.confirmed || Date.now() >= deadline) break;
        await new Promise((r) => setTimeout(r, this.o.verifyEveryMs ?? 500));
      }
    } finally {
      this.inFlight.delete(node);
    }
    const f = await this.updateAttempt(node, number, { verification: { at: isoNow(Date.now()), ...check } });
    await this.event(
      f,
      check.confirmed ? 'FenceVerified' : 'FenceNotConfirmed',
      check.confirmed
        ? `attempt ${number}: ${check.detail}`
        : `attempt ${number}: the agent reported success but the status query shows ${check.state}: not believed`,
      !check.confirmed,
    );
    return f;
  }

  /** One release round. In Releasing, a round that changed nothing ends this reconcile: look again in a second. */
  private async releaseStep(w: FenceWorld, strategy: FenceWorld['policy']['releaseStrategy']) {
    let f = w.fence!;
    const { event, what } = await this.release.apply(f.spec.nodeName, strategy);
    if (f.status.phase === 'Fenced')
      f = await this.api.writeStatus(withPhase(f, 'Releasing', 'Releasing', what, Date.now()));
    else if (!event) return AGAIN_LATER;
    if (event) await this.event(f, event, what);
    return f;
  }

  private async recover(w: FenceWorld) {
    const f = w.fence!;
    const node = f.spec.nodeName;
    if ((await this.decideLive(w)).kind !== 'recover') return f;
    const agent = w.policy.agent.type === 'storage' ? this.agent(w) : undefined;
    await agent?.unfence?.(node);
    const removed = await this.release.removeTaint(node);
    const msg = `node ${node} is back (Ready and heartbeating since the fence)${agent ? '; storage access restored' : ''}${removed ? '; out-of-service taint removed' : ''}`;
    const next = await this.api.writeStatus(withPhase(f, 'Recovered', 'NodeRecovered', msg, Date.now()));
    await this.event(next, 'FenceRecovered', msg);
    return next;
  }

  /** Each step is an Event on the Node and a line in the log (warning Events at warn). */
  private async event(f: NodeFence, reason: string, message: string, warning = false) {
    const facts = { node: f.spec.nodeName, fence: f.metadata.name, phase: f.status.phase, reason };
    if (warning) this.log.warn(facts, message);
    else this.log.info(facts, message);
    await this.api
      .event(
        { name: f.spec.nodeName, uid: f.status.nodeUid ?? undefined },
        reason,
        `Palisade fencing (NodeFence ${f.metadata.name}): ${message}`,
        warning,
      )
      .catch((e) => this.log.warn({ ...facts, err: errorText(e) }, 'Event not recorded'));
  }
}
