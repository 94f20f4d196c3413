// Real IPMI BMCs for the simulated nodes: one OpenIPMI ipmi_sim per node on 127.0.0.1,
// whose chassis power control drives that node's power in the Infrastructure. A real
// ClusterLabs fence_ipmilan (through ipmitool) can then fence a simulated node exactly as
// it fences a server. One process per node because every LAN channel of one ipmi_sim
// reaches the same MC, hence the same chassis.
import { randomBytes } from 'node:crypto';
import { accessSync, constants, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { candidatePaths } from '../../../lib/fenceAgents/invocation.js';
import { GuardedProcess } from '../../real/process.js';
import { startInfraApi } from '../api.js';
import type { Infrastructure } from '../infrastructure.js';
import { BMC_EMU, chassisProgram, checkNodeName, lanConf } from './config.js';
import { freeUdpPort, waitServing } from './udp.js';

export const IPMI_INSTALL = 'apt-get install openipmi fence-agents ipmitool';
const TOOLS = ['ipmi_sim', 'fence_ipmilan', 'ipmitool'] as const;

export interface BmcEndpoint {
  host: '127.0.0.1';
  port: number;
  username: string;
  password: string;
}

export interface BmcOptions {
  log?: (msg: string) => void;
  /** kept after stop(); default a fresh temporary folder, removed by stop() */
  stateDir?: string;
  /** the infrastructure API to drive power through (default: one started for the BMCs) */
  infraUrl?: string;
  infraToken?: string;
}

export interface Bmcs {
  /** start (once) the BMC of a node added to the infrastructure later */
  ensure(node: string): Promise<BmcEndpoint>;
  /** the same as ensure */
  add(node: string): Promise<BmcEndpoint>;
  /** a started BMC's address and credentials; throws for a node without one */
  endpoint(node: string): BmcEndpoint;
  endpoints(): Record<string, BmcEndpoint>;
  stop(): Promise<void>;
}

export function findTool(name: string): string | undefined {
  return candidatePaths(name, process.env.PATH).find((p) => {
    try {
      accessSync(p, constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

/** the IPMI tools this machine lacks (empty: real fencing over IPMI can be tested) */
export function missingIpmiTools(): string[] {
  return TOOLS.filter((t) => !findTool(t));
}

export function ipmiAvailable(): boolean {
  return missingIpmiTools().length === 0;
}

const READY_MS = 10_000;
const PORT_TRIES = 5;

export async function startBmcs(infra: Infrastructure, opts: BmcOptions = {}): Promise<Bmcs> {
  const bin = findTool('ipmi_sim');
  if (!bin) throw new Error(`ipmi_sim (OpenIPMI) is not installed: ${IPMI_INSTALL}`);
  const log = opts.log ?? (() => undefined);
  const state = opts.stateDir ?? mkdtempSync(join(tmpdir(), 'palisade-bmc-'));
  mkdirSync(state, { recursive: true, mode: 0o700 });
  const own = opts.infraUrl && opts.infraToken ? undefined : await startInfraApi(infra, [] /* no checkers */);
  const program = join(state, 'chassis-control');
  writeFileSync(program, chassisProgram(opts.infraUrl ?? own!.url, opts.infraToken ?? own!.token), {
    mode: 0o700,
  });
  // One login for the cluster's BMCs, as a site's BMCs often share one. 16 characters: IPMI
  // 1.5's limit, and ipmi_sim silently cuts a lan.conf password at 19 (RAKP 2 HMAC invalid).
  const username = 'palisade';
  const password = randomBytes(8).toString('hex');
  const procs = new Map<string, GuardedProcess>();
  const ready = new Map<string, BmcEndpoint>();
  const starting = new Map<string, Promise<BmcEndpoint>>();
  let stopped = false;

  async function launch(node: string): Promise<BmcEndpoint> {
    checkNodeName(node);
    infra.node(node); // a clear error for a node the infrastructure does not have
    const dir = join(state, node);
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    writeFileSync(join(dir, 'bmc.emu'), BMC_EMU);
    for (let attempt = 1; ; attempt++) {
      const port = await freeUdpPort();
      const conf = join(dir, 'lan.conf');
      writeFileSync(conf, lanConf({ node, port, username, password, chassisProgram: program }), {
        mode: 0o600,
      });
      const args = ['-n', '-c', conf, '-f', join(dir, 'bmc.emu'), '-s', dir];
      const p = new GuardedProcess(`bmc-${node}`, bin!, args, dir);
      procs.set(node, p);
      try {
        await waitServing(port, READY_MS, () => !p.running);
        log(`BMC for ${node} on 127.0.0.1:${port} (udp)`);
        return { host: '127.0.0.1', port, username, password };
      } catch (e) {
        await p.stop(1000);
        // another process took the port between our probe and ipmi_sim's bind
        if (attempt < PORT_TRIES && /Address already in use/.test(p.tail())) continue;
        throw new Error(`BMC for ${node} did not start: ${(e as Error).message}\n${p.tail()}`);
      }
    }
  }

  // concurrent callers share one start; a failed start may be retried
  function ensure(node: string): Promise<BmcEndpoint> {
    if (stopped) return Promise.reject(new Error(`BMCs stopped: cannot serve node ${node}`));
    let p = starting.get(node);
    if (!p) {
      p = launch(node).then(
        (ep) => {
          ready.set(node, ep);
          return ep;
        },
        (e) => {
          starting.delete(node);
          throw e;
        },
      );
      starting.set(node, p);
    }
    return p;
  }

  async function stop() {
    stopped = true;
    await Promise.allSettled([...starting.values()]);
    await Promise.all([...procs.values()].map((p) => p.stop(2000)));
    await own?.stop();
    if (!opts.stateDir) rmSync(state, { recursive: true, force: true });
  }

  try {
    await Promise.all(infra.list().map((n) => ensure(n.name)));
  } catch (e) {
    await stop();
    throw e;
  }
  return {
    ensure,
    add: ensure,
    endpoint(node) {
      const ep = ready.get(node);
      if (!ep) throw new Error(`no BMC serves node ${node} (call ensure("${node}") after adding it)`);
      return ep;
    },
    endpoints: () => Object.fromEntries(ready),
    stop,
  };
}
