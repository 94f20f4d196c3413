// The fencing controller: for every node a FencePolicy covers, it asks the pure state machine
// (lib/fencing/machine.ts) for the next step and carries it out through the Kubernetes API,
// recording the result in the node's NodeFence before the next step. A loop on the controller
// runtime, keyed by node: one reconcile per node at a time, run only while this console leads
// the cluster's controller Lease, writing through the term's kubeconfig (a leader that lost the
// Lease cannot write); every irreversible step (agent run, release, recovery) re-reads the
// controller Lease, the Node and its Lease live first. An agent attempt is written as Running
// *before* the agent starts, so a controller that restarts mid-fence (or a new leader) finds it,
// marks it Interrupted and verifies instead of running it again. It reads projections of the
// cluster's shared watches (the console's nodes and node Leases, plus policies and fences).
import { nodeHealth } from '../../lib/fencing/health.js';
import { judgeExecAgent, verdictText } from '../../lib/fenceAgents/policy.js';
import {
  AGENT_REFUSED,
  type Decision,
  decide,
  type FenceWorld,
  fenceAtFor,
  type WaitReason,
} from '../../lib/fencing/machine.js';
import {
  durationMs,
  type FencePolicy,
  type FencePolicySpec,
  type NodeFence,
} from '../../lib/fencing/types.js';
import { DEFAULT_CREDENTIALS_NAMESPACE } from '../config/schema.js';
import { errorText, isConflict } from '../../lib/kube/errorText.js';
import type { ClusterConnection } from '../kube/connection.js';
import { component, type Logger, logger as rootLogger } from '../log.js';
import { Loop } from '../runtime/loop.js';
import { nameKey } from '../../lib/runtime/keys.js';
import type { Term } from '../runtime/gate.js';
import { done, type Result, requeueAfter } from '../../lib/runtime/result.js';
import type { FenceAgent } from './agents.js';
import { agentFor } from './agents.js';
import { FencingApi } from './api.js';
import { withLease } from './facts.js';
import { type FencingInformers, fencingInformers } from './informers.js';
import { Release } from './release.js';
import { policyFor, worldOf } from './world.js';
import {
  attemptOf,
  detected,
  isoNow,
  trimOutput,
  withAttempt,
  withPhase,
  withReleaseStep,
  withStep,
} from './status.js';

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
  /** reconciles at once: nodes fenced in parallel (default 32; the budget bounds them anyway) */
  concurrency?: number;
  /**
   * palisade.yaml fencing.credentialsNamespaces: where an exec agent's Secrets may be read (default
   * palisade-system); a policy naming another namespace is refused before any agent runs
   */
  credentialsNamespaces?: readonly string[];
}

/**
 * Why the controller looks at a node again later: the machine's typed wait, or a step that
 * found nothing to do yet ('again-later': the Lease could not be confirmed live, a release round
 * changed nothing, a cancel the live Node did not agree with), a recorded phase waiting for the
 * world ('phase'), or a reconcile that used up its steps ('more-steps').
 */
export type FenceWait = WaitReason | 'again-later' | 'phase' | 'more-steps';

/** A node whose fence is held (the budget, or a person's approval), as the Fencing page lists it. */
export interface HeldFence {
  node: string;
  reason: Extract<WaitReason, 'budget' | 'approval' | 'paused'>;
  why: string;
}

const MAX_STEPS_PER_RECONCILE = 25;
/** the Event that tells a held fence once */
const HELD_EVENT: Record<HeldFence['reason'], string> = {
  approval: 'FenceAwaitingApproval',
  budget: 'FencingBlockedByBudget',
  paused: 'FencingPausedByPolicy',
};
/** an action that found nothing to do yet: end this reconcile and look again shortly */
const AGAIN_LATER = 'again-later' as const;

