// `npm run test:image` (after scripts/image/build.sh): the image, run as a pod would run it.
//
// Unpacks dist/palisade-<version>.oci.tar (its layers in order, digests checked), then runs the image's entrypoint and cmd
// (from its config, with its Env, WorkingDir and User) under chroot in a mount namespace of its
// own: the root file system mounted read-only, a tmpfs at /tmp (the chart's emptyDir), /proc,
// /sys read-only, a /dev of the usual device nodes, and a ServiceAccount mounted at
// /var/run/secrets/kubernetes.io/serviceaccount — a token (TokenRequest) for a ServiceAccount
// of the embedded cluster, its CA and namespace — with KUBERNETES_SERVICE_HOST/PORT pointing
// at the embedded API server. Passes when /readyz answers 200 (with a pod IP in Host, as the
// kubelet asks), the log says it chose the in-cluster configuration, and a UI page renders;
// before that, fence_ipmilan and ipmitool run in the image, and with neither a kubeconfig nor a
// ServiceAccount the entrypoint refuses to start, saying why.
// On failure it prints the process's output. Needs root (mount namespaces, chroot).
//
//   tsx scripts/image/test.ts [dist/palisade-<version>.oci.tar]
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  createReadStream,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import * as k8s from '@kubernetes/client-node';

const root = resolve(import.meta.dirname, '../..');
const version = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).version as string;
const archive = resolve(process.argv[2] ?? join(root, `dist/palisade-${version}.oci.tar`));
const READY_TIMEOUT_MS = Number(process.env.PALISADE_IMAGE_READY_TIMEOUT_MS ?? 240_000);
const SA_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';

const started = Date.now();
const say = (m: string) => console.log(`[test:image] ${((Date.now() - started) / 1000).toFixed(1)}s ${m}`);
const children: ChildProcess[] = [];
let work = '';

function fail(message: string, output?: string, whose = "the image's"): never {
  if (output !== undefined) console.error(`--- ${whose} output ---\n${output}\n--- end of output ---`);
  console.error(`[test:image] FAILED: ${message}`);
  console.log('image: 0 passed, 1 failed');
  cleanup();
  process.exit(1);
}

function cleanup() {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  // the mounts live in the child's own namespace: gone with it, so the tree is plain files
  if (work) rmSync(work, { recursive: true, force: true });
}

async function until<T>(
  what: string,
  ms: number,
  f: () => Promise<T | undefined> | T | undefined,
  output?: () => string,
  whose?: string,
) {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await f();
    if (v !== undefined) return v;
    if (Date.now() > deadline) fail(`${what}: not within ${ms / 1000}s`, output?.(), whose);
    await new Promise((r) => setTimeout(r, 250));
  }
}

function freePort(): Promise<number> {
  return new Promise((r, j) => {
    const s = net.createServer();
    s.once('error', j);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => r(port));
    });
  });
}

interface ImageConfig {
  User?: string;
  WorkingDir?: string;
  Env?: string[];
  Entrypoint?: string[];
  Cmd?: string[];
}

interface Descriptor {
  digest: string;
  size: number;
}

/** The image's manifest and config, read from the layout the way a runtime does: index, manifest, config. */
function readImage(layout: string): { layers: Descriptor[]; diffIds: string[]; config: ImageConfig } {
  const blob = (digest: string) => JSON.parse(readFileSync(blobPath(layout, digest), 'utf8'));
  const index = JSON.parse(readFileSync(join(layout, 'index.json'), 'utf8'));
  const desc = index.manifests.find(
    (m: { annotations?: Record<string, string> }) =>
      m.annotations?.['org.opencontainers.image.ref.name'] === version,
  );
  if (!desc) fail(`the archive's index names no image "${version}"`);
  const manifest = blob(desc.digest);
  const config = blob(manifest.config.digest);
  return { layers: manifest.layers, diffIds: config.rootfs.diff_ids, config: config.config };
}

const blobPath = (layout: string, digest: string) => join(layout, 'blobs', ...digest.split(':'));

/**
 * Apply the layers in order, as a runtime does, checking each blob's digest and its uncompressed
 * digest (the config's diff_id) on the way (tar reads to the end, past the archive's end
 * marker, so every byte is hashed). Whiteouts (.wh.*) are refused: the build makes none.
 * (umoci unpack does the same, several times slower on this machine.)
 */
