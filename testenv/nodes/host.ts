// The machine side of the real-node tier: the bridge the nodes hang on, each node's network
// namespace and veth, routes between the nodes' pod ranges, and each node's cgroup folders.
// Everything it makes carries a fixed name (plan.ts), so `leftovers()` finds what a killed run
// left and `removeAll()` takes it away. Needs root (ip, iptables, cgroupfs).
import { execFileSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  rmdirSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { BRIDGE, BRIDGE_CIDR, CGROUP_PARENT, HOST_IP, NETNS_PREFIX, type NodePlan } from './plan.js';

const CGROUP_ROOT = '/sys/fs/cgroup';

/** run a command; its stderr in the error when it fails */
export function run(
  cmd: string,
  args: string[],
  opts: { allowFail?: boolean; timeoutMs?: number } = {},
): string {
  try {
    return execFileSync(cmd, args, {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: opts.timeoutMs ?? 30_000,
      maxBuffer: 64 * 1024 * 1024,
    });
  } catch (e) {
    if (opts.allowFail) return '';
    const err = e as { stderr?: string; message: string };
    throw new Error(`${cmd} ${args.join(' ')}: ${err.stderr?.trim() || err.message}`);
  }
}

const inNetns = (ns: string, cmd: string, args: string[], opts?: { allowFail?: boolean }) =>
  run('ip', ['netns', 'exec', ns, cmd, ...args], opts);

/** the v1 hierarchies the kubelet and runc use (cpu and cpuacct are mounted apart here) */
export function hierarchies(): string[] {
  return readdirSync(CGROUP_ROOT).filter(
    (h) => h !== 'unified' && existsSync(join(CGROUP_ROOT, h, 'cgroup.procs')),
  );
}

export function bridgeUp() {
  if (!run('ip', ['-o', 'link', 'show', BRIDGE], { allowFail: true })) {
    run('ip', ['link', 'add', BRIDGE, 'type', 'bridge']);
    run('ip', ['addr', 'add', `${HOST_IP}/24`, 'dev', BRIDGE]);
  }
  run('ip', ['link', 'set', BRIDGE, 'up']);
}

/** A node's network namespace, joined to the bridge, with routes to every other node's pods. */
export function netnsUp(n: NodePlan, all: NodePlan[]) {
  run('ip', ['netns', 'add', n.netns]);
  run('ip', ['link', 'add', n.hostVeth, 'type', 'veth', 'peer', 'name', 'eth0', 'netns', n.netns]);
  run('ip', ['link', 'set', n.hostVeth, 'master', BRIDGE, 'up']);
  inNetns(n.netns, 'ip', ['link', 'set', 'lo', 'up']);
  inNetns(n.netns, 'ip', ['addr', 'add', `${n.ip}/24`, 'dev', 'eth0']);
  inNetns(n.netns, 'ip', ['link', 'set', 'eth0', 'up']);
  // pods forward through the node (per-namespace sysctl: the machine's stays as it is)
  inNetns(n.netns, 'sysctl', ['-q', '-w', 'net.ipv4.ip_forward=1']);
  inNetns(n.netns, 'ip', ['route', 'add', 'default', 'via', HOST_IP]);
  // other nodes' pods straight across the bridge, not through the host
  for (const o of all)
    if (o !== n) inNetns(n.netns, 'ip', ['route', 'add', o.podCidr, 'via', o.ip, 'dev', 'eth0']);
  // the host (kube-apiserver calling a webhook, the tests) reaches each node's pods directly
  run('ip', ['route', 'replace', n.podCidr, 'via', n.ip, 'dev', BRIDGE]);
}

/** A partition: the node loses its route to the API server, both ways; everything else stays. */
export function partition(n: NodePlan) {
  inNetns(n.netns, 'ip', ['route', 'replace', 'blackhole', `${HOST_IP}/32`]);
}

export function heal(n: NodePlan) {
  inNetns(n.netns, 'ip', ['route', 'del', 'blackhole', `${HOST_IP}/32`], { allowFail: true });
}

/**
 * The node's cgroup folders in every hierarchy: `system` for its daemons, `pods` for the
 * kubelet's cgroup root. A new cpuset folder takes no task until its cpus and mems are set.
 */
export function cgroupUp(n: NodePlan) {
  for (const h of hierarchies()) {
    const parts = n.cgroup.split('/');
    const dirs = [
      ...parts.map((_, i) => parts.slice(0, i + 1).join('/')),
      `${n.cgroup}/system`,
      `${n.cgroup}/pods`,
    ];
    for (const rel of dirs) {
      const dir = join(CGROUP_ROOT, h, rel);
      if (!existsSync(dir)) mkdirSync(dir);
      if (h !== 'cpuset') continue;
      for (const f of ['cpuset.cpus', 'cpuset.mems'])
        if (!readFileSync(join(dir, f), 'utf8').trim())
          writeFileSync(join(dir, f), readFileSync(join(dir, '..', f), 'utf8'));
    }
  }
}

/** the shell lines that move the shell itself into the node's system cgroup in each hierarchy */
export function joinCgroupScript(n: NodePlan): string {
  return hierarchies()
    .map((h) => `echo $$ > ${join(CGROUP_ROOT, h, n.cgroup, 'system', 'cgroup.procs')}`)
    .join('; ');
}

/** every process below the node's cgroup folder (the pids hierarchy sees them all) */
export function nodeProcesses(n: NodePlan): number[] {
  const top = join(CGROUP_ROOT, 'pids', n.cgroup);
  const pids: number[] = [];
  const walk = (dir: string) => {
    if (!existsSync(dir)) return;
    for (const line of readFileSync(join(dir, 'cgroup.procs'), 'utf8').split('\n'))
      if (line.trim()) pids.push(Number(line));
    for (const e of readdirSync(dir)) if (statSync(join(dir, e)).isDirectory()) walk(join(dir, e));
  };
  walk(top);
  return pids;
}

/**
 * Power off: every process of the node frozen at once (the freezer holds the whole subtree,
 * so nothing reacts to another's death), killed, then thawed so the kills land.
 */
export function killNodeNow(n: NodePlan) {
  const freezer = join(CGROUP_ROOT, 'freezer', n.cgroup, 'freezer.state');
  const frozen = existsSync(freezer);
  if (frozen) writeFileSync(freezer, 'FROZEN');
  for (const pid of nodeProcesses(n)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone already
    }
  }
  if (frozen) writeFileSync(freezer, 'THAWED');
}

