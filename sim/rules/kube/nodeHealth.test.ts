import { describe, expect, it } from 'vitest';
import {
  isSilent,
  lastHeardMs,
  markConditionsUnknown,
  type NodeCondition,
  type NoExecuteMode,
  noExecuteModes,
  reconcileNodeTaints,
  sameTaintSet,
  taintWrites,
  zoneKey,
  zoneState,
} from './nodeHealth.js';
import type { Taint } from '../../../lib/kube/tolerations.js';

const now = Date.parse('2026-01-01T00:10:00Z');
const ago = (s: number) => new Date(now - s * 1000).toISOString().replace('.000Z', 'Z');

describe('lastHeardMs and isSilent', () => {
  const cases: [string, string | undefined, string | undefined, boolean][] = [
    ['fresh heartbeat, no lease', ago(5), undefined, false],
    ['old heartbeat, fresh lease', ago(100), ago(5), false],
    ['fresh heartbeat, old lease', ago(5), ago(100), false],
    ['both old', ago(41), ago(45), true],
    ['exactly the grace period', ago(40), undefined, false],
    ['never heard, created long ago', undefined, undefined, true],
  ];
  it.each(cases)('%s', (_, heartbeat, renew, silent) => {
    const heard = lastHeardMs(heartbeat, renew, ago(1000));
    expect(isSilent(heard, now, 40_000)).toBe(silent);
  });

  it('accepts Date objects and lease micro-times', () => {
    expect(lastHeardMs(new Date(now - 1000), '2026-01-01T00:09:59.500000Z', undefined)).toBe(now - 500);
    expect(lastHeardMs(undefined, undefined, new Date(now))).toBe(now);
    expect(isSilent(undefined, now, 1)).toBe(true);
  });
});

describe('markConditionsUnknown', () => {
  const ready = (status: string): NodeCondition => ({
    type: 'Ready',
    status,
    reason: 'KubeletReady',
    message: 'kubelet is posting ready status',
    lastHeartbeatTime: ago(60),
    lastTransitionTime: ago(600),
  });

  it('sets every monitored condition to Unknown, keeping the last heartbeat', () => {
    const memory = { ...ready('False'), type: 'MemoryPressure' };
    const network = { ...ready('False'), type: 'NetworkUnavailable' };
    const { conditions, changed } = markConditionsUnknown([ready('True'), memory, network], now, ago(3600));
    expect(changed).toBe(true);
    expect(conditions.find((c) => c.type === 'Ready')).toEqual({
      type: 'Ready',
      status: 'Unknown',
      reason: 'NodeStatusUnknown',
      message: 'Kubelet stopped posting node status.',
      lastHeartbeatTime: ago(60),
      lastTransitionTime: ago(0),
    });
    expect(conditions.find((c) => c.type === 'MemoryPressure')?.status).toBe('Unknown');
    // the network plugin owns NetworkUnavailable
    expect(conditions.find((c) => c.type === 'NetworkUnavailable')).toEqual(network);
    expect(conditions.find((c) => c.type === 'DiskPressure')).toEqual({
      type: 'DiskPressure',
      status: 'Unknown',
      reason: 'NodeStatusNeverUpdated',
      message: 'Kubelet never posted node status.',
      lastHeartbeatTime: ago(3600),
      lastTransitionTime: ago(0),
    });
  });

  it('changes nothing once everything is Unknown', () => {
    const first = markConditionsUnknown([ready('True')], now, ago(3600));
    const again = markConditionsUnknown(first.conditions, now + 5000, ago(3600));
    expect(again.changed).toBe(false);
    expect(again.conditions).toEqual(first.conditions);
  });
});

