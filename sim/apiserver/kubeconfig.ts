// The kubeconfig the embedded cluster writes: one cluster, one admin user with a
// bearer token, one context called palisade-embedded.
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import YAML from 'yaml';

export const CONTEXT_NAME = 'palisade-embedded';

export function kubeconfigYaml(
  server: string,
  caPem: string,
  token: string,
  user = 'palisade-admin',
  context = CONTEXT_NAME,
): string {
  const doc = {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [
      {
        name: context,
        cluster: { server, 'certificate-authority-data': Buffer.from(caPem).toString('base64') },
      },
    ],
    users: [{ name: user, user: { token } }],
    contexts: [{ name: context, context: { cluster: context, user, namespace: 'default' } }],
    'current-context': context,
    preferences: {},
  };
  return YAML.stringify(doc);
}

export async function writeKubeconfig(path: string, content: string) {
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, content, { mode: 0o600 });
}
