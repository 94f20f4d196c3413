// A memory cgroup with the chart's limit, for running the server the way a pod of the chart runs:
// the kernel kills what goes past the limit, and Node sizes its heap from it (about half). Needs
// root and a cgroup file system (v1's memory controller or v2); otherwise undefined and the bench
// says the run was not limited. The process must start inside it (Node reads the limit at start):
// `wrap` puts `sh -c 'echo $$ > cgroup.procs; exec "$@"'` in front of its command.
import { existsSync, mkdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import YAML from 'yaml';

export interface MemoryCgroup {
  path: string;
  limitBytes: number;
  wrap(argv: string[]): string[];
  /** processes the kernel killed for going past the limit */
  oomKills(): number;
  remove(): void;
}

const V1 = '/sys/fs/cgroup/memory';
const V2 = '/sys/fs/cgroup';

export function memoryCgroup(name: string, limitBytes: number): MemoryCgroup | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const v2 = existsSync(join(V2, 'cgroup.controllers'));
  const base = v2 ? V2 : V1;
  if (!existsSync(base) || (v2 && !readFileSync(join(V2, 'cgroup.controllers'), 'utf8').includes('memory')))
    return undefined;
  const path = join(base, name);
  try {
    mkdirSync(path, { recursive: true });
    writeFileSync(join(path, v2 ? 'memory.max' : 'memory.limit_in_bytes'), String(limitBytes));
    if (v2) writeFileSync(join(path, 'memory.swap.max'), '0');
  } catch {
    return undefined;
  }
  const procs = join(path, 'cgroup.procs');
  return {
    path,
    limitBytes,
    wrap: (argv) => ['sh', '-c', `echo $$ > ${procs} && exec "$@"`, 'sh', ...argv],
    oomKills: () => {
      const file = join(path, v2 ? 'memory.events' : 'memory.oom_control');
      const m = /^oom_kill (\d+)$/m.exec(readFileSync(file, 'utf8'));
      return m ? Number(m[1]) : 0;
    },
    remove: () => {
      try {
        rmdirSync(path);
      } catch {
        // a process still in it: the kernel keeps it until it is gone
      }
    },
  };
}

/** The chart's memory limit (values.yaml resources.limits.memory: 1536Mi, 2Gi...), in bytes. */
export function chartMemoryLimit(valuesYaml: string): number | undefined {
  const values = YAML.parse(valuesYaml) as { resources?: { limits?: { memory?: string } } };
  const q = /^(\d+(?:\.\d+)?)(Ki|Mi|Gi)?$/.exec(String(values.resources?.limits?.memory ?? ''));
  if (!q) return undefined;
  return Number(q[1]) * ({ Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30 }[q[2] ?? ''] ?? 1);
}