async function unpack(layout: string, layers: Descriptor[], diffIds: string[], rootfs: string) {
  mkdirSync(rootfs, { recursive: true });
  for (const [i, layer] of layers.entries()) {
    const compressed = createHash('sha256');
    const plain = createHash('sha256');
    const tar = spawn(
      'tar',
      ['-x', '--ignore-zeros', '--numeric-owner', '--same-permissions', '-C', rootfs],
      {
        stdio: ['pipe', 'inherit', 'inherit'],
      },
    );
    const exited = new Promise<number | null>((r) => tar.once('exit', r));
    await pipeline(
      createReadStream(blobPath(layout, layer.digest)),
      new Transform({
        transform(chunk, _e, cb) {
          compressed.update(chunk);
          cb(null, chunk);
        },
      }),
      createGunzip(),
      new Transform({
        transform(chunk, _e, cb) {
          plain.update(chunk);
          cb(null, chunk);
        },
      }),
      tar.stdin!,
    );
    if ((await exited) !== 0) fail(`layer ${i + 1}: tar failed`);
    if (`sha256:${compressed.digest('hex')}` !== layer.digest)
      fail(`layer ${i + 1}: its blob is not ${layer.digest}`);
    if (`sha256:${plain.digest('hex')}` !== diffIds[i])
      fail(`layer ${i + 1}: not the config's diff_id ${diffIds[i]}`);
  }
  const whiteouts = execFileSync('find', [rootfs, '-name', '.wh.*', '-print', '-quit'], { encoding: 'utf8' });
  if (whiteouts) fail(`a whiteout in the image (${whiteouts.trim()}): this test's unpacker applies none`);
}