describe('reconcileNodeTaints', () => {
  const cond = (type: string, status: string): NodeCondition => ({ type, status });
  const t = (key: string, effect: string, timeAdded?: string): Taint => ({
    key: `node.kubernetes.io/${key}`,
    effect,
    ...(timeAdded ? { timeAdded } : {}),
  });
  const outOfService = {
    key: 'node.kubernetes.io/out-of-service',
    value: 'nodeshutdown',
    effect: 'NoExecute',
  };
  const cases: [string, Taint[], NodeCondition[], boolean, NoExecuteMode, Taint[]][] = [
    ['healthy node, nothing to do', [], [cond('Ready', 'True')], false, 'add', []],
    [
      'Unknown: unreachable NoSchedule and NoExecute',
      [],
      [cond('Ready', 'Unknown')],
      false,
      'add',
      [t('unreachable', 'NoSchedule', ago(0)), t('unreachable', 'NoExecute', ago(0))],
    ],
    [
      'NotReady: not-ready NoSchedule and NoExecute',
      [],
      [cond('Ready', 'False')],
      false,
      'add',
      [t('not-ready', 'NoSchedule', ago(0)), t('not-ready', 'NoExecute', ago(0))],
    ],
    [
      'Ready again: the taints come off, others stay',
      [outOfService, t('unreachable', 'NoSchedule'), t('unreachable', 'NoExecute', ago(30))],
      [cond('Ready', 'True')],
      false,
      'add',
      [outOfService],
    ],
    [
      'an existing NoExecute taint keeps its timeAdded',
      [t('unreachable', 'NoSchedule'), t('unreachable', 'NoExecute', ago(30))],
      [cond('Ready', 'Unknown')],
      false,
      'add',
      [t('unreachable', 'NoSchedule'), t('unreachable', 'NoExecute', ago(30))],
    ],
    [
      'keep mode swaps an existing NoExecute taint',
      [t('unreachable', 'NoExecute', ago(30))],
      [cond('Ready', 'False')],
      false,
      'keep',
      [t('not-ready', 'NoSchedule', ago(0)), t('not-ready', 'NoExecute', ago(0))],
    ],
    [
      'keep mode adds no new NoExecute taint',
      [],
      [cond('Ready', 'Unknown')],
      false,
      'keep',
      [t('unreachable', 'NoSchedule', ago(0))],
    ],
    [
      'remove mode takes NoExecute taints off',
      [t('unreachable', 'NoSchedule'), t('unreachable', 'NoExecute', ago(30))],
      [cond('Ready', 'Unknown')],
      false,
      'remove',
      [t('unreachable', 'NoSchedule')],
    ],
    [
      'pressure and cordon taints',
      [],
      [cond('Ready', 'True'), cond('MemoryPressure', 'True'), cond('DiskPressure', 'False')],
      true,
      'add',
      [t('memory-pressure', 'NoSchedule', ago(0)), t('unschedulable', 'NoSchedule', ago(0))],
    ],
    ['a node without conditions is not tainted NoExecute on Ready', [], [], false, 'add', []],
  ];
  it.each(cases)('%s', (_, taints, conditions, unschedulable, mode, want) => {
    expect(reconcileNodeTaints(taints, conditions, unschedulable, mode, now)).toEqual(want);
  });

  it('writes NoSchedule changes before NoExecute ones, additions before removals', () => {
    const ns = t('unreachable', 'NoSchedule', ago(0));
    const ne = t('unreachable', 'NoExecute', ago(0));
    expect(taintWrites([], [ns, ne])).toEqual([[ns], [ns, ne]]);
    expect(taintWrites([outOfService, ns, ne], [outOfService])).toEqual([[outOfService, ne], [outOfService]]);
    // a swap: the new taint is added before the old one goes
    const nr = t('not-ready', 'NoSchedule', ago(0));
    expect(taintWrites([ns], [nr])).toEqual([[ns, nr], [nr]]);
    expect(taintWrites([ns, ne], [ns, ne])).toEqual([]);
  });

  it('compares taint sets by key, value and effect', () => {
    expect(sameTaintSet([t('a', 'NoSchedule')], [t('a', 'NoSchedule', ago(1))])).toBe(true);
    expect(sameTaintSet([t('a', 'NoSchedule')], [t('a', 'NoExecute')])).toBe(false);
    expect(sameTaintSet(undefined, [])).toBe(true);
  });
});

describe('zones', () => {
  const cases: [string[], string][] = [
    [['True', 'True', 'Unknown'], 'Normal'],
    [['Unknown'], 'FullDisruption'],
    [['False', 'Unknown'], 'FullDisruption'],
    [['True', 'Unknown', 'Unknown'], 'Normal'],
    [['True', 'Unknown', 'Unknown', 'Unknown'], 'PartialDisruption'],
    [['True', 'True', 'Unknown', 'Unknown', 'Unknown'], 'PartialDisruption'],
    [['True', 'True', 'True', 'Unknown', 'Unknown', 'Unknown'], 'Normal'],
    [[], 'Normal'],
  ];
  it.each(cases)('zoneState(%j) = %s', (ready, want) => {
    expect(zoneState(ready)).toBe(want);
  });

  it('keys zones by region and zone labels', () => {
    expect(zoneKey({ 'topology.kubernetes.io/region': 'r', 'topology.kubernetes.io/zone': 'z' })).toBe(
      'r:\x00:z',
    );
    expect(zoneKey({ 'failure-domain.beta.kubernetes.io/zone': 'z' })).toBe(':\x00:z');
    expect(zoneKey(undefined)).toBe('');
  });

  it('stops NoExecute tainting only when every zone is down', () => {
    const n = (zone: string, ready: string, excluded = false) => ({ zone, ready, excluded });
    const mixed = noExecuteModes([n('a', 'Unknown'), n('b', 'True')]);
    expect(mixed('a')).toBe('add');
    const allDown = noExecuteModes([n('a', 'Unknown'), n('b', 'False'), n('c', 'True', true)]);
    expect(allDown('a')).toBe('remove');
    const partial = noExecuteModes([
      n('a', 'True'),
      n('a', 'Unknown'),
      n('a', 'Unknown'),
      n('a', 'Unknown'),
      n('b', 'True'),
    ]);
    expect(partial('a')).toBe('keep');
    expect(partial('b')).toBe('add');
  });
});
