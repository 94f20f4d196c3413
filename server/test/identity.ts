// Whom the tests' Palisade acts as. By default the cluster's admin (the kubeconfig the embedded
// or real cluster wrote); with PALISADE_TEST_IDENTITY=chart the chart's ServiceAccount, with
// only the roles deploy/helm/palisade/templates/rbac/ grants (server/rbac/chart.ts). The tests'
// own setup keeps the admin's kubeconfig either way.
import { writeFile } from 'node:fs/promises';
import * as k8s from '@kubernetes/client-node';
import { chartIdentity } from '../rbac/chart.js';

export const chartIdentityOn = () => process.env.PALISADE_TEST_IDENTITY === 'chart';

/** the KubeConfig Palisade gets in a test */
export async function palisadeKc(admin: k8s.KubeConfig): Promise<k8s.KubeConfig> {
  return chartIdentityOn() ? chartIdentity(admin) : admin;
}

/** the kubeconfig file Palisade gets in a test: `path` itself, or beside it `<path>.palisade` */
export async function palisadeKubeconfig(path: string): Promise<string> {
  if (!chartIdentityOn()) return path;
  const admin = new k8s.KubeConfig();
  admin.loadFromFile(path);
  const out = `${path}.palisade`;
  await writeFile(out, (await chartIdentity(admin)).exportConfig(), { mode: 0o600 });
  return out;
}
