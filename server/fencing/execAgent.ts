// The exec fence agent: any ClusterLabs fence_* agent (fence_ipmilan on the demo cluster) run as a
// subprocess with the policy's shared and per-node parameters and its Secret credentials, read
// fresh for every run so a rotated password is used at once. Verified by `--action=status`.
import type * as k8s from '@kubernetes/client-node';
import { buildInvocation, type ExecAgentSpec } from '../../lib/fenceAgents/invocation.js';
import { errorText } from '../../lib/kube/errorText.js';
import type { Logger } from '../log.js';
import { agentStatus, runAgent } from '../fenceAgents/run.js';
import { readSecretParams } from '../fenceAgents/secrets.js';
import type { FenceAgent } from './agents.js';

/** status queries get their own, shorter limit: they are repeated while verifying */
const STATUS_TIMEOUT_MS = 20_000;

/** `logger`: where each run is logged, its command line with the credentials hidden (context such as { cluster } on it) */
export function execAgent(kc: k8s.KubeConfig, spec: ExecAgentSpec, logger?: Logger): FenceAgent {
  const invocation = async (node: string) => {
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
