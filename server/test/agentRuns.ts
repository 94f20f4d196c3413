// Counting real fence agent runs across processes: a wrapper named like the agent (fence_ipmilan)
// in a folder put first on the replicas' PATH appends one line per run — when, its pid and its
// action (from the `action=` line of its stdin, where Palisade passes every option), never its
// other options (the password is one) — to a log file, then execs the real agent with the same
// stdin, so every run still goes to the BMC over IPMI. Palisade finds agents on PATH
// first (lib/fenceAgents/invocation.ts), so no configuration changes.
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { findAgent } from '../fenceAgents/run.js';

export interface AgentRunRecord {
  at: number;
  pid: number;
  action: string;
}

export interface AgentRuns {
  /** put first on PATH */
  binDir: string;
  /** every run so far, oldest first (status queries too: filter by action) */
  runs(): Promise<AgentRunRecord[]>;
  /** the runs that act on the node (--action=off, reboot, ...), not the status queries */
  actions(): Promise<AgentRunRecord[]>;
}

export async function recordAgentRuns(dir: string, agent = 'fence_ipmilan'): Promise<AgentRuns> {
  const real = findAgent(agent);
  if (!real) throw new Error(`${agent} is not installed`);
  const binDir = join(dir, 'agent-bin');
  const log = join(dir, `${agent}.runs`);
  await mkdir(binDir, { recursive: true });
  await writeFile(log, '');
  const script = `#!/bin/bash
input=$(cat)
action=
while IFS= read -r line; do case $line in action=*) action=\${line#action=} ;; esac; done <<< "$input"
printf '%s %s %s\\n' "$(date +%s%3N)" "$$" "\${action:-unknown}" >> '${log}'
exec '${real}' "$@" <<< "$input"
`;
  const wrapper = join(binDir, agent);
  await writeFile(wrapper, script);
  await chmod(wrapper, 0o755);
  const runs = async () =>
    (await readFile(log, 'utf8'))
      .split('\n')
      .filter(Boolean)
      .map((l) => {
        const [at, pid, action] = l.split(' ');
        return { at: Number(at), pid: Number(pid), action };
      });
  return {
    binDir,
    runs,
    actions: async () => (await runs()).filter((r) => r.action !== 'status' && r.action !== 'monitor'),
  };
}
