// The chart's RBAC as rendered: the people's roles are those of deploy/rbac/palisade-roles.yaml
// (which the embedded cluster installs), every rule of Palisade's own roles carries a comment
// saying why, and the values that narrow a grant do narrow it.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type * as k8s from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { CHART_DIR, objectsOf, renderRbac } from './chart.js';

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

  it('grants no wildcard, no escalate/bind, no Secret outside named namespaces', async () => {
    const objs = objectsOf(await renderRbac({ namespace: 'ops' }));
    for (const r of objs.filter((o) => o.kind === 'ClusterRole' || o.kind === 'Role') as Role[]) {
      for (const rule of r.rules ?? []) {
        expect([...(rule.verbs ?? []), ...(rule.resources ?? []), ...(rule.apiGroups ?? [])]).not.toContain(
          '*',
        );
        expect(rule.verbs).not.toContain('escalate');
        expect(rule.verbs).not.toContain('bind');
        if (r.kind === 'ClusterRole') expect(rule.resources).not.toContain('secrets');
      }
    }
  });

  it('impersonates only the configured groups, and none when none are configured', async () => {
    const imp = (objs: k8s.KubernetesObject[]) =>
      (objs.find((o) => o.metadata?.name === 'palisade-ops-impersonation') as Role).rules ?? [];
    const none = imp(objectsOf(await renderRbac({ namespace: 'ops' })));
    expect(none).toEqual([{ apiGroups: [''], resources: ['users'], verbs: ['impersonate'] }]);
    const some = imp(
      objectsOf(
        await renderRbac({
          namespace: 'ops',
          values: { 'rbac.impersonation.groups': '{sre,db-oncall}' },
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
});