export class FencingController {
  readonly informers: FencingInformers;
  /** its loop on the controller runtime (startFencing adds it to the cluster's manager) */
  readonly loop: Loop<string, FenceWait>;
  private clients: { api: FencingApi; release: Release } | undefined;
  private readonly inFlight = new Set<string>();
  /** the held fences told as an Event per node, so a held fence is told once, not every second */
  private readonly told = new Map<string, HeldFence>();
  /** told when the held list changes or leadership moves (the console pushes the Fencing page) */
  private readonly viewListeners = new Set<() => void>();
  private stopped = true;
  private readonly log: Logger;

  constructor(private readonly o: FencingOptions) {
    const root = (o.logger ?? rootLogger).child({ cluster: o.conn.id });
    this.log = component('fencing', {}, root);
    this.informers = fencingInformers(o.conn.registry);
    // keys are node names; nothing is looked at once the watches stopped
    const node = (name: string | undefined) => (!this.stopped && name) || undefined;
    this.loop = new Loop<string, FenceWait>({
      name: 'fencing',
      key: nameKey,
      for: { source: this.informers.nodes, keys: (n) => node(n.name) },
      owns: [{ source: this.informers.fences, keys: (f) => node(f.value?.spec.nodeName ?? f.name) }],
      watches: [
        // a node's Lease is named after it
        { source: this.informers.leases, keys: (l) => node(l.name) },
        // a policy's change bears on every node it may cover
        { source: this.informers.policies, keys: () => this.nodeNames() },
      ],
      begin: (term) => this.begin(term),
      reconcile: (n, term) => this.reconcile(n, term),
      end: () => this.end(),
      // an agent run takes up to its policy's timeout: other nodes must not wait for it
      concurrency: o.concurrency ?? 32,
      backoff: { baseMs: 2_000, maxMs: 60_000 },
      logger: root,
    });
  }

  private nodeNames(): string[] {
    return this.stopped ? [] : [...this.informers.nodes.values()].map((n) => n.name);
  }

  private everyNode() {
    for (const n of this.nodeNames()) this.loop.enqueue(n);
  }

  /** Watch (every replica): its projections of the cluster's shared watches. */
  start() {
    if (!this.stopped) return;
    this.stopped = false;
    for (const inf of Object.values(this.informers)) inf.start();
  }

  async synced() {
    await Promise.all(Object.values(this.informers).map((i) => i.synced()));
  }

  async stop() {
    this.stopped = true;
    this.loop.controller.halt();
    await Promise.all(Object.values(this.informers).map((i) => i.stop()));
  }

  /**
   * A term begins on this console: write through its kubeconfig, and once every cache a decision
   * reads has its first list (a fence may arrive before its node) pick up every fence where the
   * last leader stopped, as after a restart.
   */
  private async begin(term: Term) {
    const api = new FencingApi(term.kc(this.o.conn.spec.kc));
    this.clients = { api, release: new Release(api) };
    await Promise.all([this.synced(), this.o.conn.synced()]);
    this.everyNode();
    this.viewChanged();
  }

  /** The term ended: every loop stopped at once; what it held is no longer this console's to tell. */
  private end() {
    this.clients = undefined;
    this.told.clear();
    this.viewChanged();
  }

  private get api(): FencingApi {
    if (!this.clients) throw new Error('no term: not leading');
    return this.clients.api;
  }

  private get release(): Release {
    if (!this.clients) throw new Error('no term: not leading');
    return this.clients.release;
  }

  private async reconcile(node: string, term: Term): Promise<Result<FenceWait>> {
    if (this.stopped) return done;
    return this.steps(node, term);
  }

