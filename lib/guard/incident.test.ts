import { describe, expect, it } from 'vitest';
import {
  type IncidentFacts,
  judgeDeclare,
  judgePostUpdate,
  judgeResolve,
  judgeSetSeverity,
  judgeTakeCommand,
} from './incident.js';

const open: IncidentFacts = { name: 'inc-1', resolved: false, severity: 'SEV2', nodesDown: [] };
const done = { ...open, resolved: true };

describe('incident verdicts', () => {
  it.each([
    ['take command of an open incident', judgeTakeCommand(open, 'alice'), true, false],
    [
      'take command from someone else: safe, says so',
      judgeTakeCommand({ ...open, commander: 'bob' }, 'alice'),
      true,
      false,
    ],
    [
      'take command you already hold',
      judgeTakeCommand({ ...open, commander: 'alice' }, 'alice'),
      false,
      false,
    ],
    ['take command of a resolved incident', judgeTakeCommand(done, 'alice'), false, false],
    ['post an update', judgePostUpdate(open), true, false],
    ['post a note to a resolved incident (for the postmortem)', judgePostUpdate(done), true, false],
    ['raise the severity', judgeSetSeverity(open, 'SEV1'), true, false],
    ['the same severity', judgeSetSeverity(open, 'SEV2'), false, false],
    ['resolve', judgeResolve(open), true, false],
    ['resolve twice', judgeResolve(done), false, false],
  ])('%s', (_, v, ok, overridable) => {
    expect(v.safe).toBe(ok);
    if (!v.safe) expect(v.overridable).toBe(overridable);
  });

  it('taking over and resolving with nodes down say so', () => {
    expect(judgeTakeCommand({ ...open, commander: 'bob' }, 'alice').warnings).toEqual([
      'takes over from bob',
    ]);
    expect(judgeResolve({ ...open, nodesDown: ['a1-1'] }).warnings[0]).toMatch(
      /^still down: a1-1 — Palisade declares a new incident/,
    );
    expect(judgeResolve(done)).toMatchObject({ reasons: ['incident inc-1 is already resolved'] });
  });
});

describe('declaring an incident by hand', () => {
  it('with none open: safe, the person commands it and resolves it', () => {
    const v = judgeDeclare(undefined, 'ana');
    expect(v.safe).toBe(true);
    expect(v.notes).toEqual([
      'a new Incident is declared by ana, who commands it; your reason is its title and first update',
      'Palisade follows it (nodes down, workloads short) and never resolves it by itself: you, or whoever commands it, resolve it',
    ]);
  });

  it('with one open: refused, saying where to write instead', () => {
    const v = judgeDeclare({ name: 'inc-20261130-045408', startedAt: '2026-11-30T04:54:08Z' }, 'ana');
    expect(v).toMatchObject({ safe: false, overridable: false });
    expect(v.safe ? [] : v.reasons).toEqual([
      'incident inc-20261130-045408 is open (since 2026-11-30T04:54:08Z): post a status update to it, or take command of it',
    ]);
  });
});
