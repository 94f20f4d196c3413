// Child side of the bench's IPC: report ready, answer the parent's calls, stop on request,
// and die with the parent.
import type { ChildMessage, Cpu, ParentCall, ReadyInfo } from './protocol.js';

export type Handlers = Record<string, (arg: unknown) => unknown>;

function send(m: ChildMessage) {
  process.send?.(m);
}

export function fail(e: unknown) {
  const message = e instanceof Error ? (e.stack ?? e.message) : String(e);
  send({ type: 'error', message });
  // give the IPC channel a moment to carry the message before dying
  setTimeout(() => process.exit(1), 200);
}

export function cpuNow(): Cpu {
  const u = process.cpuUsage();
  return { userUs: u.user, systemUs: u.system };
}

/** Install the crash handlers before anything starts. */
export function guard() {
  process.on('uncaughtException', fail);
  process.on('unhandledRejection', fail);
  // the parent went away: nobody will ever stop us
  process.on('disconnect', () => process.exit(0));
}

export function serve(info: ReadyInfo, handlers: Handlers, stop: () => Promise<void>) {
  process.on('message', (raw) => {
    const m = raw as ParentCall;
    if (m.type !== 'call') return;
    if (m.op === 'stop') {
      void stop()
        .catch(() => undefined)
        .finally(() => process.exit(0));
      return;
    }
    const h = handlers[m.op];
    if (!h) return send({ type: 'reply', id: m.id, ok: false, error: `unknown call ${m.op}` });
    Promise.resolve()
      .then(() => h(m.arg))
      .then(
        (value) => send({ type: 'reply', id: m.id, ok: true, value: value ?? null }),
        (e: Error) => send({ type: 'reply', id: m.id, ok: false, error: e.stack ?? e.message }),
      );
  });
  send({ type: 'ready', info });
}
