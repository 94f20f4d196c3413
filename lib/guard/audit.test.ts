import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { sealAudit, withAuditSeal } from './auditSeal';
import { simulatedFaultEvent } from '../console/actionEvents';
import { type EventView, eventView } from '../console/views';
import { auditMessage, auditRow, parseAuditMessage, selectAudit } from './audit';

const BY = 'a console user (the console acts with its own credentials)';

describe('audit messages', () => {
  it('reads back what was written, even when the typed reason holds the separator', () => {
    const fields = {
      what: 'force-deleted pod shop/db-0 on a1-2 (grace period 0)',
      overridden: true,
      reasons: ['node a1-2 is unreachable', 'db-0 belongs to StatefulSet db'],
      by: BY,
      why: 'db-0 is stuck | the vendor said so',
    };
    const m = auditMessage(fields);
    expect(m).toBe(
      `force-deleted pod shop/db-0 on a1-2 (grace period 0) | overridden: node a1-2 is unreachable; db-0 belongs to StatefulSet db | by: ${BY} | why: db-0 is stuck | the vendor said so`,
    );
    expect(parseAuditMessage(m)).toEqual(fields);
  });

  it('a safe action', () => {
    const m = auditMessage({
      what: 'detached volume pv-1 from a1-2',
      overridden: false,
      reasons: [],
      by: 'alice',
      why: '',
    });
    expect(m).toBe('detached volume pv-1 from a1-2 | safe | by: alice | why: (none given)');
    expect(parseAuditMessage(m)).toMatchObject({ overridden: false, reasons: [], by: 'alice' });
  });

  it('stays under 1 KiB, shortening the reasons first', () => {
    const m = auditMessage({
      what: 'x',
      overridden: true,
      reasons: Array.from({ length: 20 }, () => 'r'.repeat(100)),
      by: 'alice',
      why: 'w'.repeat(500),
    });
    expect(m.length).toBeLessThanOrEqual(1024);
    expect(parseAuditMessage(m)?.why).toBe('w'.repeat(500));
  });

  it.each(['', 'free text', 'a | b | c | d', 'a | maybe | by: x | why: y'])('ignores %j', (m) => {
    expect(parseAuditMessage(m)).toBeUndefined();
  });
});

const KEY = randomBytes(32);

/** The Event as Palisade writes it: named, and sealed under the install's audit key. */
function sealed(e: EventView, key = KEY): EventView {
  const name = e.name ?? `${e.involved.name}.palisade-${e.uid}`;
  const at = e.lastSeen ?? 0;
  return { ...e, name, seal: sealAudit({ ...e, name }, at, key) };
}

const ev = (e: Partial<EventView>): EventView => sealed(raw(e));

const raw = (e: Partial<EventView>): EventView => ({
  uid: 'u1',
  namespace: 'shop',
  involved: { kind: 'Pod', namespace: 'shop', name: 'db-0' },
  count: 1,
  source: 'palisade-console',
  reason: 'PalisadeForceDelete',
  message: auditMessage({
    what: 'force-deleted pod shop/db-0',
    overridden: true,
    reasons: ['r'],
    by: 'alice',
    why: 'stuck',
  }),
  lastSeen: 1000,
  ...e,
});

describe('audit rows', () => {
  it('turns a guarded action Event into a row', () => {
    expect(auditRow(ev({}), 'palisade-console', KEY)).toMatchObject({
      action: 'forceDeletePod',
      label: 'Force delete pod',
      target: { kind: 'Pod', namespace: 'shop', name: 'db-0' },
      by: 'alice',
      why: 'stuck',
      outcome: 'overridden',
      at: 1000,
    });
  });

  it('reads simulated faults from their own wording', () => {
    // as infra.act writes it: sealed, then read back through the console's projection
    const e = eventView(
      withAuditSeal(
        simulatedFaultEvent({
          verb: 'partition',
          node: 'a1-2',
          by: BY,
          at: new Date(5000),
          mode: 'protected',
        }),
        5000,
        KEY,
      ),
    );
    expect(auditRow(e, 'palisade-console', KEY)).toMatchObject({
      at: 5000,
      action: 'simulation',
      by: BY,
      what: 'network partition from the API server',
      why: '(protected cluster)',
      target: { kind: 'Node', name: 'a1-2' },
    });
  });

  it('ignores an Event anyone could have written: no seal, another key, or a field changed after sealing', () => {
    const forged = raw({ reason: 'PalisadeForceDelete' });
    expect(auditRow(forged, 'palisade-console', KEY)).toBeUndefined();
    expect(
      auditRow({ ...forged, name: 'x', seal: 'v1.1000.not-a-mac' }, 'palisade-console', KEY),
    ).toBeUndefined();
    expect(auditRow(sealed(forged, randomBytes(32)), 'palisade-console', KEY)).toBeUndefined();
    const real = ev({});
    for (const changed of [
      { message: real.message!.replace('by: alice', 'by: admin') },
      { namespace: 'other' },
      { involved: { ...real.involved, name: 'db-1' } },
      { reason: 'PalisadeDetach' },
      { name: 'another-name' },
      { seal: real.seal!.replace(/^v1\.1000\./, 'v1.2000.') },
    ])
      expect(auditRow({ ...real, ...changed }, 'palisade-console', KEY)).toBeUndefined();
    // and without the install's key nothing is Palisade's
    expect(auditRow(real, 'palisade-console', undefined)).toBeUndefined();
  });

  it("ignores other components' events and unknown reasons", () => {
    expect(auditRow(ev({ source: 'kubelet' }), 'palisade-console', KEY)).toBeUndefined();
    expect(auditRow(ev({ reason: 'Other', message: 'hello' }), 'palisade-console', KEY)).toBeUndefined();
  });

  it('selects newest first, with filters', () => {
    const rows = [
      auditRow(ev({ uid: 'a', lastSeen: 1 }), 'palisade-console', KEY)!,
      auditRow(
        ev({ uid: 'b', lastSeen: 3, involved: { kind: 'Pod', namespace: 'web', name: 'api-1' } }),
        'palisade-console',
        KEY,
      )!,
      auditRow(
        ev({
          uid: 'c',
          lastSeen: 2,
          reason: 'PalisadeDetach',
          message: auditMessage({ what: 'detached', overridden: false, reasons: [], by: 'bob', why: '' }),
        }),
        'palisade-console',
        KEY,
      )!,
    ];
    expect(selectAudit(rows).map((r) => r.uid)).toEqual(['b', 'c', 'a']);
    expect(selectAudit(rows, { outcome: 'safe' }).map((r) => r.uid)).toEqual(['c']);
    expect(selectAudit(rows, { action: 'forceDeletePod' }).map((r) => r.uid)).toEqual(['b', 'a']);
    expect(selectAudit(rows, { text: 'API-1' }).map((r) => r.uid)).toEqual(['b']);
    expect(selectAudit(rows, { text: 'bob' }).map((r) => r.uid)).toEqual(['c']);
    expect(selectAudit(rows, { user: 'bob' }).map((r) => r.uid)).toEqual(['c']);
    expect(selectAudit(rows, { user: 'bo' }).map((r) => r.uid)).toEqual([]);
    expect(selectAudit(rows, { limit: 1 }).map((r) => r.uid)).toEqual(['b']);
  });
});
