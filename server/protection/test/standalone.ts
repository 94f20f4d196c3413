// Deletion protection without a console, for the tests and benchmarks that run it alone: a
// controller runtime of its own (startProtection takes the console's), stopped with the service,
// which releases its Lease so another process takes over at once.
import { ControllerRuntime } from '../../runtime/runtime.js';
import { type ProtectionService, startProtection } from '../service.js';

type Options = Omit<Parameters<typeof startProtection>[0], 'runtime'>;

export async function startProtectionAlone(opts: Options): Promise<ProtectionService> {
  const runtime = new ControllerRuntime({ logger: opts.logger });
  let p: ProtectionService;
  try {
    p = await startProtection({ ...opts, runtime });
  } catch (e) {
    await runtime.stop();
    throw e;
  }
  const stop = p.stop.bind(p);
  return Object.assign(p, {
    async stop() {
      await stop();
      await runtime.stop();
    },
  });
}
