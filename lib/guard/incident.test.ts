import { describe, expect, it } from 'vitest';
import {
  type IncidentFacts,
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
    ['post an update to a resolved incident', judgePostUpdate(done), false, false],
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
