// `npm run nodes -- up [--nodes N] [--zones Z]`: the real-node tier in the foreground until
// Ctrl-C, its kubeconfig written to .palisade/real-nodes.kubeconfig.
// `npm run nodes -- down`: take away what a killed run left (namespaces, links, cgroups).
// `npm run nodes -- leftovers`: list it (exit 1 when there is any).
import { writeFileSync, mkdirSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { leftovers } from './host.js';
import { cleanUp, startRealNodeTier } from './tier.js';

const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: { nodes: { type: 'string', default: '4' }, zones: { type: 'string', default: '2' } },
});
const log = (m: string) => console.log(`[nodes] ${m}`);

async function main() {
  switch (positionals[0] ?? 'up') {
    case 'up': {
      const started = Date.now();
      const tier = await startRealNodeTier({ nodes: Number(values.nodes), zones: Number(values.zones), log });
      mkdirSync('.palisade', { recursive: true });
      writeFileSync('.palisade/real-nodes.kubeconfig', tier.controlPlane.kubeconfig, { mode: 0o600 });
      log(
        `up in ${Math.round((Date.now() - started) / 1000)} s; kubeconfig: .palisade/real-nodes.kubeconfig; Ctrl-C stops it`,
      );
      const stop = async () => {
        log('stopping');
        await tier.stop();
        const left = leftovers();
        log(left.length ? `left behind: ${left.join('; ')}` : 'stopped; nothing left behind');
        process.exit(left.length ? 1 : 0);
      };
      process.on('SIGINT', () => void stop());
      process.on('SIGTERM', () => void stop());
      return;
    }
    case 'down':
      await cleanUp(log);
      log(leftovers().length ? `still left: ${leftovers().join('; ')}` : 'nothing left behind');
      return;
    case 'leftovers': {
      const left = leftovers();
      for (const l of left) console.log(l);
      process.exit(left.length ? 1 : 0);
      return;
    }
    default:
      console.error(`unknown command ${positionals[0]}: up, down or leftovers`);
      process.exit(2);
  }
}

main().catch((e) => {
  console.error(`[nodes] ${e.message}`);
  process.exit(1);
});
