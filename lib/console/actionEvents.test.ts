import { describe, expect, it } from 'vitest';
import { simulatedFaultEvent } from './actionEvents';

const at = new Date('2026-01-01T00:00:00Z');

describe('simulatedFaultEvent', () => {
  it.each([
    ['partition', 'SimulatedPartition', 'Warning', 'network partition'],
    ['heal', 'SimulatedHeal', 'Normal', 'network link restored'],
    ['power-off', 'SimulatedPowerOff', 'Warning', 'powered off'],
    ['power-on', 'SimulatedPowerOn', 'Normal', 'powered on'],
    ['kubelet-crash', 'SimulatedKubeletCrash', 'Warning', 'kubelet crashed'],
    ['kubelet-restart', 'SimulatedKubeletRestart', 'Normal', 'kubelet restarted'],
    ['meteor', 'SimulatedMeteor', 'Warning', 'meteor'],
  ])('%s -> %s (%s)', (verb, reason, type, what) => {
    const e = simulatedFaultEvent({ verb, node: 'n1', nodeUid: 'u1', by: 'console', at, mode: 'normal' });
    expect(e).toMatchObject({ reason, type, involvedObject: { kind: 'Node', name: 'n1', uid: 'u1' } });
    expect(e.message).toContain(what);
    expect(e.message).toContain('(simulation)');
    expect(e.source?.component).toBe('palisade-console');
  });

  it('names the mode when it is not normal, and gives each action its own name', () => {
    const a = simulatedFaultEvent({ verb: 'partition', node: 'n1', by: 'x', at, mode: 'protected' });
    const b = simulatedFaultEvent({ verb: 'heal', node: 'n1', by: 'x', at, mode: 'protected' });
    expect(a.message).toMatch(/in protected mode$/);
    expect(a.metadata?.name).not.toBe(b.metadata?.name);
    expect(a.metadata?.name).toMatch(/^n1\.palisade-partition-/);
  });
});
