import { describe, expect, it } from 'vitest';
import type { HistoryEntry } from '../history/types.js';
import { exportMarkdown, exportWindow, incidentExport } from './export.js';
import type { IncidentObject } from './record.js';

const T = Date.parse('2026-11-30T04:54:08Z');
const incident: IncidentObject = {
  apiVersion: 'palisade.dev/v1alpha1',
  kind: 'Incident',
  metadata: { name: 'inc-20261130-045408' },
  spec: {
    title: 'zone-a down: 3/3 nodes; orders-db 1/3',
    severity: 'SEV1',
    startedAt: '2026-11-30T04:54:08Z',
    declaredBy: 'palisade',
    commander: 'ann',
    resolvedAt: '2026-11-30T04:58:19Z',
    resolvedBy: 'ann',
    updates: [{ at: '2026-11-30T04:55:00Z', by: 'ann', kind: 'Status', text: 'orders-db | failing over' }],
  },
  status: {
    nodes: [
      {
        name: 'a1-1',
        zone: 'zone-a',
        rack: 'a1',
        downAt: '2026-11-30T04:54:08Z',
        upAt: '2026-11-30T04:58:00Z',
      },
    ],
  },
};
const entry = (at: string, kind: HistoryEntry['kind'], reason: string, actor?: string): HistoryEntry => ({
  id: `${kind}-${at}`,
  cluster: 'c',
  at,
  kind,
  severity: 'warning',
  subject: { kind: 'Node', name: 'a1-1' },
  ...(actor ? { actor } : {}),
  reason,
  message: `${reason} on a1-1`,
});

describe('incident export', () => {
  it('covers a minute before the start to just after the resolution; an open one to now', () => {
    expect(exportWindow(incident, T + 999_000)).toEqual({
      from: '2026-11-30T04:53:08.000Z',
      to: '2026-11-30T04:58:24.000Z',
    });
    const open = { ...incident, spec: { ...incident.spec, resolvedAt: undefined } };
    expect(exportWindow(open, T + 10_000).to).toBe('2026-11-30T04:54:18.000Z');
  });

  it('lists every entry oldest first, with the record, in JSON and Markdown', () => {
    const entries = [
      entry('2026-11-30T04:55:10Z', 'guarded-action', 'PalisadeFenceCancelled', 'ann'),
      entry('2026-11-30T04:54:01Z', 'fault', 'PowerOff', 'bob'),
      entry('2026-11-30T04:54:30Z', 'fence-step', 'Detected', 'palisade'),
    ];
    const x = incidentExport('c', incident, entries, T + 600_000);
    expect(x.timeline.map((e) => e.reason)).toEqual(['PowerOff', 'Detected', 'PalisadeFenceCancelled']);
    expect(x).toMatchObject({
      format: 'palisade.dev/incident-export/v1',
      incident: { name: 'inc-20261130-045408' },
    });
    const md = exportMarkdown(x);
    expect(md).toContain('# inc-20261130-045408: zone-a down: 3/3 nodes; orders-db 1/3');
    expect(md).toContain('- Resolved: 2026-11-30T04:58:19Z by ann (lasted 4 min 11 s)');
    expect(md).toContain('- a1-1 (zone-a, rack a1): 2026-11-30T04:54:08Z → 2026-11-30T04:58:00Z');
    expect(md).toContain('- 2026-11-30T04:55:00Z Status by ann: orders-db | failing over');
    const rows = md.split('\n').filter((l) => l.startsWith('| 2026'));
    expect(rows).toEqual([
      '| 2026-11-30T04:54:01Z | fault | Node a1-1 | bob | PowerOff | PowerOff on a1-1 |',
      '| 2026-11-30T04:54:30Z | fence-step | Node a1-1 | Palisade | Detected | Detected on a1-1 |',
      '| 2026-11-30T04:55:10Z | guarded-action | Node a1-1 | ann | PalisadeFenceCancelled | PalisadeFenceCancelled on a1-1 |',
    ]);
  });
});