/** killNodeNow, then wait until the node's cgroups hold no process */
export async function killNode(n: NodePlan, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    killNodeNow(n);
    await new Promise((r) => setTimeout(r, 100));
    const left = nodeProcesses(n);
    if (left.length === 0) return;
    if (Date.now() > deadline)
      throw new Error(`${n.name}: processes left after power off: ${left.join(' ')}`);
  }
}

/** the node's cgroup folders, deepest first (they must be empty: kill the node first) */
export function cgroupDown(n: NodePlan) {
  for (const h of hierarchies()) removeTree(join(CGROUP_ROOT, h, n.cgroup));
}

/** the tier's own folder in each hierarchy, once every node's is gone */
export function cgroupParentDown() {
  for (const h of hierarchies()) removeTree(join(CGROUP_ROOT, h, CGROUP_PARENT));
}

function removeTree(dir: string) {
  if (!existsSync(dir)) return;
  for (const e of readdirSync(dir)) if (statSync(join(dir, e)).isDirectory()) removeTree(join(dir, e));
  rmdirSync(dir);
}

export function netnsDown(n: NodePlan) {
  run('ip', ['route', 'del', n.podCidr], { allowFail: true });
  run('ip', ['link', 'del', n.hostVeth], { allowFail: true });
  run('ip', ['netns', 'del', n.netns], { allowFail: true });
}

export function bridgeDown() {
  run('ip', ['link', 'del', BRIDGE], { allowFail: true });
}

/**
 * What a tier leaves on the machine, by name: network namespaces, links, routes, cgroup folders
 * and mounts. Empty after a clean `down`; a test asserts it.
 */
export function leftovers(state?: string): string[] {
  const found: string[] = [];
  for (const ns of run('ip', ['netns', 'list'], { allowFail: true }).split('\n'))
    if (ns.startsWith(NETNS_PREFIX)) found.push(`network namespace ${ns.split(' ')[0]}`);
  for (const line of run('ip', ['-o', 'link', 'show'], { allowFail: true }).split('\n')) {
    const name = line.split(':')[1]?.trim().split('@')[0];
    if (name === BRIDGE || name?.startsWith('palv-')) found.push(`link ${name}`);
  }
  for (const line of run('ip', ['route', 'show'], { allowFail: true }).split('\n'))
    if (line.startsWith('10.244.') || line.includes(BRIDGE_CIDR)) found.push(`route ${line.trim()}`);
  for (const h of hierarchies())
    if (existsSync(join(CGROUP_ROOT, h, CGROUP_PARENT))) found.push(`cgroup ${h}/${CGROUP_PARENT}`);
  // kube-proxy's chains live in each node's namespace: none may reach the machine's own tables
  const chains = run('iptables-save', [], { allowFail: true }).match(/^:KUBE-\S+/gm) ?? [];
  for (const c of new Set(chains)) found.push(`iptables chain ${c.slice(1)}`);
  const mounts = readFileSync('/proc/self/mountinfo', 'utf8').split('\n');
  for (const m of mounts) {
    const point = m.split(' ')[4];
    if (point && ((state && point.startsWith(state)) || point.includes(`/${NETNS_PREFIX}`)))
      found.push(`mount ${point}`);
  }
  return found;
}
