// A real Kubernetes control plane on loopback: etcd, kube-apiserver and (unless API-only)
// kube-controller-manager, built from pinned Go modules by testenv/. Throwaway state in a
// temporary folder; the kubeconfig trusts a CA of our own that signed the API server's
// serving certificate, and authenticates with a static token in system:masters.
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type CertificateAuthority, createCertificateAuthority } from '../../lib/pki/certificates.js';
import { kubeconfigYaml, writeKubeconfig } from '../apiserver/kubeconfig.js';
import { type AuthenticationConfigInput, authenticationConfigYaml } from './authConfig.js';
import { authenticationArgs } from './flags.js';
import { type Durations, realDurations } from '../controllers/runtime/durations.js';
import { type Binaries, ensureBinaries } from './binaries.js';
import { type FlagInputs, apiserverArgs, controllerManagerArgs, etcdArgs } from './flags.js';
import { GuardedProcess } from './process.js';
import { freePort } from './ports.js';

export { freePort };

export interface RealControlPlaneOptions {
  /** kube-apiserver's secure port (default: a free one) */
  port?: number;
  kubeconfigPath?: string;
  /** etcd and kube-apiserver only, no kube-controller-manager */
  apiOnly?: boolean;
  durations?: Durations;
  defaultTolerationSeconds?: number;
  binaries?: Binaries;
  log?: (msg: string) => void;
  /** keep the state folder (logs, etcd data) after stop */
  keepState?: boolean;
  /** the kubeconfig's context (and cluster) name; default palisade-embedded, as the embedded one */
  contextName?: string;
  /** more users for kube-apiserver's --token-auth-file (its CSV format), beside the admin token */
  tokenAuthFile?: string;
  /** kube-apiserver's --admission-control-config-file (an AdmissionConfiguration) */
  admissionControlConfigFile?: string;
  /** the cluster's CA (it signs the serving certificate and is the kubeconfig's); default: a new one */
  ca?: CertificateAuthority;
  /** JWT (OpenID Connect) authenticators, written to <state>/authentication-config.yaml */
  authentication?: AuthenticationConfigInput;
  /** where kube-apiserver listens (default 127.0.0.1): the real-node tier's nodes reach it on their bridge */
  bindAddress?: string;
  /** more kube-apiserver flags (the real-node tier's kubelet client certificate) */
  apiserverArgs?: (state: string) => string[];
}

export interface RealControlPlane {
  kind: 'real';
  url: string;
  port: number;
  token: string;
  caPem: string;
  kubeconfig: string;
  kubeconfigPath?: string;
  /** the temporary folder with logs and etcd's data */
  state: string;
  /** etcd's client URL (plain HTTP on loopback), for tests that act below the API */
  etcdUrl: string;
  stop(): Promise<void>;
}

export class ControlPlaneError extends Error {}

/** GET path until it answers 200, or throw with the process's last log lines */
async function waitHealthy(url: string, proc: GuardedProcess, token: string | undefined, timeoutMs = 90_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (!proc.running) throw new ControlPlaneError(`${proc.name} exited during start-up:\n${proc.tail()}`);
    if (await answers200(url, token)) return;
    if (Date.now() > deadline)
      throw new ControlPlaneError(
        `${proc.name} not healthy after ${timeoutMs / 1000} s (${url}):\n${proc.tail()}`,
      );
    await new Promise((r) => setTimeout(r, 200));
  }
}

function answers200(url: string, token?: string): Promise<boolean> {
  return new Promise((resolve) => {
    // the controller manager serves a self-signed certificate of its own
    const get = request(url, {
      rejectUnauthorized: false,
      headers: token ? { authorization: `Bearer ${token}` } : {},
    });
    get.on('response', (r) => {
      r.resume();
      resolve(r.statusCode === 200);
    });
    get.on('error', () => resolve(false));
    get.setTimeout(2_000, () => get.destroy());
    get.end();
  });
}

async function writeSecrets(state: string, token: string, opts: RealControlPlaneOptions) {
  const ca = opts.ca ?? (await createCertificateAuthority('palisade-real-ca'));
  const more = opts.tokenAuthFile ? await readFile(opts.tokenAuthFile, 'utf8') : '';
  const serving = await ca.issueServing('kube-apiserver', [
    ...(opts.bindAddress && opts.bindAddress !== '127.0.0.1' ? [opts.bindAddress] : []),
    '127.0.0.1',
    'localhost',
    'kubernetes',
    'kubernetes.default',
    'kubernetes.default.svc',
    'kubernetes.default.svc.cluster.local',
    '10.96.0.1',
  ]);
  const sa = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  await Promise.all([
    writeFile(join(state, 'ca.crt'), ca.certPem),
    writeFile(join(state, 'serving.crt'), serving.certPem),
    writeFile(join(state, 'serving.key'), serving.keyPem, { mode: 0o600 }),
    writeFile(join(state, 'sa.key'), sa.privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600 }),
    writeFile(join(state, 'sa.pub'), sa.publicKey.export({ type: 'spki', format: 'pem' })),
    writeFile(join(state, 'tokens.csv'), `${token},palisade-admin,palisade-admin,"system:masters"\n${more}`, {
      mode: 0o600,
    }),
  ]);
  return ca.certPem;
}

