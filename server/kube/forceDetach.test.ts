import { describe, expect, it } from 'vitest';
import { forceDetachWords } from '../../lib/guard/forceDelete';
import { forceDetachOf } from './forceDetach';

// One source for the Volumes page's countdown and the force-delete dialog's reasons (issue 18:
// the page said 30 s, the dialog 6 minutes).
describe('forceDetachOf', () => {
  it.each([
    [
      "the embedded cluster's own setting",
      { forceDetach: { enabled: true, maxWaitMs: 30_000 } },
      { enabled: true, maxWaitMs: 30_000, source: 'cluster' },
      "force-detached after 30 s on an unreachable node: this cluster's setting",
    ],
    [
      "a real cluster: kube-controller-manager's default, assumed",
      {},
      { enabled: true, maxWaitMs: 360_000, source: 'assumed' },
      "force-detached after 6 min on an unreachable node: kube-controller-manager's default, assumed",
    ],
  ])('%s', (_what, spec, want, words) => {
    const fd = forceDetachOf({ spec });
    expect(fd).toEqual(want);
    expect(forceDetachWords(fd)).toBe(words);
  });
});
