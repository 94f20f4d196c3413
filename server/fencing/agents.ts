// Fence agents behind one interface: run the fence action, then check with a separate status
// query — an agent's "success" is believed only when that query confirms the node is off (or
// cut from its storage), because agents can report success before the BMC has acted.
import type { AgentSpec } from '../../lib/fencing/types.js';
import { bmc, type InfraEndpoint, storageFence, storageFencedVolumes } from '../kube/infra.js';
import { errorText } from '../../lib/kube/errorText.js';

export interface AgentRun {
  result: 'Succeeded' | 'Failed' | 'TimedOut';
  exitCode?: number;
  output: string;
}

export interface AgentCheck {
  /** what the status query saw, e.g. "off", "on", "storage cut" */
  state: string;
  confirmed: boolean;
  detail: string;
}

export interface FenceAgent {
  fence(node: string, timeoutMs: number): Promise<AgentRun>;
  check(node: string): Promise<AgentCheck>;
  /** undone when the node has recovered (storage fences); power fences leave the node as it is */
  unfence?(node: string): Promise<void>;
}

export class AgentUnavailable extends Error {}

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T | 'timeout'> {
  let timer: NodeJS.Timeout | undefined;
  const t = new Promise<'timeout'>((r) => (timer = setTimeout(() => r('timeout'), ms)));
  return Promise.race([p, t]).finally(() => clearTimeout(timer));
}

async function timed(action: () => Promise<string>, timeoutMs: number): Promise<AgentRun> {
  try {
    const r = await withTimeout(action(), timeoutMs);
    if (r === 'timeout') return { result: 'TimedOut', output: `no answer within ${timeoutMs} ms` };
    return { result: 'Succeeded', exitCode: 0, output: r };
  } catch (e) {
    return { result: 'Failed', exitCode: 1, output: errorText(e) };
  }
}

/** The embedded cluster's BMCs, through its infrastructure API. */
export function powerAgent(ep: InfraEndpoint, action: 'off' | 'reboot'): FenceAgent {
  return {
    fence: (node, timeoutMs) =>
      timed(
        async () =>
          `BMC: power ${action === 'off' ? 'off' : 'cycle'} requested; now ${await bmc(ep, node, action === 'off' ? 'off' : 'reset')}`,
        timeoutMs,
      ),
    async check(node) {
      const power = await bmc(ep, node);
      // a reboot is over once the node is powered again: its old processes died with the power
      const confirmed = action === 'off' ? power === 'off' : power === 'on';
      return { state: `power ${power}`, confirmed, detail: `BMC reports power ${power.toUpperCase()}` };
    },
  };
}

/** Cut the node from its volumes: seed 000's "firewall the storage server" fence. */
export function storageAgent(ep: InfraEndpoint): FenceAgent {
  return {
    fence: (node, timeoutMs) =>
      timed(async () => {
        await storageFence(ep, node, true);
        return 'storage: node cut from all volumes';
      }, timeoutMs),
    async check(node) {
      const cut = (await storageFencedVolumes(ep, node)).includes('*');
      return {
        state: cut ? 'storage cut' : 'storage reachable',
        confirmed: cut,
        detail: cut
          ? 'the storage system refuses every write from the node'
          : 'the node can still write to its volumes',
      };
    },
    unfence: (node) => storageFence(ep, node, false),
  };
}

/** The agent a policy names, for a cluster (power and storage need the embedded infrastructure). */
export function agentFor(
  spec: AgentSpec,
  infra: InfraEndpoint | undefined,
  exec: (spec: Extract<AgentSpec, { type: 'exec' }>) => FenceAgent,
): FenceAgent {
  if (spec.type === 'exec') return exec(spec);
  if (!infra)
    throw new AgentUnavailable(
      `the ${spec.type} agent acts on Palisade's embedded infrastructure, which this cluster does not have; use an exec agent such as fence_ipmilan`,
    );
  return spec.type === 'power' ? powerAgent(infra, spec.action) : storageAgent(infra);
}
