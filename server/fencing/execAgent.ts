// The exec fence agent: any ClusterLabs fence_* agent (fence_ipmilan on the demo cluster) run as a
// subprocess with the policy's shared and per-node parameters and its Secret credentials, read
// fresh for every run so a rotated password is used at once. Verified by `--action=status`.
import type * as k8s from '@kubernetes/client-node';
import { buildInvocation, type ExecAgentSpec, InvocationError } from '../../lib/fenceAgents/invocation.js';
import { judgeExecAgent, verdictText } from '../../lib/fenceAgents/policy.js';
import { errorText } from '../../lib/kube/errorText.js';
import type { Logger } from '../log.js';
import { agentStatus, runAgent } from '../fenceAgents/run.js';
import { readSecretParams } from '../fenceAgents/secrets.js';
import type { FenceAgent } from './agents.js';

/** status queries get their own, shorter limit: they are repeated while verifying */
const STATUS_TIMEOUT_MS = 20_000;

export interface ExecAgentOptions {
  /** palisade.yaml fencing.credentialsNamespaces: the only namespaces its Secrets are read from */
  credentialsNamespaces: readonly string[];
  /** where each run is logged, its command line with the credentials hidden (context such as { cluster } on it) */
  logger?: Logger;
}

export function execAgent(kc: k8s.KubeConfig, spec: ExecAgentSpec, opts: ExecAgentOptions): FenceAgent {
  const { logger } = opts;
  const invocation = async (node: string) => {
    // judged before any Secret is read: a namespace outside the list is never read from
    const v = judgeExecAgent(spec, opts);
    if (!v.ok) throw new InvocationError(`the agent is refused: ${verdictText(v)}`, v.problems);
    const secrets = await readSecretParams(kc, spec.credentialsNamespace, spec.secretRefs);
    return buildInvocation(spec, node, secrets);
  };
  return {
    async fence(node, timeoutMs) {
      let inv: Awaited<ReturnType<typeof invocation>>;
      try {
        inv = await invocation(node);
      } catch (e) {
        return { result: 'Failed', output: errorText(e) };
      }
      const run = await runAgent(inv, { timeoutMs, logger });
      return { result: run.result, exitCode: run.exitCode ?? undefined, output: run.output };
    },
    async check(node) {
      const q = await agentStatus(await invocation(node), { timeoutMs: STATUS_TIMEOUT_MS, logger });
      const want = spec.action === 'off' ? 'off' : 'on';
      return {
        state: `power ${q.power}`,
        confirmed: q.power === want,
        detail:
          q.power === 'unknown'
            ? `status query: ${q.run.output.split('\n').at(-1) ?? ''}`
            : `${spec.agent} status: ${q.power.toUpperCase()}`,
      };
    },
  };
}
