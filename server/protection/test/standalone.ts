// Deletion protection without a console, for the tests and benchmarks that run it alone: its
// loops added to a controller runtime as startConsole adds them (server/loops.ts), then its
// webhooks registered. startProtectionOn takes a runtime the caller made (and stops); with
// startProtectionAlone the runtime is its own, stopped with the service, which releases its
// Lease so another process takes over at once.
import { Loops } from '../../loops.js';
import { ControllerRuntime } from '../../runtime/runtime.js';
import { type ProtectionService, startProtection } from '../service.js';

type Options = Omit<Parameters<typeof startProtection>[0], 'runtime'>;

/** Protection on the caller's runtime; its stop() takes the loops off, the runtime stays. */
export async function startProtectionOn(
  runtime: ControllerRuntime,
  opts: Options,
): Promise<ProtectionService> {
  const loops = new Loops(runtime);
  let p: ProtectionService | undefined;
  try {
    p = await startProtection({ ...opts, runtime });
    loops.add(p.loops);
    await p.registerWebhooks();
  } catch (e) {
    loops.stop();
    await p?.stop();
    throw e;
  }
  const stop = p.stop.bind(p);
  return Object.assign(p, {
    async stop() {
      loops.stop();
      await stop();
    },
  });
}

/** Protection on a runtime of its own, stopped (its Lease released) with the service. */
export async function startProtectionAlone(opts: Options): Promise<ProtectionService> {
  const runtime = new ControllerRuntime({ logger: opts.logger });
  let p: ProtectionService;
  try {
    p = await startProtectionOn(runtime, opts);
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
