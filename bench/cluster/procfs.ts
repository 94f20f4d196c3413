// The child's memory and CPU as the kernel sees them, read by the parent from /proc:
// it keeps working when the child's event loop is too busy to answer, which is exactly
// when the figures matter. Linux only; elsewhere the readings are empty.
import { readFileSync } from 'node:fs';

export interface ProcReading {
  at: number;
  /** resident set now and its high-water mark (VmRSS, VmHWM), bytes */
  rss: number;
  hwm: number;
  /** CPU time of the child so far (user + system), ms */
  cpuMs: number;
  /** CPU time of this (the parent) process so far, ms */
  parentCpuMs: number;
  /** CPU time of every process on the machine so far, ms */
  hostBusyMs: number;
  hostStealMs: number;
}

// USER_HZ is 100 on every mainstream Linux build
const TICK_MS = 10;

function statusField(text: string, field: string): number {
  const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(text);
  return m ? Number(m[1]) * 1024 : 0;
}

function childCpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // the command name may contain spaces: fields are counted after its closing parenthesis
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(f[11]) + Number(f[12])) * TICK_MS;
}

function hostCpu(): { busyMs: number; stealMs: number } {
  const f = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
  const [user, nice, system, , , irq, softirq, steal] = f;
  return { busyMs: (user + nice + system + irq + softirq) * TICK_MS, stealMs: steal * TICK_MS };
}

function parentCpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

export function readProc(pid: number): ProcReading | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const host = hostCpu();
    return {
      at: Date.now(),
      rss: statusField(status, 'VmRSS'),
      hwm: statusField(status, 'VmHWM'),
      cpuMs: childCpuMs(pid),
      parentCpuMs: parentCpuMs(),
      hostBusyMs: host.busyMs,
      hostStealMs: host.stealMs,
    };
  } catch {
    return undefined;
  }
}

export interface CpuShare {
  /** share of one core, percent */
  child: number;
  parent: number;
  /** every other process on the machine */
  others: number;
  steal: number;
}

/** CPU used between two readings, as percent of one core (200 % = both cores of this machine). */
export function cpuShare(a: ProcReading, b: ProcReading): CpuShare {
  const wall = b.at - a.at;
  if (wall <= 0) return { child: 0, parent: 0, others: 0, steal: 0 };
  const pct = (ms: number) => (100 * ms) / wall;
  const child = b.cpuMs - a.cpuMs;
  const parent = b.parentCpuMs - a.parentCpuMs;
  return {
    child: pct(child),
    parent: pct(parent),
    others: pct(Math.max(0, b.hostBusyMs - a.hostBusyMs - child - parent)),
    steal: pct(b.hostStealMs - a.hostStealMs),
  };
}

/** A process's children (Linux's /proc/<pid>/task/<pid>/children); none when it has exited. */
export function childrenOf(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8')
      .trim()
      .split(/\s+/)
      .filter(Boolean)
      .map(Number);
  } catch {
    return [];
  }
}
