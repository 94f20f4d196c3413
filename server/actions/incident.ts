// A person's changes to an Incident, through the guarded seam: a merge patch of its spec carrying
// metadata.resourceVersion (the whole updates list is written, so a concurrent update answers 409
// rather than being lost), sent as the person. Take command (spec.commander), post a status update,
// set the severity, resolve (spec.resolvedAt/resolvedBy); each adds one entry to spec.updates.
import * as k8s from '@kubernetes/client-node';
import {
  judgePostUpdate,
  judgeResolve,
  judgeSetSeverity,
  judgeTakeCommand,
  type IncidentFacts,
} from '../../lib/guard/incident.js';
import type { Verdict } from '../../lib/guard/types.js';
import {
  INCIDENT_API_VERSION,
  INCIDENT_GROUP,
  INCIDENT_PLURAL,
  INCIDENT_VERSION,
  type IncidentObject,
  type IncidentSeverity,
  type IncidentSpec,
  incidentObject,
  isoSeconds,
  MAX_UPDATES,
  type UpdateKind,
} from '../../lib/incident/record.js';
import type { GuardedAction } from '../../lib/guard/actions.js';
import type { ActionApis } from './actor.js';
import { ActionError, orMissing } from './errors.js';
import type { Loaded, WriteOptions } from './kind.js';

const API = { group: INCIDENT_GROUP, version: INCIDENT_VERSION, plural: INCIDENT_PLURAL } as const;

export type IncidentChange =
  | { action: 'takeIncidentCommand' }
  | { action: 'postIncidentUpdate' }
  | { action: 'setIncidentSeverity'; severity: IncidentSeverity }
  | { action: 'resolveIncident' };

async function readIncident(apis: ActionApis, name: string): Promise<IncidentObject> {
  const raw = await orMissing(apis.custom.getClusterCustomObject({ ...API, name }));
  if (!raw) throw new ActionError('NOT_FOUND', `Incident ${name} not found`);
  const p = incidentObject.safeParse(raw);
  if (!p.success)
    throw new ActionError(
      'PRECONDITION_FAILED',
      `Incident ${name} is malformed: ${p.error.issues[0]?.message}`,
    );
  return p.data;
}

function factsOf(i: IncidentObject): IncidentFacts {
  return {
    name: i.metadata.name,
    resolved: !!i.spec.resolvedAt,
    ...(i.spec.commander ? { commander: i.spec.commander } : {}),
    severity: i.spec.severity,
    nodesDown: (i.status?.nodes ?? []).filter((n) => !n.upAt).map((n) => n.name),
  };
}

interface Plan {
  verdict: Verdict;
  will: string;
  what: string;
  kind: UpdateKind;
  /** the spec fields written besides the update */
  fields: (o: WriteOptions) => Partial<IncidentSpec>;
  text: (o: WriteOptions) => string;
}

function planOf(i: IncidentObject, c: IncidentChange, actor: string): Plan {
  const f = factsOf(i);
  const name = i.metadata.name;
  switch (c.action) {
    case 'takeIncidentCommand':
      return {
        verdict: judgeTakeCommand(f, actor),
        will: 'spec.commander: you',
        what: `took command of incident ${name}${f.commander ? ` from ${f.commander}` : ''}`,
        kind: 'Commander',
        fields: (o) => ({ commander: o.actor.name }),
        text: () => (f.commander ? `takes command from ${f.commander}` : 'takes command'),
      };
    case 'postIncidentUpdate':
      return {
        verdict: judgePostUpdate(f),
        will: 'a status update with your text',
        what: `posted a status update to incident ${name}`,
        kind: 'Status',
        fields: () => ({}),
        text: (o) => o.reason,
      };
    case 'setIncidentSeverity':
      return {
        verdict: judgeSetSeverity(f, c.severity),
        will: `spec.severity: ${c.severity}`,
        what: `set incident ${name} to ${c.severity} (was ${f.severity})`,
        kind: 'Severity',
        fields: () => ({ severity: c.severity }),
        text: (o) =>
          `${f.severity} → ${c.severity}${o.reason && o.reason !== '(preview)' ? `: ${o.reason}` : ''}`,
      };
    case 'resolveIncident':
      return {
        verdict: judgeResolve(f),
        will: 'spec.resolvedAt: now, spec.resolvedBy: you',
        what: `resolved incident ${name}`,
        kind: 'Resolved',
        fields: (o) => ({
          resolvedAt: isoSeconds(o.at.getTime()),
          resolvedBy: o.actor.name,
        }),
        text: (o) => o.reason,
      };
  }
}

export async function loadIncidentChange(
  apis: ActionApis,
  name: string,
  change: IncidentChange,
  actor: string,
): Promise<Loaded> {
  const i = await readIncident(apis, name);
  const plan = planOf(i, change, actor);
  return {
    action: change.action as GuardedAction,
    target: {
      kind: 'Incident',
      apiVersion: INCIDENT_API_VERSION,
      name,
      uid: i.metadata.uid ?? '',
      resourceVersion: i.metadata.resourceVersion ?? '',
    },
    verdict: plan.verdict,
    will: [
      `PATCH Incident ${name} (conditional on its resourceVersion): ${plan.will}, and one entry in spec.updates`,
    ],
    what: plan.what,
    write: async (o: WriteOptions) => {
      const update = {
        at: isoSeconds(o.at.getTime()),
        by: o.actor.name,
        kind: plan.kind,
        text: plan.text(o).slice(0, 2000),
      };
      const spec = { ...plan.fields(o), updates: [...(i.spec.updates ?? []), update].slice(-MAX_UPDATES) };
      await apis.custom.patchClusterCustomObject(
        {
          ...API,
          name,
          body: { metadata: { resourceVersion: o.resourceVersion }, spec },
          ...(o.dryRun ? { dryRun: 'All' } : {}),
        },
        k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
      );
      return `Incident ${name} ${o.dryRun ? 'would be' : 'is'} updated${o.dryRun ? ' (server-side dry run: nothing changed)' : ''}`;
    },
  };
}
