// What every phase works with: the API endpoint, the three children, the CPU meter.
import type { Endpoint } from '../child.js';
import type { Child } from './child.js';
import type { CpuMeter } from './cpu.js';
import type { Cpu } from './protocol.js';

export interface Rig {
  endpoint: Endpoint;
  cluster: Child;
  webhook: Child;
  aggregator: Child;
  cpu: CpuMeter;
  log: (m: string) => void;
  /** take a CPU profile of the webhook in each measured window (--profile) */
  profile: boolean;
}

/** Run a measured window, with a CPU profile of the webhook around it when asked. */
export async function profiled<T>(
  rig: Rig,
  label: string,
  f: () => Promise<T>,
): Promise<[T, string | undefined]> {
  if (!rig.profile) return [await f(), undefined];
  await rig.webhook.call('profileStart');
  const out = await f();
  return [out, await rig.webhook.call<string>('profileStop', label.replace(/[^a-z0-9]+/gi, '-'))];
}

export const cpuMs = (a: Cpu, b: Cpu) => (b.userUs + b.systemUs - a.userUs - a.systemUs) / 1000;