  /** Decide and act until the machine says wait; returns when to look again and why. */
  private async steps(node: string, term: Term): Promise<Result<FenceWait>> {
    let fence = this.informers.fences.get(node)?.value;
    for (let i = 0; i < MAX_STEPS_PER_RECONCILE && !this.stopped && term.active; i++) {
      const world = this.world(node, fence);
      if (!world) return done;
      const d = decide(world);
      // every decision says whether the node is held (a fence held before its agent by the budget
      // too) or no longer: the held list follows the latest one
      await this.tell(node, world, heldBy(d));
      if (d.kind === 'wait') return d.recheckMs !== undefined ? requeueAfter(d.recheckMs, d.reason) : done;
      const next = await this.act(world, d, term).catch((e) => {
        if (isConflict(e)) return 'reread' as const;
        throw e;
      });
      if (next === AGAIN_LATER) return requeueAfter(1_000, 'again-later');
      // nothing was written (the phase already recorded, the node not back yet): wait for the world
      if (next === fence) return requeueAfter((d.kind === 'phase' && d.recheckMs) || 1_000, 'phase');
      fence = next === 'reread' ? await this.api.readFence(node) : next;
    }
    return requeueAfter(1_000, 'more-steps');
  }

  private world(node: string, fence: NodeFence | undefined): FenceWorld | undefined {
    const w = worldOf(this.informers, this.o.conn, node, fence, this.inFlight.has(node));
    return w && { ...w, agentRefused: this.refusal(w.policy) };
  }

  /**
   * Why the policy's exec agent may not run, judged again here whatever admission let through
   * (a policy written before the webhook, or while it was not registered, or a credentials
   * namespace palisade.yaml no longer allows).
   */
  private refusal(policy: FencePolicySpec): string | undefined {
    if (policy.agent.type !== 'exec') return undefined;
    const namespaces = this.o.credentialsNamespaces ?? [DEFAULT_CREDENTIALS_NAMESPACE];
    const v = judgeExecAgent(policy.agent, { credentialsNamespaces: namespaces });
    return v.ok ? undefined : verdictText(v);
  }

  onViewChange(cb: () => void) {
    this.viewListeners.add(cb);
  }

  private viewChanged() {
    for (const cb of this.viewListeners) cb();
  }

  /** Nodes whose fence is held right now (budget exceeded, waiting for approval), with why. */
  held(): HeldFence[] {
    return [...this.told.values()];
  }

  /** A held fence (budget exceeded, waiting for approval) is told once as an Event, not every second. */
  private async tell(node: string, w: FenceWorld, held: Omit<HeldFence, 'node'> | undefined) {
    if (!held) {
      if (this.told.delete(node)) this.viewChanged();
      return;
    }
    const before = this.told.get(node);
    if (before?.reason === held.reason && before.why === held.why) return;
    this.told.set(node, { node, ...held });
    this.viewChanged();
    const why = held.why;
    const reason = HELD_EVENT[held.reason];
    if (reason !== 'FencingBlockedByBudget') this.log.info({ node, reason }, why);
    else this.log.warn({ node, reason }, why);
    await this.api
      .event({ name: node, uid: w.node?.uid }, reason, `Palisade fencing: ${why}`, true)
      .catch(() => undefined);
  }