async function main() {
  if (process.getuid?.() !== 0) fail('needs root (a mount namespace and chroot)');
  if (!existsSync(archive)) fail(`no image at ${archive}: run npm run image first`);
  work = mkdtempSync(join(tmpdir(), 'palisade-image-test-'));
  process.on('SIGINT', () => fail('interrupted'));

  // 1. the embedded cluster, started first (it takes a while), and a ServiceAccount token for Palisade
  const clusterDir = join(work, 'cluster');
  const kubeconfigPath = join(clusterDir, 'kubeconfig');
  mkdirSync(clusterDir);
  const cluster = spawn(
    process.execPath,
    ['--import', 'tsx', 'sim/cli.ts', '--profile', 'tiny', '--port', '0', '--kubeconfig', kubeconfigPath],
    { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  children.push(cluster);
  let clusterOut = '';
  cluster.stdout!.on('data', (d) => (clusterOut += d));
  cluster.stderr!.on('data', (d) => (clusterOut += d));
  // 2. unpack, meanwhile: the archive is an OCI image layout; its layers applied as a runtime would
  const layout = join(work, 'layout');
  mkdirSync(layout);
  execFileSync('tar', ['-xf', archive, '-C', layout]);
  const { layers, diffIds, config } = readImage(layout);
  const rootfs = join(work, 'rootfs');
  await unpack(layout, layers, diffIds, rootfs);
  say(`unpacked ${archive}: ${layers.length} layers, digests checked`);

  await until(
    'the embedded cluster',
    120_000,
    () => {
      if (cluster.exitCode !== null)
        fail('the embedded cluster exited', clusterOut, "the embedded cluster's");
      return clusterOut.includes(`kubeconfig: ${kubeconfigPath}`) ? true : undefined;
    },
    () => clusterOut,
    "the embedded cluster's",
  );
  const kc = new k8s.KubeConfig();
  kc.loadFromFile(kubeconfigPath);
  const server = new URL(kc.getCurrentCluster()!.server);
  const caPem = Buffer.from(kc.getCurrentCluster()!.caData!, 'base64').toString('utf8');
  say(`embedded cluster at ${server.origin}`);
  const namespace = 'palisade';
  const core = kc.makeApiClient(k8s.CoreV1Api);
  await core.createNamespace({ body: { metadata: { name: namespace } } });
  await core.createNamespacedServiceAccount({ namespace, body: { metadata: { name: 'palisade' } } });
  await kc.makeApiClient(k8s.RbacAuthorizationV1Api).createClusterRoleBinding({
    body: {
      metadata: { name: 'palisade-image-test' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' },
      subjects: [{ kind: 'ServiceAccount', name: 'palisade', namespace }],
    },
  });
  const tr = await core.createNamespacedServiceAccountToken({
    name: 'palisade',
    namespace,
    body: { spec: { audiences: [], expirationSeconds: 3600 } },
  });
  const sa = join(work, 'serviceaccount');
  mkdirSync(sa);
  writeFileSync(join(sa, 'token'), tr.status!.token);
  writeFileSync(join(sa, 'ca.crt'), caPem);
  writeFileSync(join(sa, 'namespace'), namespace);
  execFileSync('chmod', ['-R', 'a+rX', sa]);
  say('ServiceAccount palisade/palisade with a token (TokenRequest)');

  // 3. the image's entrypoint and cmd, as uid 65532 on a read-only root with a tmpfs at /tmp
  const port = await freePort();
  // a runtime makes the mount points the pod spec names; the root is read-only once mounted.
  // /var/run is a link to /run: resolved here on the host, it would lead out of the root
  const saInRoot = SA_DIR.replace(/^\/var\/run\//, '/run/');
  mkdirSync(join(rootfs, saInRoot), { recursive: true });
  const [uid, gid] = (config.User ?? '0:0').split(':');
  const inCluster = [`KUBERNETES_SERVICE_HOST=${server.hostname}`, `KUBERNETES_SERVICE_PORT=${server.port}`];
  // the image's cmd, then the port and host the test can use (parseArgs: the last one wins)
  const argv = [
    ...(config.Entrypoint ?? []),
    ...(config.Cmd ?? []),
    '--host',
    '127.0.0.1',
    '--port',
    String(port),
  ];
  const q = (s: string) => `'${s.replaceAll("'", "'\\''")}'`;
  const R = q(rootfs);
  /** The image's process in a mount namespace of its own: what a runtime and a pod spec give it. */
  const run = (pod: { serviceAccount: boolean; env: string[]; argv?: string[] }) => {
    const script = [
      'set -eu',
      `mount --bind ${R} ${R}`,
      `mount -o remount,bind,ro ${R}`,
      `mount -t tmpfs -o mode=1777,size=256m,nodev,nosuid tmpfs ${R}/tmp`,
      `mount -t proc -o nosuid,nodev,noexec proc ${R}/proc`,
      `mount --rbind /sys ${R}/sys && mount -o remount,bind,ro ${R}/sys`,
      `mount -t tmpfs -o mode=755,size=64k,nosuid tmpfs ${R}/dev`,
      ...['null', 'zero', 'full', 'random', 'urandom'].map(
        (d) => `touch ${R}/dev/${d} && mount --bind /dev/${d} ${R}/dev/${d}`,
      ),
      `ln -s /proc/self/fd ${R}/dev/fd && ln -s fd/0 ${R}/dev/stdin && ln -s fd/1 ${R}/dev/stdout && ln -s fd/2 ${R}/dev/stderr`,
      ...(pod.serviceAccount
        ? [`mount --bind ${q(sa)} ${R}${saInRoot} && mount -o remount,bind,ro ${R}${saInRoot}`]
        : []),
      `exec chroot --userspec=${uid}:${gid} --groups=${gid} ${R} /usr/bin/env -i -C ${q(config.WorkingDir ?? '/')} ${[...(config.Env ?? []), ...pod.env].map(q).join(' ')} ${(pod.argv ?? argv).map(q).join(' ')}`,
    ].join('\n');
    const child = spawn('unshare', ['--mount', '--propagation', 'private', '--', 'sh', '-c', script], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(child);
    const output = { text: '' };
    child.stdout!.on('data', (d) => (output.text += d));
    child.stderr!.on('data', (d) => (output.text += d));
    return { child, output };
  };

  // the exec fence agents, as Palisade runs them: fence_ipmilan (Python) and the ipmitool it calls
  const exits = (r: ReturnType<typeof run>) =>
    new Promise<number | null>((resolve) => r.child.once('exit', resolve));
  const agent = run({
    serviceAccount: false,
    env: ['PYTHONWARNINGS=ignore::DeprecationWarning'],
    argv: ['/usr/sbin/fence_ipmilan', '-o', 'metadata'],
  });
  if ((await exits(agent)) !== 0 || !/<resource-agent name="fence_ipmilan"/.test(agent.output.text))
    fail('fence_ipmilan -o metadata in the image', agent.output.text, "fence_ipmilan's");
  const ipmitool = run({ serviceAccount: false, env: [], argv: ['/usr/bin/ipmitool', '-V'] });
  if ((await exits(ipmitool)) !== 0 || !/ipmitool version/.test(ipmitool.output.text))
    fail('ipmitool -V in the image', ipmitool.output.text, "ipmitool's");
  say('fence_ipmilan and ipmitool run in the image');

  // outside a pod, with no kubeconfig: a clear refusal, not a stack trace (sim/ is not in the image)
  const bare = run({ serviceAccount: false, env: [] });
  const bareCode = await new Promise<number | null>((r) => bare.child.once('exit', r));
  if (
    bareCode !== 1 ||
    !/Palisade failed to start: no kubeconfig was given and this installation has no embedded cluster/.test(
      bare.output.text,
    )
  )
    fail(`without a kubeconfig or a ServiceAccount: exit ${bareCode}, not the refusal`, bare.output.text);
  say('without a kubeconfig or a ServiceAccount: refuses to start, saying why');

  const { child: app, output } = run({ serviceAccount: true, env: inCluster });
  const startedApp = Date.now();
  say(`started ${argv.join(' ')} as ${uid}:${gid} (read-only root, tmpfs /tmp)`);

  const get = async (path: string, host?: string) => {
    try {
      const res = await fetch(`http://127.0.0.1:${port}${path}`, {
        headers: host ? { host } : {},
        redirect: 'manual',
        signal: AbortSignal.timeout(5_000),
      });
      return { status: res.status, text: await res.text() };
    } catch {
      return undefined;
    }
  };
  await until(
    '/readyz 200',
    READY_TIMEOUT_MS,
    async () => {
      if (app.exitCode !== null)
        fail(`the image's process exited with ${app.exitCode} before it was ready`, output.text);
      const r = await get('/readyz');
      return r?.status === 200 ? r : undefined;
    },
    () => output.text,
  );
  const readyMs = Date.now() - startedApp;
  say(`/readyz 200 after ${(readyMs / 1000).toFixed(1)}s`);

  // 4. what a pod's user would notice
  const probe = await get('/readyz', '10.244.0.7:3000');
  if (probe?.status !== 200)
    fail(`/readyz with the pod IP in Host (the kubelet's probe): ${probe?.status}`, output.text);
  if (!/configuration: in-cluster/.test(output.text))
    fail('the log does not say it chose the in-cluster configuration', output.text);
  if (!/"context":"in-cluster"/.test(output.text)) fail('the log names no cluster in-cluster', output.text);
  const page = await get('/signin');
  if (page?.status !== 200 || !/<html/i.test(page.text))
    fail(`the sign-in page: ${page?.status}`, output.text);
  if (/EROFS|read-only file system/i.test(output.text))
    fail('something tried to write outside /tmp', output.text);
  // the process's own view: / read-only, /tmp a writable tmpfs (mountinfo: mount point, options)
  const mounts = readFileSync(`/proc/${app.pid}/mountinfo`, 'utf8')
    .split('\n')
    .map((l) => l.split(' '))
    .filter((f) => f.length > 5);
  const optionsOf = (point: string) => mounts.findLast((f) => f[4] === point)?.[5].split(',') ?? [];
  if (!optionsOf('/').includes('ro')) fail(`the root is not read-only: ${optionsOf('/')}`, output.text);
  if (!optionsOf('/tmp').includes('rw')) fail(`/tmp is not writable: ${optionsOf('/tmp')}`, output.text);
  const status = readFileSync(`/proc/${app.pid}/status`, 'utf8');
  if (!/^Uid:\s+65532\s/m.test(status))
    fail(`not running as 65532: ${status.match(/^Uid:.*$/m)?.[0]}`, output.text);
  say('the kubelet-style probe, the in-cluster log line, the sign-in page, a read-only root, uid 65532: ok');

  // 5. stop as the kubelet does
  const exited = new Promise<number | null>((r) => app.once('exit', (code) => r(code)));
  app.kill('SIGTERM');
  const code = await Promise.race([exited, new Promise<'late'>((r) => setTimeout(() => r('late'), 15_000))]);
  if (code === 'late') fail('not stopped within 15s of SIGTERM', output.text);
  if (code !== 0) fail(`exited ${code} on SIGTERM`, output.text);
  cluster.kill('SIGTERM');
  await new Promise((r) => cluster.once('exit', r));
  if (process.env.PALISADE_IMAGE_TEST_VERBOSE) console.log(output.text);
  say(
    `stopped; ready in ${(readyMs / 1000).toFixed(1)}s, whole test ${((Date.now() - started) / 1000).toFixed(1)}s`,
  );
  cleanup();
  console.log('image: 1 passed, 0 failed');
}

main().catch((e) => fail((e as Error).stack ?? String(e)));
