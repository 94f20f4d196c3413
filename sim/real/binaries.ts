// Where the real control plane's binaries are: testenv/build.sh builds them from the pinned
// Go modules into a cache outside the repository (about ten minutes on a cold 2-core
// machine), or answers at once when they are cached. Its progress lines are passed on,
// with a heartbeat while a long compile is quiet.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fromRoot } from '../root.js';

export interface Binaries {
  etcd: string;
  kubeApiserver: string;
  kubeControllerManager: string;
}

const BUILD_SCRIPT = fromRoot('testenv', 'build.sh');
const NEEDED = ['etcd', 'kube-apiserver', 'kube-controller-manager'];

export class BuildError extends Error {}

/** ETCD_BIN_DIR and KUBE_BIN_DIR (as `eval "$(testenv/build.sh)"` sets them), when both hold the binaries */
function fromEnvironment(): Binaries | undefined {
  const { ETCD_BIN_DIR: etcd, KUBE_BIN_DIR: kube } = process.env;
  if (!etcd || !kube) return undefined;
  const bins = {
    etcd: `${etcd}/etcd`,
    kubeApiserver: `${kube}/kube-apiserver`,
    kubeControllerManager: `${kube}/kube-controller-manager`,
  };
  return Object.values(bins).every((f) => existsSync(f)) ? bins : undefined;
}

let built: Promise<Binaries> | undefined;

/** The binaries: from the environment, else testenv/build.sh (once per process). */
export function ensureBinaries(log: (msg: string) => void = () => undefined): Promise<Binaries> {
  const given = fromEnvironment();
  if (given) return Promise.resolve(given);
  built ??= build(NEEDED, log)
    .then((dirs) => ({
      etcd: `${dirs.ETCD_BIN_DIR}/etcd`,
      kubeApiserver: `${dirs.KUBE_BIN_DIR}/kube-apiserver`,
      kubeControllerManager: `${dirs.KUBE_BIN_DIR}/kube-controller-manager`,
    }))
    .catch((e) => {
      built = undefined;
      throw e;
    });
  return built;
}

/**
 * The real-node tier's kubelet and kube-proxy (testenv/nodes/), from the same module as the API
 * server, and kube-scheduler: real nodes' pods are placed by the real scheduler.
 */
export async function ensureNodeBinaries(log: (msg: string) => void = () => undefined) {
  const dirs = await build(['kubelet', 'kube-proxy', 'kube-scheduler'], log);
  return {
    kubelet: `${dirs.KUBE_BIN_DIR}/kubelet`,
    kubeProxy: `${dirs.KUBE_BIN_DIR}/kube-proxy`,
    kubeScheduler: `${dirs.KUBE_BIN_DIR}/kube-scheduler`,
  };
}

async function build(names: string[], log: (msg: string) => void): Promise<Record<string, string>> {
  const child = spawn('bash', [BUILD_SCRIPT, ...names], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderrTail: string[] = [];
  const started = Date.now();
  let lastLine = Date.now();
  child.stdout.on('data', (d) => {
    stdout += d;
  });
  child.stderr.setEncoding('utf8').on('data', (d: string) => {
    for (const line of d.split('\n').filter(Boolean)) {
      lastLine = Date.now();
      stderrTail = [...stderrTail.slice(-20), line];
      log(line);
    }
  });
  const heartbeat = setInterval(() => {
    if (Date.now() - lastLine >= 30_000)
      log(
        `[testenv] still building (${Math.round((Date.now() - started) / 1000)} s so far; ~10 min on a cold 2-core machine)`,
      );
  }, 30_000);
  const code = await new Promise<number>((resolve) => {
    child.once('error', () => resolve(127));
    child.once('exit', (c) => resolve(c ?? 1));
  });
  clearInterval(heartbeat);
  if (code !== 0)
    throw new BuildError(
      `testenv/build.sh failed (exit ${code}); it needs Go >= 1.26 (or curl to fetch it) and the Go module proxy.\n${stderrTail.join('\n')}`,
    );
  const dirs = Object.fromEntries(
    stdout
      .split('\n')
      .map((l) => l.match(/^(\w+)=(.*)$/))
      .filter((m): m is RegExpMatchArray => !!m)
      .map((m) => [m[1], m[2]]),
  );
  if (!dirs.ETCD_BIN_DIR || !dirs.KUBE_BIN_DIR)
    throw new BuildError(`testenv/build.sh printed no ETCD_BIN_DIR/KUBE_BIN_DIR: ${stdout}`);
  return dirs;
}
