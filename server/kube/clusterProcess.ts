// `npm start`'s embedded cluster in a child process (sim/child.ts): started with the same node
// flags as this process (plain node for dist/, tsx's loader for the sources), its progress logged
// here as component "embedded", stopped with SIGTERM (SIGKILL if it has not exited 30 s later).
// If this process dies without stopping it, the IPC channel closes and the child stops itself.
import { type ChildProcess, spawn } from 'node:child_process';
import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ChildMessage, ChildOptions } from '../../sim/child.js';
import { component } from '../log.js';

/** what sim/child.ts takes (its zod schema checks it there); a type only: the image has no sim/ */
export type ClusterProcessOptions = ChildOptions;

export interface ClusterProcess {
  pid: number;
  stop(): Promise<void>;
}

const STOP_GRACE_MS = 30_000;

/** sim/child.ts from server/kube/ in the sources; sim/child.js beside the compiled server/main.js */
function childEntry(): string {
  const compiled = extname(fileURLToPath(import.meta.url)) === '.js';
  return fileURLToPath(new URL(compiled ? '../sim/child.js' : '../../sim/child.ts', import.meta.url));
}

export function startClusterProcess(opts: ClusterProcessOptions): Promise<ClusterProcess> {
  const log = component('embedded', { backend: opts.backend });
  const child = spawn(process.execPath, [...process.execArgv, childEntry(), JSON.stringify(opts)], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  let ready = false;
  let stopping = false;
  return new Promise((resolve, reject) => {
    const failed = (why: string) => {
      if (ready) return;
      child.kill('SIGKILL');
      reject(new Error(`the embedded cluster did not start: ${why}`));
    };
    child.on('message', (m: ChildMessage) => {
      if ('log' in m) log.info(m.log);
      else if ('error' in m) failed(m.error);
      else if (m.ready) {
        ready = true;
        resolve({
          pid: child.pid!,
          stop: () => {
            stopping = true;
            return stopChild(child);
          },
        });
      }
    });
    child.once('error', (e) => failed(e.message));
    child.once('exit', (code, signal) => {
      const how = signal ?? `exit code ${code}`;
      if (!ready) failed(`its process ended (${how})`);
      else if (!stopping)
        log.error(
          { pid: child.pid, how },
          'the embedded cluster process ended: the console has no cluster now',
        );
    });
  });
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const kill = setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS);
    child.once('exit', () => {
      clearTimeout(kill);
      resolve();
    });
    child.kill('SIGTERM');
  });
}
