// What happened to each pod in the API, as the fault rig saw it (a watch of every pod): bound to
// a node, phase changes, marked for deletion (with its grace period), gone. A violation's
// evidence lists its pods' trails, so that a double run can be told apart: a pod removed while
// its process still ran (forced: grace 0), or a process started for a pod already terminating.
import * as k8s from '@kubernetes/client-node';

interface Step {
  at: number;
  uid: string;
  what: string;
}

const KEEP = 5000;

export class PodTrail {
  private readonly steps: Step[] = [];
  private readonly last = new Map<string, { node?: string; phase?: string; deleting?: boolean }>();
  private abort: AbortController | undefined;
  private stopped = false;

  constructor(private readonly kc: k8s.KubeConfig) {}

  async start() {
    if (this.stopped) return;
    const again = () => setTimeout(() => void this.start().catch(() => undefined), 500);
    this.abort = await new k8s.Watch(this.kc)
      .watch('/api/v1/pods', {}, (type, pod: k8s.V1Pod) => this.seen(type, pod), again)
      .catch(() => {
        again();
        return undefined;
      });
  }

  stop() {
    this.stopped = true;
    this.abort?.abort();
  }

  private seen(type: string, pod: k8s.V1Pod) {
    const uid = pod.metadata?.uid;
    if (!uid) return;
    const before = this.last.get(uid) ?? {};
    const now = {
      node: pod.spec?.nodeName,
      phase: pod.status?.phase,
      deleting: !!pod.metadata?.deletionTimestamp,
    };
    const name = `${pod.metadata?.namespace}/${pod.metadata?.name}`;
    if (type === 'DELETED') {
      this.add(uid, `${name} removed from the API (was ${now.phase ?? '?'} on ${now.node ?? 'no node'})`);
      this.last.delete(uid);
      return;
    }
    if (!before.node && !before.phase) this.add(uid, `${name} created${now.node ? ` on ${now.node}` : ''}`);
    else if (now.node && now.node !== before.node) this.add(uid, `${name} bound to ${now.node}`);
    if (now.phase !== before.phase && before.phase) this.add(uid, `${name} ${before.phase} -> ${now.phase}`);
    if (now.deleting && !before.deleting)
      this.add(
        uid,
        `${name} marked for deletion, grace ${pod.metadata?.deletionGracePeriodSeconds ?? '?'} s, on ${now.node ?? 'no node'}`,
      );
    this.last.set(uid, now);
  }

  private add(uid: string, what: string) {
    this.steps.push({ at: Date.now(), uid, what });
    if (this.steps.length > KEEP) this.steps.shift();
  }

  /** The steps of these pods since `since` (ms), oldest first, each with its time from `since`. */
  of(uids: readonly string[], since: number): string[] {
    const wanted = new Set(uids);
    return this.steps
      .filter((s) => wanted.has(s.uid) && s.at >= since)
      .map((s) => `+${((s.at - since) / 1000).toFixed(1)}s ${s.uid.slice(0, 8)} ${s.what}`);
  }
}
