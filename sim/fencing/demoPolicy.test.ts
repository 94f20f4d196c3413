// The demo cluster's FencePolicy passes the rule the webhook and the fencing controller apply
// (lib/fenceAgents/policy.ts): npm start keeps fencing over IPMI with the rule on.
import { describe, expect, it } from 'vitest';
import { judgeExecAgent } from '../../lib/fenceAgents/policy.js';
import { policySpecProblem } from '../../lib/fencing/policyAdmission.js';
import { agentSpec } from '../../lib/fencing/types.js';
import { DEFAULT_CREDENTIALS_NAMESPACE } from '../../server/config/schema.js';
import type { Bmcs } from '../infra/ipmi/bmcs.js';
import { CREDENTIALS_NAMESPACE, ipmiAgent } from './demoPolicy.js';

const bmcs = {
  endpoints: () => ({
    'a1-1': { host: '127.0.0.1', port: 40001, username: 'palisade', password: 'x' },
    'a1-2': { host: '127.0.0.1', port: 40002, username: 'palisade', password: 'x' },
  }),
} as unknown as Bmcs;

describe('the demo FencePolicy', () => {
  it('reads its BMC password from the namespace Palisade allows by default', () => {
    expect(CREDENTIALS_NAMESPACE).toBe(DEFAULT_CREDENTIALS_NAMESPACE);
  });

  it("passes the agent rule and the webhook's spec check", () => {
    const agent = agentSpec.parse(ipmiAgent(bmcs));
    if (agent.type !== 'exec') throw new Error('an exec agent');
    expect(judgeExecAgent(agent, { credentialsNamespaces: [DEFAULT_CREDENTIALS_NAMESPACE] })).toEqual({
      ok: true,
    });
    expect(policySpecProblem({ agent: ipmiAgent(bmcs) }, [DEFAULT_CREDENTIALS_NAMESPACE])).toBeUndefined();
  });
});
