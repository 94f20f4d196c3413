// `npm run cluster -- [--real] [--port N] [--kubeconfig PATH] [--context NAME] [--profile demo|tiny|scale] [--scenario FILE] [--api-only] [--service-host NAME.NS.svc=HOST:PORT]...`:
// start the embedded cluster (--real: its simulated nodes and infrastructure on a real etcd,
// kube-apiserver and kube-controller-manager built by testenv/), write its kubeconfig (and infra.json beside it), and
// run until SIGINT/SIGTERM. --context names the kubeconfig's context (and its cluster and
// user), so that several clusters' kubeconfigs merge: KUBECONFIG=core:cell-a:cell-b.
// --service-host (embedded API server only; repeatable): where the API server reaches a Service
// that a webhook configuration names (clientConfig.service), as a cluster's Service routing
// would — e.g. palisade-webhook.palisade-system.svc=127.0.0.1:8443 for the chart's webhooks.
import { mkdir, readFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import YAML from 'yaml';
import { z } from 'zod';
import { type KubeconfigDoc, renameSingleContext } from '../lib/kube/kubeconfigDoc.js';
import { createCertificateAuthority } from '../lib/pki/certificates.js';
import { writeWebhookClientConfig } from './apiserver/admission/clientCertificate.js';
import { writeKubeconfig } from './apiserver/kubeconfig.js';
import { parseCommandLine, portOption } from '../lib/cli.js';
import { startApiServer } from './apiserver/index.js';
import { startRealControlPlane } from './real/controlPlane.js';
import { startEmbeddedCluster } from './cluster.js';
import { builtinProfiles, loadScenario } from './scenario/load.js';

const cliOptions = z.object({
  port: portOption(0),
  kubeconfig: z.string().min(1).default('.palisade/kubeconfig'),
  profile: z
    .enum(builtinProfiles, {
      error: (i) => `unknown profile "${String(i.input)}" (profiles: ${builtinProfiles.join(', ')})`,
    })
    .default('demo'),
  scenario: z.string().min(1).optional(),
  'api-only': z.boolean().default(false),
  real: z.boolean().default(false),
  context: z
    .string()
    .regex(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/, { error: 'must be a lowercase DNS label' })
    .optional(),
  'service-host': z
    .array(
      z
        .string()
        .regex(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?\.[a-z0-9]([-a-z0-9]*[a-z0-9])?\.svc=[^=\s]+:\d{1,5}$/, {
          error: 'must be NAME.NAMESPACE.svc=HOST:PORT',
        }),
    )
    .default([]),
});

const USAGE_LINE = `usage: npm run cluster -- [--real] [--port N] [--kubeconfig PATH] [--context NAME] [--profile ${builtinProfiles.join('|')}] [--scenario FILE] [--api-only] [--service-host NAME.NS.svc=HOST:PORT]...`;

/** Give the written kubeconfig's one context (its cluster and user too) the chosen name. */
async function renameContext(kubeconfigPath: string, context: string) {
  const doc = YAML.parse(await readFile(kubeconfigPath, 'utf8')) as KubeconfigDoc;
  await writeKubeconfig(kubeconfigPath, YAML.stringify(renameSingleContext(doc, context)));
}

function usage(msg: string): never {
  console.error(`error: ${msg}\n${USAGE_LINE}`);
  process.exit(2);
}

function parse() {
  const cli = parseCommandLine(
    process.argv.slice(2),
    {
      port: { type: 'string' },
      kubeconfig: { type: 'string' },
      profile: { type: 'string' },
      scenario: { type: 'string' },
      'api-only': { type: 'boolean' },
      real: { type: 'boolean' },
      context: { type: 'string' },
      'service-host': { type: 'string', multiple: true },
    },
    cliOptions,
  );
  if (!cli.ok) usage(cli.error);
  if (cli.help) usage('help requested');
  return cli.options;
}

async function main() {
  const opts = parse();
  const serviceHosts = Object.fromEntries(opts['service-host'].map((s) => s.split('=') as [string, string]));
  if (opts.real && opts['service-host'].length)
    usage('--service-host: only the embedded API server routes Services this way, not --real');
  const kubeconfigPath = resolve(opts.kubeconfig);
  let stop: () => Promise<void>;
  const backend = opts.real ? 'real' : 'embedded';
  const what = opts.real ? 'real control plane' : 'embedded cluster';
  // an API server alone presents its webhook client certificate too (CN kube-apiserver-webhook-
  // client, signed by the kubeconfig's CA), as startEmbeddedCluster's does: webhooks that trust
  // only the cluster's API servers (Palisade's, by default) keep hearing it
  const apiOnlyAuth = async (caName: string) => {
    const ca = await createCertificateAuthority(caName);
    await mkdir(dirname(kubeconfigPath), { recursive: true });
    const client = await writeWebhookClientConfig(dirname(kubeconfigPath), ca);
    return { ca, admissionControlConfigFile: client.admissionConfigFile };
  };
  if (opts['api-only'] && opts.real) {
    const server = await startRealControlPlane({
      port: opts.port,
      kubeconfigPath,
      apiOnly: true,
      log: (m) => console.log(`  ${m}`),
      ...(await apiOnlyAuth('palisade-real-ca')),
    });
    console.log(`real API server ready (etcd + kube-apiserver; no nodes, no controllers): ${server.url}`);
    console.log(`  logs: ${server.state}`);
    stop = () => server.stop();
  } else if (opts['api-only']) {
    const server = await startApiServer({
      port: opts.port,
      kubeconfigPath,
      serviceHosts,
      ...(await apiOnlyAuth('palisade-embedded-ca')),
    });
    console.log(`embedded API server ready (no nodes, no controllers): ${server.url}`);
    stop = () => server.stop();
  } else {
    const scenario = await loadScenario(opts.scenario ?? opts.profile);
    const cluster = await startEmbeddedCluster({
      scenario,
      backend,
      port: opts.port,
      kubeconfigPath,
      serviceHosts,
      // a named context's infrastructure file is infra-<context>.json, so that several lie side by side
      infraFile: opts.context ? join(dirname(kubeconfigPath), `infra-${opts.context}.json`) : undefined,
      log: (m) => console.log(`  ${m}`),
    });
    console.log(`${what} ready: ${cluster.apiserver.url} (scenario ${scenario.name})`);
    if ('state' in cluster.apiserver) console.log(`  control-plane logs: ${cluster.apiserver.state}`);
    console.log(`infrastructure control API: ${cluster.infraApi.url} (token in ${cluster.infraFile})`);
    stop = () => cluster.stop();
  }
  if (opts.context) await renameContext(kubeconfigPath, opts.context);
  console.log(`kubeconfig: ${kubeconfigPath}${opts.context ? ` (context ${opts.context})` : ''}`);
  console.log(`try: kubectl --kubeconfig ${kubeconfigPath} get nodes   |   npm run infra -- status`);
  let stopping = false;
  const onSignal = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`${signal}: stopping ${what}`);
    await stop();
    process.exit(0);
  };
  process.on('SIGINT', () => void onSignal('SIGINT'));
  process.on('SIGTERM', () => void onSignal('SIGTERM'));
}

main().catch((e) => {
  console.error(`cluster failed to start: ${(e as Error).message}`);
  process.exit(1);
});