/** How often a start that lost a free port to another process (EADDRINUSE) is tried again. */
const PORT_RACE_ATTEMPTS = 3;

export async function startRealControlPlane(opts: RealControlPlaneOptions = {}): Promise<RealControlPlane> {
  const log = opts.log ?? (() => undefined);
  const bins = opts.binaries ?? (await ensureBinaries(log));
  // a free port is free when asked, not when etcd or kube-apiserver binds it: with test files
  // starting control planes side by side another process can take it in between; fresh ports
  // then (a port the caller chose is theirs to fix)
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnce(opts, bins, log);
    } catch (e) {
      const raced = e instanceof ControlPlaneError && /address already in use/.test(e.message);
      if (!raced || opts.port || attempt >= PORT_RACE_ATTEMPTS) throw e;
      log(`a port was taken during start-up (attempt ${attempt}): starting again on fresh ports`);
    }
  }
}

async function startOnce(
  opts: RealControlPlaneOptions,
  bins: Binaries,
  log: (m: string) => void,
): Promise<RealControlPlane> {
  const state = await mkdtemp(join(tmpdir(), 'palisade-real-'));
  const token = randomBytes(24).toString('hex');
  const caPem = await writeSecrets(state, token, opts);
  const ports = {
    etcdClient: await freePort(),
    etcdPeer: await freePort(),
    apiserver: opts.port || (await freePort()),
    controllerManager: await freePort(),
  };
  const inputs: FlagInputs = {
    state,
    ports,
    durations: opts.durations ?? realDurations,
    defaultTolerationSeconds: opts.defaultTolerationSeconds ?? 300,
    admissionControlConfigFile: opts.admissionControlConfigFile,
    bindAddress: opts.bindAddress,
  };
  if (opts.authentication) {
    inputs.authenticationConfig = join(state, 'authentication-config.yaml');
    await writeFile(inputs.authenticationConfig, authenticationConfigYaml(opts.authentication));
  }
  const url = `https://${opts.bindAddress ?? '127.0.0.1'}:${ports.apiserver}`;
  const kubeconfig = kubeconfigYaml(url, caPem, token, undefined, opts.contextName);
  await writeKubeconfig(join(state, 'controller-manager.kubeconfig'), kubeconfig);
  const procs: GuardedProcess[] = [];
  const stop = async () => {
    // etcd last: an API server whose etcd is gone takes ~20 s to shut down; the controller
    // manager and the API server stop together (nothing waits for the controller manager)
    const [etcd, ...rest] = procs;
    await Promise.all(rest.map((p) => p.stop()));
    await etcd?.stop();
    if (!opts.keepState) await rm(state, { recursive: true, force: true });
  };
  try {
    const etcd = new GuardedProcess('etcd', bins.etcd, etcdArgs(inputs), state, 5);
    procs.push(etcd);
    await waitEtcd(ports.etcdClient, etcd);
    log(`etcd ready on 127.0.0.1:${ports.etcdClient}`);
    const apiArgs = [
      ...apiserverArgs(inputs),
      ...authenticationArgs(inputs),
      ...(opts.apiserverArgs?.(state) ?? []),
    ];
    const api = new GuardedProcess('kube-apiserver', bins.kubeApiserver, apiArgs, state);
    procs.push(api);
    await waitHealthy(`${url}/readyz`, api, token);
    log(`kube-apiserver ready at ${url}`);
    if (!opts.apiOnly) {
      const kcm = new GuardedProcess(
        'kube-controller-manager',
        bins.kubeControllerManager,
        controllerManagerArgs(inputs),
        state,
      );
      procs.push(kcm);
      await waitHealthy(`https://127.0.0.1:${ports.controllerManager}/healthz`, kcm, token);
      log(`kube-controller-manager running (logs in ${state})`);
    }
  } catch (e) {
    await stop().catch(() => undefined);
    throw e;
  }
  if (opts.kubeconfigPath) await writeKubeconfig(opts.kubeconfigPath, kubeconfig);
  return {
    kind: 'real',
    url,
    port: ports.apiserver,
    token,
    caPem,
    kubeconfig,
    kubeconfigPath: opts.kubeconfigPath,
    state,
    etcdUrl: `http://127.0.0.1:${ports.etcdClient}`,
    stop,
  };
}

async function waitEtcd(port: number, proc: GuardedProcess, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (!proc.running) throw new ControlPlaneError(`etcd exited during start-up:\n${proc.tail()}`);
    const ok = await fetch(`http://127.0.0.1:${port}/health`)
      .then((r) => r.ok)
      .catch(() => false);
    if (ok) return;
    if (Date.now() > deadline)
      throw new ControlPlaneError(`etcd not healthy after ${timeoutMs / 1000} s:\n${proc.tail()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
