// Parent side of the bench's children: fork one (TypeScript through tsx), wait for its
// ready message, call it by id, and make sure it dies with the bench however the bench ends.
import { type ChildProcess, fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { killOnExit } from '../cluster/session.js';
import type { ChildMessage, ParentCall, ReadyInfo } from './protocol.js';

const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
const STDERR_TAIL = 30;

export class Child {
  private nextId = 1;
  private readonly waiting = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  private readonly tail: string[] = [];
  private ready: ((info: ReadyInfo) => void) | undefined;
  private failed: ((e: Error) => void) | undefined;
  exited = false;

  private constructor(
    readonly name: string,
    private readonly proc: ChildProcess,
  ) {
    proc.on('message', (m) => this.onMessage(m as ChildMessage));
    proc.on('exit', (code, signal) => {
      this.exited = true;
      const e = new Error(`${name} child exited (code ${code}, signal ${signal})\n${this.tail.join('\n')}`);
      this.failed?.(e);
      for (const w of this.waiting.values()) w.reject(e);
      this.waiting.clear();
    });
    for (const s of [proc.stdout, proc.stderr])
      s?.on('data', (c: Buffer) => {
        for (const line of c.toString().split('\n')) if (line.trim()) this.tail.push(line);
        this.tail.splice(0, Math.max(0, this.tail.length - STDERR_TAIL));
      });
  }

  /** Fork bench/protection/<script> with args; resolves once it reported ready. */
  static async start(name: string, script: string, args: string[], timeoutMs = 90_000) {
    const proc = fork(fileURLToPath(new URL(`./${script}`, import.meta.url)), args, {
      cwd: repoRoot,
      execArgv: ['--import', 'tsx'],
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    });
    killOnExit(proc);
    const child = new Child(name, proc);
    const info = await new Promise<ReadyInfo>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`${name} child not ready in ${timeoutMs} ms`)),
        timeoutMs,
      );
      child.ready = (i) => {
        clearTimeout(timer);
        resolve(i);
      };
      child.failed = (e) => {
        clearTimeout(timer);
        reject(e);
      };
    });
    child.failed = undefined;
    return { child, info };
  }

  get pid(): number {
    return this.proc.pid ?? 0;
  }

  /** A recent line of its output, for error messages. */
  get output(): string {
    return this.tail.join('\n');
  }

  private onMessage(m: ChildMessage) {
    if (m.type === 'ready') this.ready?.(m.info);
    else if (m.type === 'error') this.failed?.(new Error(`${this.name} child: ${m.message}`));
    else if (m.type === 'reply') {
      const w = this.waiting.get(m.id);
      this.waiting.delete(m.id);
      if (m.ok) w?.resolve(m.value);
      else w?.reject(new Error(`${this.name} child: ${m.error}`));
    }
  }

  call<T>(op: string, arg?: unknown, timeoutMs = 60_000): Promise<T> {
    if (this.exited) return Promise.reject(new Error(`${this.name} child is gone`));
    const id = this.nextId++;
    const msg: ParentCall = { type: 'call', id, op, arg };
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiting.delete(id);
        reject(new Error(`${this.name} child: no answer to ${op} in ${timeoutMs} ms`));
      }, timeoutMs);
      this.waiting.set(id, {
        resolve: (v) => {
          clearTimeout(timer);
          resolve(v as T);
        },
        reject: (e) => {
          clearTimeout(timer);
          reject(e);
        },
      });
      this.proc.send(msg);
    });
  }

  /** Ask it to stop cleanly; kill it if it does not within graceMs. */
  async stop(graceMs = 5_000) {
    if (this.exited) return;
    const gone = new Promise<void>((r) => this.proc.once('exit', () => r()));
    this.call('stop', undefined, graceMs).catch(() => undefined);
    const timer = setTimeout(() => this.proc.kill('SIGKILL'), graceMs);
    await gone;
    clearTimeout(timer);
  }
}
