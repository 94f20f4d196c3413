// `npm run cluster -- [--port N] [--kubeconfig PATH] [--profile demo|tiny|scale] [--scenario FILE] [--api-only]`:
// start the embedded cluster, write its kubeconfig (and infra.json beside it), and
// run until SIGINT/SIGTERM.
import { resolve } from 'node:path';
import { z } from 'zod';
import { parseCommandLine, portOption } from '../lib/cli.js';
import { startApiServer } from './apiserver/index.js';
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
});

function usage(msg: string): never {
  console.error(
    `error: ${msg}\nusage: npm run cluster -- [--port N] [--kubeconfig PATH] [--profile ${builtinProfiles.join('|')}] [--scenario FILE] [--api-only]`,
  );
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
    },
    cliOptions,
  );
  if (!cli.ok) usage(cli.error);
  if (cli.help) usage('help requested');
  return cli.options;
}

async function main() {
  const opts = parse();
  const kubeconfigPath = resolve(opts.kubeconfig);
  let stop: () => Promise<void>;
  if (opts['api-only']) {
    const server = await startApiServer({ port: opts.port, kubeconfigPath });
    console.log(`embedded API server ready (no nodes, no controllers): ${server.url}`);
    stop = () => server.stop();
  } else {
    const scenario = await loadScenario(opts.scenario ?? opts.profile);
    const cluster = await startEmbeddedCluster({
      scenario,
      port: opts.port,
      kubeconfigPath,
      log: (m) => console.log(`  ${m}`),
    });
    console.log(`embedded cluster ready: ${cluster.apiserver.url} (scenario ${scenario.name})`);
    console.log(`infrastructure control API: ${cluster.infraApi.url} (token in ${cluster.infraFile})`);
    stop = () => cluster.stop();
  }
  console.log(`kubeconfig: ${kubeconfigPath}`);
  console.log(`try: kubectl --kubeconfig ${kubeconfigPath} get nodes   |   npm run infra -- status`);
  let stopping = false;
  const onSignal = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`${signal}: stopping embedded cluster`);
    await stop();
    process.exit(0);
  };
  process.on('SIGINT', () => void onSignal('SIGINT'));
  process.on('SIGTERM', () => void onSignal('SIGTERM'));
}

main().catch((e) => {
  console.error(`embedded cluster failed to start: ${(e as Error).message}`);
  process.exit(1);
});
