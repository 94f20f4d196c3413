// `npm run cluster -- [--port N] [--kubeconfig PATH] [--profile NAME]`: start the
// embedded cluster, write its kubeconfig, and run until SIGINT/SIGTERM.
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { profiles, type ProfileName } from './profiles.js';
import { startApiServer } from './apiserver/index.js';

function usage(msg: string): never {
  console.error(
    `error: ${msg}\nusage: npm run cluster -- [--port N] [--kubeconfig PATH] [--profile ${Object.keys(profiles).join('|')}]`,
  );
  process.exit(2);
}

async function main() {
  let values: { port?: string; kubeconfig?: string; profile?: string; help?: boolean };
  try {
    ({ values } = parseArgs({
      options: {
        port: { type: 'string' },
        kubeconfig: { type: 'string' },
        profile: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
    }));
  } catch (e) {
    usage((e as Error).message);
  }
  if (values.help) usage('help requested');
  const port = values.port === undefined ? 0 : Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    usage(`--port must be an integer between 0 and 65535, got "${values.port}"`);
  const profileName = (values.profile ?? 'default') as ProfileName;
  const profile = profiles[profileName];
  if (!profile) usage(`unknown profile "${values.profile}"`);
  const kubeconfigPath = resolve(values.kubeconfig ?? '.palisade/kubeconfig');
  const server = await startApiServer({ port, kubeconfigPath, ...profile.apiserver });
  console.log(`embedded cluster ready: ${server.url} (profile ${profileName})`);
  console.log(`kubeconfig: ${kubeconfigPath}`);
  console.log(`try: kubectl --kubeconfig ${kubeconfigPath} get namespaces`);
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`${signal}: stopping embedded cluster`);
    await server.stop();
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
}

main().catch((e) => {
  console.error(`embedded cluster failed to start: ${(e as Error).message}`);
  process.exit(1);
});
