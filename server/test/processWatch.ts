// What a fuzz run must leave the process as it found it: no unhandled rejection, no uncaught
// exception (seen, not swallowed: uncaughtExceptionMonitor), and Object.prototype untouched
// (no key added by a "__proto__" that reached a merge). Shared by the fuzz suites.
import { expect } from 'vitest';

export interface ProcessWatch {
  start(): void;
  stop(): void;
  /** the assertions a fuzz suite ends with */
  expectClean(): void;
}

export function watchProcess(): ProcessWatch {
  const unhandled: unknown[] = [];
  const uncaught: unknown[] = [];
  const onUnhandled = (e: unknown) => unhandled.push(e);
  const onUncaught = (e: unknown) => uncaught.push(e);
  let prototypeKeys: string[] = [];
  return {
    start() {
      prototypeKeys = Object.getOwnPropertyNames(Object.prototype).sort();
      process.on('unhandledRejection', onUnhandled);
      process.on('uncaughtExceptionMonitor', onUncaught);
    },
    stop() {
      process.off('unhandledRejection', onUnhandled);
      process.off('uncaughtExceptionMonitor', onUncaught);
    },
    expectClean() {
      expect(unhandled.map((e) => (e instanceof Error ? e.stack : String(e)))).toEqual([]);
      expect(uncaught.map((e) => (e instanceof Error ? e.stack : String(e)))).toEqual([]);
      expect(Object.getOwnPropertyNames(Object.prototype).sort()).toEqual(prototypeKeys);
      expect(({} as { polluted?: unknown }).polluted).toBeUndefined();
    },
  };
}
