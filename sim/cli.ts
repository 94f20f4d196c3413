// `npm run cluster -- [--port N] [--kubeconfig PATH] [--profile NAME]`: start the
// embedded cluster, write its kubeconfig, and run until SIGINT/SIGTERM.
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { type ProfileName, profiles } from './profiles.js';
import { startApiServer } from './apiserver/index.js';

const cliOptions = z.object({
  port: z.coerce
    .number({ error: (i) => `must be an integer between 0 and 65535, got "${String(i.input)}"` })
    .int({ error: (i) => `must be an integer between 0 and 65535, got "${String(i.input)}"` })
    .min(0, { error: 'must be an integer between 0 and 65535' })
    .max(65535, { error: 'must be an integer between 0 and 65535' })
    .default(0),
  kubeconfig: z.string().min(1).default('.palisade/kubeconfig'),
  profile: z
    .string()
    .default('default')
    .refine((p): p is ProfileName => p in profiles, { error: (i) => `unknown profile "${String(i.input)}"` })
    .transform((p) => p as ProfileName),
});

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
  const parsed = cliOptions.safeParse(values);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    usage(`--${String(issue.path[0])}: ${issue.message}`);
  }
  const { port, profile: profileName, kubeconfig } = parsed.data;
  const profile = profiles[profileName];
  const kubeconfigPath = resolve(kubeconfig);
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
