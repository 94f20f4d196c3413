// The chart's RBAC as rendered: the people's roles are those of deploy/rbac/palisade-roles.yaml
// (which the embedded cluster installs), every rule of Palisade's own roles carries a comment
// saying why and is listed with the feature that needs it (server/rbac/rules.ts, for every value
// set the tests and docs use: a new rule fails here until it is listed), and the values that
// narrow a grant do narrow it.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type * as k8s from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { CHART_DIR, OIDC_VALUES, objectsOf, renderRbac, VALUE_SETS } from './chart.js';
import { reasonOf, type RenderedRule, RULES, ruleTable } from './rules.js';

const ROLES_FILE = join(CHART_DIR, '../../rbac/palisade-roles.yaml');
const PEOPLE = /^palisade-(viewer|operator|admin)(-rules)?$/;

type Role = k8s.V1ClusterRole;
const byName = (objs: k8s.KubernetesObject[]) =>
  Object.fromEntries(objs.map((o) => [`${o.kind}/${o.metadata?.name}`, o as Role]));

describe('the chart RBAC', () => {
  it("renders the people's roles exactly as deploy/rbac/palisade-roles.yaml has them", async () => {
    const chart = byName(objectsOf(await renderRbac({ namespace: 'palisade-system' })));
    const file = objectsOf(readFileSync(ROLES_FILE, 'utf8')).filter((o) =>
      PEOPLE.test(o.metadata?.name ?? ''),
    );
    expect(file).toHaveLength(6);
    for (const want of file as Role[]) {
      const got = chart[`ClusterRole/${want.metadata!.name}`];
      expect(got, want.metadata!.name).toBeDefined();
      expect(got.rules ?? []).toEqual(want.rules ?? []);
      expect(got.aggregationRule).toEqual(want.aggregationRule);
      const aggregate = (r: Role) =>
        Object.entries(r.metadata?.labels ?? {}).filter(([k]) => k.startsWith('rbac.palisade.dev/'));
      expect(aggregate(got)).toEqual(aggregate(want));
    }
  });

  it('binds every role to the ServiceAccount of the release, in its namespace', async () => {
    const objs = objectsOf(await renderRbac({ namespace: 'ops' }));
    const sa = objs.find((o) => o.kind === 'ServiceAccount');
    expect(sa?.metadata).toMatchObject({ name: 'palisade', namespace: 'ops' });
    const roles = objs.filter((o) => o.kind === 'ClusterRole' || o.kind === 'Role');
    const bindings = objs.filter((o) => o.kind?.endsWith('Binding')) as k8s.V1RoleBinding[];
    for (const r of roles) {
      if (PEOPLE.test(r.metadata!.name!)) continue;
      const b = bindings.find((x) => x.roleRef.name === r.metadata!.name && x.roleRef.kind === r.kind);
      expect(b, `${r.kind} ${r.metadata!.name} is bound`).toBeDefined();
      expect(b!.subjects).toEqual([{ kind: 'ServiceAccount', name: 'palisade', namespace: 'ops' }]);
    }
    // cluster-scoped names carry the namespace: two releases in two namespaces never collide
    for (const r of roles.filter((o) => o.kind === 'ClusterRole' && !PEOPLE.test(o.metadata!.name!)))
      expect(r.metadata!.name).toMatch(/^palisade-ops-/);
  });

  it('grants no wildcard, no escalate/bind; Secrets by name or create only, but in the sessions namespace', async () => {
    for (const [set, o] of Object.entries(VALUE_SETS)) {
      const objs = objectsOf(await renderRbac({ ...o, namespace: 'ops' }));
      for (const r of objs.filter((x) => x.kind === 'ClusterRole' || x.kind === 'Role') as Role[]) {
        for (const rule of r.rules ?? []) {
          const all = [...(rule.verbs ?? []), ...(rule.resources ?? []), ...(rule.apiGroups ?? [])];
          expect(all, `${set}: ${r.metadata!.name}`).not.toContain('*');
          expect(rule.verbs).not.toContain('escalate');
          expect(rule.verbs).not.toContain('bind');
          if (!rule.resources?.includes('secrets')) continue;
          expect(r.kind, `${set}: ${r.metadata!.name} grants Secrets cluster-wide`).toBe('Role');
          if (r.metadata!.namespace === 'ops-sessions') continue;
          // the fence agents' and OIDC Secrets share the release namespace: nothing reads them unnamed
          const unnamed = rule.resourceNames?.length ? [] : (rule.verbs ?? []).filter((v) => v !== 'create');
          expect(unnamed, `${set}: ${r.metadata!.name} reads Secrets not by name`).toEqual([]);
        }
      }
    }
  }, 60_000);

  it('impersonates nobody without OIDC sign-in', async () => {
    for (const values of [{}, { 'rbac.impersonation.groups': '{sre}' }] as Record<string, string>[]) {
      const objs = objectsOf(await renderRbac({ namespace: 'ops', values }));
      expect(objs.filter((o) => o.metadata?.name?.includes('impersonation'))).toEqual([]);
      const verbs = (objs as Role[]).flatMap((o) => (o.rules ?? []).flatMap((r) => r.verbs ?? []));
      expect(verbs).not.toContain('impersonate');
    }
  });

  it('with OIDC, impersonates users, and only the configured groups', async () => {
    const imp = (objs: k8s.KubernetesObject[]) =>
      (objs.find((o) => o.metadata?.name === 'palisade-ops-impersonation') as Role).rules ?? [];
    const none = imp(objectsOf(await renderRbac({ namespace: 'ops', values: OIDC_VALUES })));
    expect(none).toEqual([{ apiGroups: [''], resources: ['users'], verbs: ['impersonate'] }]);
    const some = imp(
      objectsOf(
        await renderRbac({
          namespace: 'ops',
          values: { ...OIDC_VALUES, 'rbac.impersonation.groups': '{sre,db-oncall}' },
        }),
      ),
    );
    expect(some[1]).toEqual({
      apiGroups: [''],
      resources: ['groups'],
      resourceNames: ['sre', 'db-oncall'],
      verbs: ['impersonate'],
    });
  });

  it('comments every rule of the templates with why it is there', () => {
    const dir = join(CHART_DIR, 'templates/rbac');
    const bare: string[] = [];
    for (const f of readdirSync(dir).filter((x) => x.endsWith('.yaml') && x !== 'people.yaml')) {
      const lines = readFileSync(join(dir, f), 'utf8').split('\n');
      const meaningful = (x: string) => !/^\s*({{-.*}})?\s*$/.test(x);
      lines.forEach((l, i) => {
        if (!/^ {2}- apiGroups:/.test(l)) return;
        const prev = lines.slice(0, i).reverse().find(meaningful) ?? '';
        if (/^\s*#/.test(prev)) return;
        // a role of one rule may be explained once, by the comment above the object
        if (prev.trim() === 'rules:') {
          const head = lines.slice(0, i).reverse();
          const start = head.indexOf('apiVersion: rbac.authorization.k8s.io/v1');
          const above = head.slice(start + 1).find(meaningful) ?? '';
          const single = !lines
            .slice(i + 1)
            .find((x, k, rest) => /^ {2}- apiGroups:/.test(x) && !rest.slice(0, k).some((y) => y === '---'));
          if (/^#/.test(above) && single) return;
        }
        bare.push(`${f}:${i + 1}`);
      });
    }
    expect(bare).toEqual([]);
  });

  it('lists every rule bound to the ServiceAccount with the feature that needs it, in every value set', async () => {
    const unlisted: string[] = [];
    const seen = new Set<(typeof RULES)[number]>();
    for (const [set, o] of Object.entries(VALUE_SETS)) {
      const objs = objectsOf(await renderRbac({ ...o, namespace: 'ops' }));
      for (const r of boundRoles(objs))
        for (const rule of r.rules ?? []) {
          const rendered: RenderedRule = { roleName: r.metadata!.name!, kind: r.kind!, ...rule };
          const reason = reasonOf(rendered);
          if (reason) seen.add(reason);
          else
            unlisted.push(
              `${set}: ${r.kind} ${r.metadata!.name}: ${rule.verbs?.join('/')} ${rule.resources?.join(',')}${rule.resourceNames ? ' (by name)' : ''}`,
            );
        }
    }
    expect(unlisted, 'add these rules to server/rbac/rules.ts with their feature and reason').toEqual([]);
    // and the list holds nothing the chart no longer grants
    const stale = RULES.filter((k) => !seen.has(k)).map((k) => `${k.role}: ${k.verbs} ${k.resources}`);
    expect(stale, 'no value set renders these entries of server/rbac/rules.ts').toEqual([]);
  }, 60_000);

  it("docs/rbac.md's table is the rule list (npm run docs:rbac)", () => {
    const doc = readFileSync(join(CHART_DIR, '../../../docs/rbac.md'), 'utf8');
    expect(doc, 'docs/rbac.md is stale: run npm run docs:rbac').toContain(ruleTable());
  });

  it('patches workloads only in the namespaces instanceIds.namespaces lists, but for the generator under the guard', async () => {
    const generator = (r: Role) => r.metadata!.name!.endsWith('-controllers');
    const workloadRules = (objs: k8s.KubernetesObject[], o = { generator: false }) =>
      boundRoles(objs)
        .filter((r) => o.generator === generator(r))
        .flatMap((r) =>
          (r.rules ?? [])
            .filter((x) => x.resources?.some((res) => ['deployments', 'statefulsets', 'jobs'].includes(res)))
            .filter((x) => x.verbs?.includes('patch'))
            .map(() => `${r.kind}/${r.metadata!.namespace ?? ''}`),
        );
    // by default: no workload anywhere for instance IDs
    const defaults = objectsOf(await renderRbac({ namespace: 'ops' }));
    expect(workloadRules(defaults)).toEqual([]);
    // the generator's finalizer: patch on Deployments and StatefulSets cluster-wide, only with the
    // generator on, and the workload guard (where the cluster serves it, as helm install finds out)
    // refuses any other change by the ServiceAccount
    expect(workloadRules(defaults, { generator: true })).toEqual(['ClusterRole/']);
    const off = { 'protection.generator.enabled': 'false' };
    expect(
      workloadRules(objectsOf(await renderRbac({ namespace: 'ops', values: off })), { generator: true }),
    ).toEqual([]);
    const guarded = objectsOf(await renderRbac({ namespace: 'ops', admissionPolicies: true }));
    const policy = guarded.find((o) => o.kind === 'ValidatingAdmissionPolicy') as any;
    expect(policy.spec.matchConditions[0].expression).toBe(
      'request.userInfo.username == "system:serviceaccount:ops:palisade"',
    );
    expect(guarded.find((o) => o.kind === 'ValidatingAdmissionPolicyBinding')).toMatchObject({
      spec: { policyName: policy.metadata.name, validationActions: ['Deny'] },
    });
    expect(defaults.filter((o) => o.kind?.startsWith('ValidatingAdmissionPolicy'))).toEqual([]);
    const two = objectsOf(
      await renderRbac({ namespace: 'ops', values: { 'instanceIds.namespaces': '{shop,billing}' } }),
    );
    expect(new Set(workloadRules(two))).toEqual(new Set(['Role/shop', 'Role/billing']));
    const all = objectsOf(
      await renderRbac({ namespace: 'ops', values: { 'instanceIds.namespaces[0]': '*' } }),
    );
    expect(new Set(workloadRules(all))).toEqual(new Set(['ClusterRole/']));
    // "*" beside a namespace is refused
    await expect(
      renderRbac({ namespace: 'ops', values: { 'instanceIds.namespaces': '{*,shop}' } }),
    ).rejects.toThrow(/"\*" \(every namespace\) stands alone/);
  });

  it("reads fence-agent credentials by name only, the listed ones and the policies' secretRefs", async () => {
    const creds = (objs: k8s.KubernetesObject[]) =>
      objs.find((o) => o.kind === 'Role' && o.metadata?.name === 'palisade-fence-agent-credentials') as
        | Role
        | undefined;
    expect(
      creds(objectsOf(await renderRbac({ namespace: 'ops' }))),
      'nothing listed: no Role',
    ).toBeUndefined();
    const listed = creds(
      objectsOf(
        await renderRbac({
          namespace: 'ops',
          values: {
            'rbac.fenceAgentCredentials.secretNames': '{rack-a}',
            'fencing.policies.ipmi.agent.type': 'exec',
            'fencing.policies.ipmi.agent.agent': 'fence_ipmilan',
            'fencing.policies.ipmi.agent.secretRefs[0].name': 'bmc',
            'fencing.policies.ipmi.agent.secretRefs[0].key': 'password',
            'fencing.policies.ipmi.agent.secretRefs[0].parameter': '--password',
          },
        }),
      ),
    );
    expect(listed?.metadata?.namespace).toBe('ops');
    expect(listed?.rules).toEqual([
      { apiGroups: [''], resources: ['secrets'], resourceNames: ['bmc', 'rack-a'], verbs: ['get'] },
    ]);
    await expect(
      renderRbac({
        namespace: 'ops',
        values: {
          'fencing.policies.ipmi.agent.type': 'exec',
          'fencing.policies.ipmi.agent.credentialsNamespace': 'elsewhere',
        },
      }),
    ).rejects.toThrow(
      /credentialsNamespace \(elsewhere\) must be rbac.fenceAgentCredentials.namespace \(ops\)/,
    );
  });

  it('keeps the sessions in a namespace of their own, apart from the credentials and the session key', async () => {
    const objs = objectsOf(await renderRbac({ namespace: 'ops' }));
    expect(objs.find((o) => o.kind === 'Namespace')?.metadata?.name).toBe('ops-sessions');
    const sessions = objs.find((o) => o.kind === 'Role' && o.metadata?.name === 'palisade-sessions');
    expect(sessions?.metadata?.namespace).toBe('ops-sessions');
    const key = objs.find((o) => o.kind === 'Role' && o.metadata?.name === 'palisade-session-key') as Role;
    expect(key.metadata?.namespace).toBe('ops');
    expect(key.rules?.find((r) => r.resourceNames)?.resourceNames).toEqual(['palisade-session-key']);
    // a namespace of the user's: used, not created
    const given = objectsOf(
      await renderRbac({
        namespace: 'ops',
        values: { 'console.session.namespace': 'web-sessions', 'console.session.createNamespace': 'false' },
      }),
    );
    expect(given.filter((o) => o.kind === 'Namespace')).toEqual([]);
    expect(given.find((o) => o.metadata?.name === 'palisade-sessions')?.metadata?.namespace).toBe(
      'web-sessions',
    );
    // never where the fence agents' credentials are
    await expect(
      renderRbac({ namespace: 'ops', values: { 'console.session.namespace': 'ops' } }),
    ).rejects.toThrow(
      /console.session.namespace \(ops\) must not be the fence agents' credentials namespace/,
    );
  });
});

/** the roles bound to the ServiceAccount: every ClusterRole and Role but the people's */
function boundRoles(objs: k8s.KubernetesObject[]): Role[] {
  return objs.filter(
    (o) => (o.kind === 'ClusterRole' || o.kind === 'Role') && !PEOPLE.test(o.metadata?.name ?? ''),
  ) as Role[];
}