  private async act(
    w: FenceWorld,
    d: Exclude<Decision, { kind: 'wait' }>,
    term: Term,
  ): Promise<NodeFence | undefined | typeof AGAIN_LATER> {
    const node = w.node?.name ?? w.fence?.spec.nodeName ?? '';
    const irreversible = d.kind === 'run-agent' || d.kind === 'release' || d.kind === 'recover';
    // the controller Lease read live: still this console's, renewed in time, this term not ended
    if (irreversible && !(await term.confirm())) return AGAIN_LATER;
    switch (d.kind) {
      case 'create':
        return this.create(node, d.why);
      case 'adopt':
        return this.adopt(w, d);
      case 'renew':
        return this.renew(w, d);
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
        return this.runAgent(w, d.attempt, term);
      case 'interrupted':
        return this.interrupted(w.fence!, d.attempt);
      case 'verify':
        return this.verify(w, d.attempt, term);
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
    if (!live || !policy?.spec || policy.spec.paused) return undefined;
    const h = nodeHealth(policy.spec, withLease(live.facts, live.lease), Date.now());
    if (h.healthy || !h.longEnough) return undefined;
    let f: NodeFence;
    try {
      f = await this.api.createFence(node, policy.name);
    } catch (e) {
      if (isConflict(e)) return this.api.readFence(node);
      throw e;
    }
    const now = Date.now();
    const fenceAt = fenceAtFor(policy.spec, now);
    f = await this.api.writeStatus(detected(f, live.facts, why, now, fenceAt));
    const warning =
      policy.spec.approval === 'Manual'
        ? 'waiting for a person to approve'
        : fenceAt > now
          ? `fenced automatically at ${isoNow(fenceAt)} (in ${Math.round((fenceAt - now) / 1000)} s) unless cancelled`
          : 'fenced at once (no warning window)';
    await this.event(f, 'FenceDetected', `node unhealthy: ${why}; policy ${policy.name}: ${warning}`, true);
    return f;
  }

  /**
   * A person cancelled a new incident's fence before it was detected, on the node's ended
   * NodeFence: a fresh Detected status (nothing of the last run kept), which the next pass ends
   * as Cancelled by that person, with its step and Event, as for a fence cancelled in its window.
   */
  private async renew(w: FenceWorld, d: Extract<Decision, { kind: 'renew' }>) {
    const f = w.fence!;
    const live = await this.api.liveNode(f.spec.nodeName);
    if (!live) return AGAIN_LATER;
    const now = Date.now();
    this.log.info(
      { node: f.spec.nodeName, fence: f.metadata.name, why: d.why },
      'new incident: NodeFence renewed',
    );
    return this.api.writeStatus(detected(f, live.facts, d.why, now, now));
  }

  /**
   * A person's "Fence now": recorded as Detected with the live Node pinned (uid, bootID) and no
   * warning window; from there it runs like any fence (a cancel still stops it before the agent).
   */
  private async adopt(w: FenceWorld, d: Extract<Decision, { kind: 'adopt' }>) {
    const f = w.fence!;
    const live = await this.api.liveNode(f.spec.nodeName);
    if (!live) return AGAIN_LATER; // the next pass cancels it: NodeNotFound
    const now = Date.now();
    const fenceAt = Math.max(now, d.fenceAt);
    const next = await this.api.writeStatus(detected(f, live.facts, d.why, now, fenceAt));
    const when =
      fenceAt > now
        ? `fenced automatically at ${isoNow(fenceAt)} (in ${Math.round((fenceAt - now) / 1000)} s) unless cancelled`
        : 'fenced at once';
    await this.event(next, 'FenceDetected', `${d.why}; policy ${f.spec.policy}: ${when}`, true);
    return next;
  }

  private async phase(w: FenceWorld, d: Extract<Decision, { kind: 'phase' }>) {
    const f = w.fence!;
    if (f.status.phase === d.to && f.status.message === d.message) return f;
    // a cancel ends the fence for good: only if the live Node agrees (gone, re-created, healthy)
    if (d.to === 'Cancelled') {
      const again = await this.decideLive(w);
      if (again.kind !== 'phase' || again.to !== 'Cancelled') return AGAIN_LATER;
    }
    const now = Date.now();
    // a refused agent is a step of its own (the fence holds in Fencing), told once as a warning
    const refusedNow = d.reason === AGENT_REFUSED && processingReason(f) !== AGENT_REFUSED;
    const moved = withPhase(f, d.to, d.reason, d.message, now);
    const next = await this.api.writeStatus(refusedNow ? withStep(moved, d.message, now) : moved);
    if (f.status.phase !== d.to) await this.event(next, `Fence${d.to}`, d.message, d.to === 'Failed');
    if (refusedNow) await this.event(next, 'FenceAgentRefused', d.message, true);
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

  /**
   * The irreversible step: re-read live, record the attempt as Running, then run the agent once —
   * only if this term is still on when it would start (the Lease may be lost while the attempt is
   * recorded; the next leader then finds it Running, marks it Interrupted and verifies).
   */
  private async runAgent(w: FenceWorld, number: number, term: Term): Promise<NodeFence | undefined> {
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
    // a console that no longer leads never starts an agent: its attempt stays Running for the
    // next leader, which does not run it again (a late run from here could act on a node the next
    // leader has already fenced again, or released)
    if (!term.active || this.stopped) {
      this.log.warn(
        { node, fence: f.metadata.name, attempt: number, epoch: term.epoch },
        'term ended before the agent started: not started; the next leader verifies this attempt',
      );
      return f;
    }
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
  private async verify(w: FenceWorld, number: number, term: Term) {
    const node = w.fence!.spec.nodeName;
    const agent = this.agent(w);
    const deadline = Date.now() + (this.o.verifyWindowMs ?? 15_000);
    let check = { state: 'unknown', confirmed: false, detail: '' };
    this.inFlight.add(node);
    try {
      // a term that ended stops polling: its result could not be written anyway
      while (!this.stopped && term.active) {
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

  /**
   * One release round. In Releasing, a round that changed nothing ends this reconcile: look again
   * in a second. Each round first asks the agent, live, whether the fence still holds: a node
   * powered on again since it was verified (by a person, or its BMC) may be running its pods
   * again, and a pod force-deleted there would start a second copy elsewhere.
   */
  private async releaseStep(w: FenceWorld, strategy: FenceWorld['policy']['releaseStrategy']) {
    let f = w.fence!;
    const holds = await this.agent(w)
      .check(f.spec.nodeName)
      .catch((e) => ({ state: 'unknown', confirmed: false, detail: `status query failed: ${errorText(e)}` }));
    if (!holds.confirmed) return this.releaseHeld(f, holds.detail);
    const { event, what, released } = await this.release.apply(
      f.spec.nodeName,
      strategy,
      f.status.phase === 'Fenced',
    );
    const named = !!released && released.pods.length + released.volumeAttachments.length > 0;
    if (f.status.phase === 'Fenced')
      f = await this.api.writeStatus(withPhase(f, 'Releasing', 'Releasing', what, Date.now(), released));
    else if (!event) return AGAIN_LATER;
    // a later round that let go of more is a step of its own: the record names everything released
    else if (named) f = await this.api.writeStatus(withReleaseStep(f, what, Date.now(), released));
    if (event) await this.event(f, event, what);
    return f;
  }

  /** Said once (a step and a warning Event), then checked again every second until the node is back or fenced again. */
  private async releaseHeld(f: NodeFence, detail: string): Promise<NodeFence | typeof AGAIN_LATER> {
    const message = `the fence no longer holds (${detail}): nothing more is released until it holds again; the fence recovers once the node is back (booted again, Ready and heartbeating)`;
    if (f.status.steps.at(-1)?.message === message) return AGAIN_LATER;
    const next = await this.api.writeStatus(withStep(f, message, Date.now()));
    await this.event(next, 'FenceReleaseHeld', message, true);
    return next;
  }

  private async recover(w: FenceWorld) {
    const f = w.fence!;
    const node = f.spec.nodeName;
    if ((await this.decideLive(w)).kind !== 'recover') return f;
    const agent = w.policy.agent.type === 'storage' ? this.agent(w) : undefined;
    await agent?.unfence?.(node);
    const removed = await this.release.removeTaint(node);
    this.release.forget(node);
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

const processingReason = (f: NodeFence) => f.status.conditions.find((c) => c.type === 'Processing')?.reason;

/** Whether a decision holds the node's fence where a person may want to see it, and why. */
function heldBy(d: Decision): Omit<HeldFence, 'node'> | undefined {
  if (d.kind === 'wait' && (d.reason === 'budget' || d.reason === 'approval' || d.reason === 'paused'))
    return { reason: d.reason, why: d.why };
  // a fence held before its agent by the budget (recorded as its phase's reason)
  if (d.kind === 'phase' && d.reason === 'BudgetExceeded') return { reason: 'budget', why: d.message };
  return undefined;
}
