// A volume's risk in one word and one line. Worst first:
//  - split-brain-risk: an exclusive volume written from two nodes (ground truth), or left by
//    a node that may still write while a pod waits elsewhere — releasing it before that node
//    is fenced is how a second copy of a database starts next to the first (seed 000);
//  - stuck: held by a node that cannot answer, or a detach that does not finish;
//  - waiting: a pod waits for it (Multi-Attach, attach error) but nothing is at risk;
//  - ok.
// The explanation names nodes and pods, never ages: the UI shows those ticking. Pure.
import { nodeUp } from './rwoDetach.js';
import type { AttachmentRow, Risk, RwoRow, VolumeWaiter } from './rwoTypes.js';

type Parts = Pick<RwoRow, 'exclusive' | 'attachments' | 'attachedTo' | 'users' | 'waiters' | 'writers'>;
type Verdict = { risk: Risk; explanation: string };

const who = (p: { namespace: string; name: string }) => `${p.namespace}/${p.name}`;
const where = (w: VolumeWaiter) => (w.node ? ` on ${w.node}` : '');
const list = (xs: readonly string[]) => [...new Set(xs)].join(', ');

/** Still holding the volume on a node that cannot answer, and not released by a fence. */
function suspectHolders(p: Parts, fenced: ReadonlySet<string> | undefined): AttachmentRow[] {
  return p.attachments.filter(
    (a) =>
      !nodeUp(a.nodeHealth) &&
      a.nodeHealth !== 'gone' &&
      a.nodeHealth !== 'out-of-service' &&
      !fenced?.has(a.node),
  );
}

function fromGroundTruth(p: Parts): Verdict | undefined {
  if (!p.exclusive || !p.writers) return undefined;
  const live = p.writers.filter((w) => w.canWrite);
  const nodes = [...new Set(live.map((w) => w.node))];
  if (nodes.length > 1)
    return {
      risk: 'split-brain-risk',
      explanation: `ground truth: written from ${nodes.length} nodes at once (${list(nodes)})`,
    };
  const held = new Set(p.attachments.map((a) => a.node));
  const loose = live.find((w) => !held.has(w.node));
  if (loose)
    return {
      risk: 'split-brain-risk',
      explanation: `ground truth: ${loose.pod} still writes from ${loose.node}, which no longer holds the attachment`,
    };
  return undefined;
}

function fromHolders(p: Parts, fenced: ReadonlySet<string> | undefined): Verdict | undefined {
  const suspects = suspectHolders(p, fenced);
  const [first] = suspects;
  if (!first) return undefined;
  const held = `${list(suspects.map((a) => a.node))} (${first.nodeHealth})`;
  const waiter = p.waiters.find(
    (w) => !w.terminating && (w.blockedBy.length > 0 || w.reason === 'multi-attach'),
  );
  if (p.exclusive && waiter)
    return {
      risk: 'split-brain-risk',
      explanation: `attached to suspect ${held} while ${who(waiter)} waits${where(waiter)}: releasing it before ${first.node} is fenced may start a second writer`,
    };
  const stuck = suspects.find((a) => a.stuck);
  return { risk: 'stuck', explanation: stuck?.stuck ?? `held by suspect ${held}` };
}

function fromWaiters(p: Parts, fenced: ReadonlySet<string> | undefined): Verdict | undefined {
  // a waiter being deleted will never start: it keeps nothing waiting
  const w = p.waiters.find((x) => x.reason !== 'attaching' && !x.terminating);
  if (!w) return undefined;
  if (w.reason === 'attach-error')
    return {
      risk: 'waiting',
      explanation: `${who(w)} waits${where(w)}: attach failing: ${w.message ?? 'unknown error'}`,
    };
  const holder = p.attachments.find((a) => w.blockedBy.includes(a.node));
  if (!holder) return { risk: 'waiting', explanation: `${who(w)} waits${where(w)} (Multi-Attach error)` };
  const release =
    holder.nodeHealth === 'out-of-service' || fenced?.has(holder.node)
      ? `${holder.node} is fenced or out of service: being released`
      : holder.usersOnNode.length
        ? `still used there by ${list(holder.usersOnNode)}`
        : holder.detaching
          ? 'detaching there'
          : 'waiting for its kubelet to unmount';
  return {
    risk: 'waiting',
    explanation: `${who(w)} waits${where(w)}: attached to ${holder.node} (${holder.nodeHealth}), ${release}`,
  };
}

function quiet(p: Parts, claim: { namespace: string; name: string } | undefined): Verdict {
  if (!claim) return { risk: 'ok', explanation: 'not bound to a claim' };
  const starting = p.waiters.find((w) => w.reason === 'attaching' && !w.terminating);
  if (starting) return { risk: 'ok', explanation: `attaching for ${who(starting)}${where(starting)}` };
  if (!p.attachedTo.length)
    return {
      risk: 'ok',
      explanation: p.users.length ? 'in use, no attachment (not an attachable volume)' : 'not attached',
    };
  const users = p.users.map(who);
  return {
    risk: 'ok',
    explanation: `attached to ${list(p.attachedTo)}${users.length ? `, used by ${list(users)}` : ', no pod uses it'}`,
  };
}

export function classify(
  p: Parts,
  claim: { namespace: string; name: string } | undefined,
  fenced?: ReadonlySet<string>,
): Verdict {
  // suspect holders were judged above: what is left is a detach that does not finish
  const stuck = p.attachments.find((a) => a.stuck);
  return (
    fromGroundTruth(p) ??
    fromHolders(p, fenced) ??
    (stuck?.stuck ? { risk: 'stuck', explanation: stuck.stuck } : undefined) ??
    fromWaiters(p, fenced) ??
    quiet(p, claim)
  );
}
