// Everything the bench starts, in one place, so that one stop() ends all of it in
// reverse order whether the run succeeded or not.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from '@playwright/test';
import { kubeconfigYaml } from '../../sim/apiserver/kubeconfig.js';
import { ServerChild } from '../child.js';
import { type ProcReading, readProc } from '../cluster/procfs.js';
import { Client } from '../http.js';
import { ConsoleChild } from './console-child.js';
import type { Heartbeats } from './traffic.js';

export interface Sample {
  console?: ProcReading;
  api?: ProcReading;
}

export class Rig {
  api: ServerChild | undefined;
  console: ConsoleChild | undefined;
  browser: Browser | undefined;
  heartbeats: Heartbeats | undefined;
  readonly samples: Sample[] = [];
  private readonly clients: Client[] = [];
  private readonly dir = mkdtempSync(join(tmpdir(), 'palisade-bench-console-'));
  private sampler: NodeJS.Timeout | undefined;

  constructor(readonly profileDir?: string) {}

  async startApi(): Promise<ServerChild> {
    // only the console is profiled: the API server's own profile is bench/run.ts --profile's
    this.api = await ServerChild.start();
    return this.api;
  }

  client(maxSockets: number): Client {
    const c = new Client(this.api!.endpoint, maxSockets);
    this.clients.push(c);
    return c;
  }

  /** The API server's admin token: the bench signs the console in with it. */
  get token(): string {
    return this.api!.endpoint.token;
  }

  /** The API server's kubeconfig, as the embedded cluster writes it, for the console. */
  kubeconfig(): string {
    const { host, port, ca, token } = this.api!.endpoint;
    const path = join(this.dir, 'kubeconfig');
    writeFileSync(path, kubeconfigYaml(`https://${host}:${port}`, ca, token), { mode: 0o600 });
    return path;
  }

  /** opts: more of main.ts's options and environment (bench:memory gives it palisade.yaml) */
  startConsole(opts?: ConstructorParameters<typeof ConsoleChild>[2]): ConsoleChild {
    this.console = new ConsoleChild(this.kubeconfig(), this.profileDir, opts);
    // /proc is read from here: it answers even when the console's event loop is busy
    this.sampler = setInterval(() => this.samples.push(this.read()), 500);
    return this.console;
  }

  read(): Sample {
    return {
      console: this.console && readProc(this.console.pid),
      api: this.api?.pid ? readProc(this.api.pid) : undefined,
    };
  }

  async stop() {
    clearInterval(this.sampler);
    this.heartbeats?.stop();
    const quietly = (p: Promise<unknown> | undefined) => p?.catch((e) => console.error(`[bench] stop: ${e}`));
    await quietly(this.browser?.close());
    await quietly(this.console?.stop());
    await quietly(this.api?.stop());
    for (const c of this.clients) c.close();
    rmSync(this.dir, { recursive: true, force: true });
  }
}
