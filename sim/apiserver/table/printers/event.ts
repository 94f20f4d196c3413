// Events (core/v1 and events.k8s.io/v1). The real server prints both through one internal
// type, so events.k8s.io field names are mapped onto core ones first.
import type { KubeObject } from '../../resources/types.js';
import { formatAge } from '../age.js';
import { NAME_DESCRIPTION, col } from '../columns.js';
import { type Rec, int, rec, str } from '../fields.js';
import type { Printer } from '../types.js';

interface CoreEvent {
  involvedObject: Rec;
  type: string;
  reason: string;
  message: string;
  firstTimestamp: string;
  lastTimestamp: string;
  eventTime: string;
  count: number;
  series?: Rec;
  source: Rec;
  reportingController: string;
  reportingInstance: string;
}

/** Column order is the real one: NAME is last and only shown with -o wide. */
export const eventPrinter: Printer = {
  columns: [
    col('Last Seen', 'string', 'The time at which the most recent occurrence of this event was recorded.'),
    col('Type', 'string', 'Type of this event (Normal, Warning), new types could be added in the future'),
    col(
      'Reason',
      'string',
      "This should be a short, machine understandable string that gives the reason for the transition into the object's current status.",
    ),
    col('Object', 'string', 'The object that this event is about.'),
    col(
      'Subobject',
      'string',
      'If referring to a piece of an object instead of an entire object, this string should contain a valid JSON/Go field access statement.',
      1,
    ),
    col(
      'Source',
      'string',
      'The component reporting this event. Should be a short machine understandable string.',
      1,
    ),
    col('Message', 'string', 'A human-readable description of the status of this operation.'),
    col(
      'First Seen',
      'string',
      'The time at which the event was first recorded. (Time of server receipt is in TypeMeta.)',
      1,
    ),
    col('Count', 'string', 'The number of times this event has occurred.', 1),
    col('Name', 'string', NAME_DESCRIPTION, 1, 'name'),
  ],
  print: (obj, now) => {
    const e = normalize(obj);
    const first = formatAge(e.firstTimestamp || e.eventTime, now);
    let last = e.lastTimestamp ? formatAge(e.lastTimestamp, now) : first;
    let count = e.count;
    if (e.series) {
      last = formatAge(str(e.series.lastObservedTime), now);
      count = int(e.series.count);
    } else if (count === 0) {
      count = 1; // singleton events from the new API carry no count
    }
    const kind = str(e.involvedObject.kind).toLowerCase();
    const target = str(e.involvedObject.name) ? `${kind}/${str(e.involvedObject.name)}` : kind;
    const source = eventSource(e);
    const cells = [last, e.type, e.reason, target, str(e.involvedObject.fieldPath), source, e.message.trim()];
    return { cells: [...cells, first, count, obj.metadata.name ?? ''] };
  },
};

function eventSource(e: CoreEvent): string {
  const component = str(e.source.component) || e.reportingController;
  const host = str(e.source.host) || e.reportingInstance;
  return host ? `${component}, ${host}` : component;
}

function normalize(obj: KubeObject): CoreEvent {
  const modern = obj.apiVersion?.startsWith('events.k8s.io/') ?? false;
  const pick = (core: string, events: string) => (modern ? obj[events] : obj[core]);
  const series = pick('series', 'series');
  return {
    involvedObject: rec(pick('involvedObject', 'regarding')),
    type: str(obj.type),
    reason: str(obj.reason),
    message: str(pick('message', 'note')),
    firstTimestamp: str(pick('firstTimestamp', 'deprecatedFirstTimestamp')),
    lastTimestamp: str(pick('lastTimestamp', 'deprecatedLastTimestamp')),
    eventTime: str(obj.eventTime),
    count: int(pick('count', 'deprecatedCount')),
    series: series === undefined || series === null ? undefined : rec(series),
    source: rec(pick('source', 'deprecatedSource')),
    reportingController: str(pick('reportingComponent', 'reportingController')),
    reportingInstance: str(obj.reportingInstance),
  };
}
