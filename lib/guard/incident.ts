// A person's changes to an Incident (issue 25): declare one by hand, take command, post a status
// update, set the severity, resolve. None is destructive — they change the record, not the cluster — but each goes
// through the guarded seam so it is done as the person, conditional on the version they saw, and
// recorded. Refused when the incident is already resolved (but for a note, an update posted
// after resolution) or the change would change nothing;
// resolving while nodes are still down is allowed with a warning (the tracker declares anew).
import type { IncidentSeverity } from '../incident/record';
import { refused, safe, type Verdict } from './types.js';

export interface IncidentFacts {
  name: string;
  resolved: boolean;
  commander?: string;
  severity: IncidentSeverity;
  /** nodes the tracker still sees down (status.nodes without upAt) */
  nodesDown: string[];
}

const closed = (i: IncidentFacts) => refused(`incident ${i.name} is resolved: declare a new one instead`);

export function judgeTakeCommand(i: IncidentFacts, actor: string): Verdict {
  if (i.resolved) return closed(i);
  if (i.commander === actor) return refused(`you already command incident ${i.name}`);
  return safe(
    [`${actor} becomes the commander of incident ${i.name}: the tracker no longer resolves it by itself`],
    i.commander ? [`takes over from ${i.commander}`] : [],
  );
}

export function judgePostUpdate(i: IncidentFacts): Verdict {
  // after resolution an update is a note for the postmortem (the timeline's "Add note"): it
  // changes the record, not the incident's state
  if (i.resolved)
    return safe([
      `incident ${i.name} is resolved: the note is added to its record for the postmortem, with your name and the time; it stays resolved`,
    ]);
  return safe([`the update is added to incident ${i.name}'s record, with your name and the time`]);
}

export function judgeSetSeverity(i: IncidentFacts, severity: IncidentSeverity): Verdict {
  if (i.resolved) return closed(i);
  if (i.severity === severity) return refused(`incident ${i.name} is already ${severity}`);
  return safe([`${i.severity} → ${severity}: the tracker no longer changes the severity of this incident`]);
}

export function judgeResolve(i: IncidentFacts): Verdict {
  if (i.resolved) return refused(`incident ${i.name} is already resolved`);
  const down = i.nodesDown;
  return safe(
    [`incident ${i.name} is closed with your name, the time and your reason; its recap stays`],
    down.length
      ? [
          `still down: ${down.slice(0, 5).join(', ')}${down.length > 5 ? ` and ${down.length - 5} more` : ''} — Palisade declares a new incident while a node is down`,
        ]
      : [],
  );
}

/** The open incident when a person asks to declare one; undefined when none is open. */
export interface OpenIncidentFacts {
  name: string;
  startedAt: string;
}

/**
 * Declare an incident by hand (issue 25, item 3): one open incident at a time — the tracker and
 * every view follow the open one — so a second is refused with where to write instead.
 */
export function judgeDeclare(open: OpenIncidentFacts | undefined, actor: string): Verdict {
  if (open)
    return refused(
      `incident ${open.name} is open (since ${open.startedAt}): post a status update to it, or take command of it`,
    );
  return safe([
    `a new Incident is declared by ${actor}, who commands it; your reason is its title and first update`,
    'Palisade follows it (nodes down, workloads short) and never resolves it by itself: you, or whoever commands it, resolve it',
  ]);
}
