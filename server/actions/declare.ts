// Declare an incident by hand (issue 25, item 3; lib/guard/incident.ts judgeDeclare), as the
// person: a new Incident named after this moment (inc-YYYYMMDD-HHMMSS, as the tracker names
// them), declared and commanded by them, its title and first update their reason. One open
// incident at a time: the list is read live, and a create that meets the tracker's own
// declaration of the same second (409 AlreadyExists) is read and judged again (rebase), which
// then refuses with the incident to write to.
import { judgeDeclare } from '../../lib/guard/incident.js';
import {
  INCIDENT_API_VERSION,
  INCIDENT_GROUP,
  INCIDENT_PLURAL,
  INCIDENT_VERSION,
  type IncidentSeverity,
  incidentName,
  incidentObject,
  isoSeconds,
  openIncident,
} from '../../lib/incident/record.js';
import type { ActionApis } from './actor.js';
import type { Loaded, Target, WriteOptions } from './kind.js';

const API = { group: INCIDENT_GROUP, version: INCIDENT_VERSION, plural: INCIDENT_PLURAL } as const;

const titleOf = (reason: string) => reason.split('\n')[0]!.trim().slice(0, 500);

export async function loadDeclare(
  apis: ActionApis,
  severity: IncidentSeverity,
  actor: string,
): Promise<Loaded> {
  const list = (await apis.custom.listClusterCustomObject({ ...API })) as { items?: unknown[] };
  const all = (list.items ?? []).flatMap((o) => {
    const p = incidentObject.safeParse(o);
    return p.success ? [p.data] : [];
  });
  const open = openIncident(all);
  // filled in by the write: the Event that records it names the Incident it created
  const target: Target = {
    kind: 'Incident',
    apiVersion: INCIDENT_API_VERSION,
    name: incidentName(Date.now()),
    uid: '',
    resourceVersion: '',
  };
  return {
    action: 'declareIncident',
    target,
    verdict: judgeDeclare(open && { name: open.metadata.name, startedAt: open.spec.startedAt }, actor),
    will: [
      `CREATE Incident ${target.name} (${severity}): declared by you, commanded by you, your reason its title and first update`,
    ],
    what: `declared incident ${target.name} (${severity})`,
    rebase: true,
    write: async (o: WriteOptions) => {
      const at = isoSeconds(o.at.getTime());
      const name = incidentName(o.at.getTime());
      const created = (await apis.custom.createClusterCustomObject({
        ...API,
        body: {
          apiVersion: INCIDENT_API_VERSION,
          kind: 'Incident',
          metadata: { name },
          spec: {
            title: titleOf(o.reason),
            severity,
            startedAt: at,
            declaredBy: o.actor.name,
            commander: o.actor.name,
            updates: [{ at, by: o.actor.name, kind: 'Declared', text: o.reason.slice(0, 2000) }],
          },
        },
        ...(o.dryRun ? { dryRun: 'All' } : {}),
      })) as { metadata?: { uid?: string; resourceVersion?: string } };
      if (!o.dryRun) {
        target.name = name;
        target.uid = created.metadata?.uid ?? '';
        target.resourceVersion = created.metadata?.resourceVersion ?? '';
      }
      return o.dryRun
        ? `Incident ${name} would be declared (server-side dry run: nothing changed)`
        : `Incident ${name} is declared (${severity}), with you as its commander`;
    },
  };
}
