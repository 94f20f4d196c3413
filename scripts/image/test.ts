// `npm run test:image` (after scripts/image/build.sh): the image, run the way the chart runs it.
//
// Unpacks dist/palisade-<version>.oci.tar (its layers in order, digests checked) while the
// embedded cluster starts; applies deploy/manifests/palisade.yaml (the chart's default render) to
// it with `kubectl apply --server-side`, and lets the embedded Deployment controller make the
// chart's pods. Then, for each of up to three of those pods (PALISADE_IMAGE_REPLICAS, default 3),
// runs the image's process as that pod's container (scripts/image/pod.ts): the container's args,
// the env it sets (downward API from the pod as stored), uid/gid/fsGroup and no_new_privs from
// its securityContext, its hostname, a read-only root, the emptyDir at /tmp a tmpfs, the ConfigMap
// palisade-config bound read-only where the Deployment mounts it, and a TokenRequest token of the
// chart's ServiceAccount bound to the pod (only the chart's RBAC: no cluster-admin) at
// /var/run/secrets/kubernetes.io/serviceaccount, with KUBERNETES_SERVICE_HOST/PORT pointing at
// the embedded API server. Two things differ from a pod, both because every replica shares this
// machine's network: the console's --host 127.0.0.1 --port <free> follow the chart's args
// (parseArgs: the last one wins), and palisade.yaml is the ConfigMap's with
// protection.webhook.host 127.0.0.1 and, where 8443 is taken (always for the second and third
// replica), another port. The embedded API server reaches the webhook Service of the chart's
// webhook configurations at the first replica (sim/cli.ts --service-host).
// Passes when every replica answers /readyz 200 and what the chart's identity must be able to do
// was done: the leader's certificate controller made the serving Secret and patched its CA into
// the three webhook configurations, every replica serves a certificate of that CA, a dry-run pod
// deletion is admitted through the Service, the controller Lease is held by one replica (and
// another takes it when the leader stops), and no log line says "forbidden"; also the in-cluster
// log line, the kubelet's probe, a UI page, the process's mounts, uid and privileges. Before
// that, fence_ipmilan and ipmitool run in the image, and with neither a kubeconfig nor a
// ServiceAccount the image's entrypoint refuses to start, saying why.
// On failure it prints the processes' output. Needs root (namespaces, mounts, chroot).
//
//   tsx scripts/image/test.ts [dist/palisade-<version>.oci.tar]
import { type ChildProcess, execFile, execFileSync, spawn } from 'node:child_process';
import { statfsSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import tls from 'node:tls';
import * as k8s from '@kubernetes/client-node';
import YAML from 'yaml';
import { contentProblems } from './contents.js';
import { readImage, unpack } from './oci.js';
import { imageProcess, inRoot, podProcess, type Running, start } from './pod.js';

const root = resolve(import.meta.dirname, '../..');
const version = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).version as string;
const archive = resolve(process.argv[2] ?? join(root, `dist/palisade-${version}.oci.tar`));
const READY_TIMEOUT_MS = Number(process.env.PALISADE_IMAGE_READY_TIMEOUT_MS ?? 240_000);
const REPLICAS = Number(process.env.PALISADE_IMAGE_REPLICAS ?? 3);
const MANIFESTS = join(root, 'deploy/manifests/palisade.yaml');
const KUBECTL = join(root, '.palisade/bin/kubectl');
/** the controller Lease's name (server/runtime/manager.ts) */
const LEASE = 'palisade-controller';

const started = Date.now();
const say = (m: string) => console.log(`[test:image] ${((Date.now() - started) / 1000).toFixed(1)}s ${m}`);
const children: ChildProcess[] = [];
let work = '';
/** the replicas' outputs, shown on any failure once they run */
let replicasOutput: (() => string) | undefined;

function fail(message: string, output?: string, whose = "the image's"): never {
  if (output === undefined && replicasOutput) {
    output = replicasOutput();
    whose = "the replicas'";
  }
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

/**
 * Where the image is unpacked (about 1 GiB with its layout): memory (/dev/shm) when it has room
 * to spare — unpacking and removing the tree there is several seconds faster on a busy disk —
 * else the temporary directory; PALISADE_IMAGE_TEST_TMPDIR decides otherwise.
 */
function workParent(): string {
  if (process.env.PALISADE_IMAGE_TEST_TMPDIR) return process.env.PALISADE_IMAGE_TEST_TMPDIR;
  try {
    const fs = statfsSync('/dev/shm');
    if (fs.bavail * fs.bsize > 4 * 2 ** 30) return '/dev/shm';
  } catch {
    // no /dev/shm
  }
  return tmpdir();
}

/** 127.0.0.1:port can be listened on (nothing, not even a 0.0.0.0 listener, holds it) */
function isFree(port: number): Promise<boolean> {
  return new Promise((r) => {
    const s = net.createServer();
    s.once('error', () => r(false));
    s.listen(port, '127.0.0.1', () => s.close(() => r(true)));
  });
}

function kubectl(kubeconfig: string, ...args: string[]): Promise<{ ok: boolean; out: string }> {
  return new Promise((r) =>
    execFile(
      KUBECTL,
      ['--kubeconfig', kubeconfig, '--cache-dir', join(work, 'kubectl-cache'), ...args],
      { env: { ...process.env, HOME: work, KUBECONFIG: kubeconfig }, timeout: 60_000 },
      (err, stdout, stderr) => r({ ok: !err, out: `${stdout}${stderr}` }),
    ),
  );
}

interface Replica extends Running {
  name: string;
  pod: k8s.V1Pod;
  port: number;
  webhookPort: number;
  identity?: string;
}

async function main() {
  if (process.getuid?.() !== 0) fail('needs root (a mount namespace and chroot)');
  if (!existsSync(archive)) fail(`no image at ${archive}: run npm run image first`);
  work = mkdtempSync(join(workParent(), 'palisade-image-test-'));
  process.on('SIGINT', () => fail('interrupted'));

  // what the chart renders: the Deployment, where its webhook configurations send the API server
  const manifests = YAML.parseAllDocuments(readFileSync(MANIFESTS, 'utf8'))
    .map((d) => d.toJS())
    .filter(Boolean);
  const deployment = manifests.find((o) => o.kind === 'Deployment') as k8s.V1Deployment | undefined;
  if (!deployment) fail(`${MANIFESTS} has no Deployment`);
  const namespace = deployment.metadata!.namespace!;
  const webhookConfigs = manifests.filter((o) => o.kind === 'ValidatingWebhookConfiguration');
  const services = new Set(
    webhookConfigs.flatMap((c) =>
      c.webhooks.map(
        (w: k8s.V1ValidatingWebhook) =>
          `${w.clientConfig.service?.name}.${w.clientConfig.service?.namespace}.svc`,
      ),
    ),
  );
  if (services.size !== 1)
    fail(`the webhook configurations name ${[...services].join(', ')}, not one Service`);
  const [webhookService] = services;
  // every replica shares this machine's network: its own console and webhook ports
  const replicas = Math.max(1, Math.min(REPLICAS, deployment.spec!.replicas ?? 1));
  const taken = new Set<number>();
  const freshPort = async () => {
    for (;;) {
      const p = await freePort();
      if (!taken.has(p)) return taken.add(p) && p;
    }
  };
  // the webhook port palisade.yaml gives (8443): the first replica's, unless something here holds it
  const args = deployment.spec!.template.spec!.containers[0].args ?? [];
  const configKey = args[args.indexOf('--config') + 1]?.split('/').pop() ?? '';
  const chartPort = Number(
    YAML.parse(manifests.find((o) => o.kind === 'ConfigMap' && o.data?.[configKey])?.data[configKey] ?? '')
      ?.protection?.webhook?.port,
  );
  if (!chartPort) fail(`the Deployment's --config names no palisade.yaml with protection.webhook.port`);
  const webhookPorts: number[] = [];
  for (let i = 0; i < replicas; i++)
    webhookPorts.push(
      i === 0 && (await isFree(chartPort)) ? taken.add(chartPort) && chartPort : await freshPort(),
    );
  const consolePorts: number[] = [];
  for (let i = 0; i < replicas; i++) consolePorts.push(await freshPort());

  // 1. the embedded cluster, started first (it takes a while); its API server reaches the
  // webhook Service at the first replica
  const clusterDir = join(work, 'cluster');
  const kubeconfigPath = join(clusterDir, 'kubeconfig');
  mkdirSync(clusterDir);
  const cluster = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      'sim/cli.ts',
      '--profile',
      'tiny',
      '--port',
      '0',
      '--kubeconfig',
      kubeconfigPath,
      '--service-host',
      `${webhookService}=127.0.0.1:${webhookPorts[0]}`,
    ],
    { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  children.push(cluster);
  let clusterOut = '';
  cluster.stdout!.on('data', (d) => (clusterOut += d));
  cluster.stderr!.on('data', (d) => (clusterOut += d));
  const kubectlReady = new Promise<string>((r) =>
    execFile('bash', [join(root, 'scripts/ensure-kubectl.sh')], (err, stdout, stderr) =>
      r(err ? `${stdout}${stderr}` : ''),
    ),
  );
  // 2. unpack, meanwhile: the archive is an OCI image layout; its layers applied as a runtime would
  const layout = join(work, 'layout');
  mkdirSync(layout);
  execFileSync('tar', ['-xf', archive, '-C', layout]);
  const { layers, diffIds, config, annotations } = readImage(layout, version);
  const rootfs = join(work, 'rootfs');
  await unpack(layout, layers, diffIds, rootfs);
  say(`unpacked ${archive}: ${layers.length} layers, digests checked`);
  const sbomBeside = archive.replace(/\.oci\.tar$/, '.sbom.cdx.json');
  const problems = contentProblems({ rootfs, config, annotations, version, sbomBeside });
  if (problems.length) fail(`what the image carries:\n${problems.join('\n')}`);
  say(
    `${config.Entrypoint!.join(' ')}: the compiled server, no TypeScript, tests, simulator, tsx or Playwright; OCI labels on the config and the manifest; the SBOM in /app and at ${sbomBeside}; the history template`,
  );

  // the exec fence agents, as Palisade runs them: fence_ipmilan (Python) and the ipmitool it calls
  const agent = start(
    imageProcess(
      rootfs,
      config,
      ['PYTHONWARNINGS=ignore::DeprecationWarning'],
      ['/usr/sbin/fence_ipmilan', '-o', 'metadata'],
    ),
  );
  children.push(agent.child);
  if ((await agent.exited) !== 0 || !/<resource-agent name="fence_ipmilan"/.test(agent.output.text))
    fail('fence_ipmilan -o metadata in the image', agent.output.text, "fence_ipmilan's");
  const ipmitool = start(imageProcess(rootfs, config, [], ['/usr/bin/ipmitool', '-V']));
  children.push(ipmitool.child);
  if ((await ipmitool.exited) !== 0 || !/ipmitool version/.test(ipmitool.output.text))
    fail('ipmitool -V in the image', ipmitool.output.text, "ipmitool's");
  // fence_ipmilan's ipmitool as Palisade runs it (server/fenceAgents/ipmitool-env.sh): an
  // executable beside main.js that finds ipmitool on the agents' PATH
  const shim = start(
    imageProcess(
      rootfs,
      config,
      ['PATH=/usr/sbin:/usr/bin:/sbin:/bin'],
      ['/app/dist/server/ipmitool-env.sh', '-V'],
    ),
  );
  children.push(shim.child);
  if ((await shim.exited) !== 0 || !/ipmitool version/.test(shim.output.text))
    fail('/app/dist/server/ipmitool-env.sh -V in the image', shim.output.text, "the ipmitool shim's");
  say('fence_ipmilan, ipmitool and the ipmitool shim run in the image');

  // outside a pod, with no kubeconfig: a clear refusal, not a stack trace (sim/ is not in the image)
  const bare = start(imageProcess(rootfs, config, []));
  children.push(bare.child);
  const bareCode = await bare.exited;
  if (
    bareCode !== 1 ||
    !/Palisade failed to start: no kubeconfig was given and this installation has no embedded cluster/.test(
      bare.output.text,
    )
  )
    fail(`without a kubeconfig or a ServiceAccount: exit ${bareCode}, not the refusal`, bare.output.text);
  say('without a kubeconfig or a ServiceAccount: refuses to start, saying why');

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
  say(`embedded cluster at ${server.origin}`);

  // 3. the chart's default render, as a plain-manifests user applies it
  const kubectlError = await kubectlReady;
  if (kubectlError) fail('scripts/ensure-kubectl.sh', kubectlError, "ensure-kubectl's");
  const applied = await kubectl(kubeconfigPath, 'apply', '--server-side', '-f', MANIFESTS);
  const lines = applied.out.trim().split('\n');
  if (
    !applied.ok ||
    lines.length !== manifests.length ||
    !lines.every((l) => l.endsWith(' serverside-applied'))
  )
    fail(`kubectl apply --server-side -f ${MANIFESTS}`, applied.out, "kubectl's");
  say(`kubectl apply --server-side: ${lines.length} objects`);

  // the Deployment and ConfigMap as served, and the pods the Deployment controller made of them
  const core = kc.makeApiClient(k8s.CoreV1Api);
  const served = await kc
    .makeApiClient(k8s.AppsV1Api)
    .readNamespacedDeployment({ namespace, name: deployment.metadata!.name! });
  const container = served.spec!.template.spec!.containers[0];
  const configMaps = await Promise.all(
    (served.spec!.template.spec!.volumes ?? [])
      .filter((v) => v.configMap)
      .map((v) => core.readNamespacedConfigMap({ namespace, name: v.configMap!.name! })),
  );
  const selector = Object.entries(served.spec!.selector.matchLabels ?? {})
    .map(([k, v]) => `${k}=${v}`)
    .join(',');
  const pods = await until(
    "the Deployment's pods, scheduled",
    60_000,
    async () => {
      const list = (await core.listNamespacedPod({ namespace, labelSelector: selector })).items.filter(
        (p) => p.spec?.nodeName && p.status?.podIP && !p.metadata?.deletionTimestamp,
      );
      return list.length >= replicas
        ? list.sort((a, b) => a.metadata!.name!.localeCompare(b.metadata!.name!)).slice(0, replicas)
        : undefined;
    },
    () => clusterOut,
    "the embedded cluster's",
  );

  // the config file the container reads: the ConfigMap's, on this machine's shared network
  const chartConfig = YAML.parse(
    configMaps.map((c) => c.data?.[configKey]).find((t) => t !== undefined) ?? '',
  );
  const webhook = chartConfig?.protection?.webhook;
  if (!webhook) fail(`the served ConfigMaps hold no ${configKey} with protection.webhook`);
  const edits: string[] = [];
  const editFor = (i: number) => (_cm: string, key: string, text: string) => {
    if (key !== configKey) return text;
    const doc = YAML.parseDocument(text);
    doc.setIn(['protection', 'webhook', 'host'], '127.0.0.1');
    if (webhookPorts[i] !== webhook.port) doc.setIn(['protection', 'webhook', 'port'], webhookPorts[i]);
    return doc.toString();
  };
  if (webhookPorts[0] !== webhook.port)
    edits.push(`${webhook.port} is taken here: the first replica's webhook on ${webhookPorts[0]}`);

  // 4. each replica as its pod's container, with a token of the chart's ServiceAccount bound to that pod
  const replicasStarted = Date.now();
  const running: Replica[] = [];
  const saName = served.spec!.template.spec!.serviceAccountName!;
  for (const [i, pod] of pods.entries()) {
    const tokens: string[] = [];
    const spec = await podProcess({
      rootfs,
      config,
      pod,
      container: container.name,
      configMap: (name) => core.readNamespacedConfigMap({ namespace, name }),
      // what the kubelet asks for the pod's kube-api-access volume
      token: async (projection) => {
        const tr = await core.createNamespacedServiceAccountToken({
          namespace,
          name: saName,
          body: {
            spec: {
              audiences: projection.audience ? [projection.audience] : [],
              expirationSeconds: projection.expirationSeconds ?? 3607,
              boundObjectRef: {
                apiVersion: 'v1',
                kind: 'Pod',
                name: pod.metadata!.name,
                uid: pod.metadata!.uid,
              },
            },
          },
        });
        tokens.push(tr.status!.token);
        return tr.status!.token;
      },
      apiServer: server,
      dir: join(work, `replica-${i}`),
      edit: editFor(i),
      extraArgs: ['--host', '127.0.0.1', '--port', String(consolePorts[i])],
    });
    if (tokens.length !== 1)
      fail(`${pod.metadata!.name}: ${tokens.length} ServiceAccount tokens mounted, not one`);
    const r = start(spec);
    children.push(r.child);
    running.push({
      ...r,
      name: pod.metadata!.name!,
      pod,
      port: consolePorts[i],
      webhookPort: webhookPorts[i],
    });
    if (i === 0)
      say(
        `started ${spec.argv.join(' ')} as ${spec.uid}:${spec.gid} (groups ${spec.groups}), env ${spec.env.filter((e) => /^(POD_|KUBERNETES_|HOSTNAME)/.test(e)).join(' ')}`,
      );
  }
  replicasOutput = () =>
    running.map((r) => `=== replica ${r.name} (pid ${r.child.pid}) ===\n${r.output.text}`).join('\n');
  say(
    `${running.length} replica(s) of the chart's pods ${running.map((r) => r.name).join(', ')}; palisade.yaml as the ConfigMap holds it, but protection.webhook.host 127.0.0.1${edits.length ? `; ${edits.join('; ')}` : ''}; webhook ports ${webhookPorts.join(', ')}`,
  );

  const get = async (port: number, path: string, host?: string) => {
    try {
      const res = await fetch(`http://127.0.0.1:${port}${path}`, {
        headers: host ? { host } : {},
        redirect: 'manual',
        signal: AbortSignal.timeout(5_000),
      });
      return { status: res.status, text: await res.text(), replica: res.headers.get('x-palisade-replica') };
    } catch {
      return undefined;
    }
  };
  const exitedEarly = () => {
    const gone = running.find((r) => r.child.exitCode !== null || r.child.signalCode !== null);
    if (gone) fail(`replica ${gone.name} exited with ${gone.child.exitCode ?? gone.child.signalCode}`);
  };
  let lastReadyz = '';
  await until(
    '/readyz 200 on every replica',
    READY_TIMEOUT_MS,
    async () => {
      exitedEarly();
      const answers = await Promise.all(running.map((r) => get(r.port, '/readyz')));
      lastReadyz = answers.map((a, i) => `${running[i].name}: ${a?.status} ${a?.text.trim()}`).join('\n');
      return answers.every((a) => a?.status === 200) ? true : undefined;
    },
    () => `${replicasOutput!()}\n--- the last /readyz answers ---\n${lastReadyz}`,
    "the replicas'",
  );
  const readyMs = Date.now() - replicasStarted;
  say(`/readyz 200 on every replica after ${(readyMs / 1000).toFixed(1)}s`);

  // 5. what a pod's user would notice
  const [first] = running;
  const probe = await get(first.port, '/readyz', `${first.pod.status!.podIP}:3000`);
  if (probe?.status !== 200) fail(`/readyz with the pod IP in Host (the kubelet's probe): ${probe?.status}`);
  for (const r of running) {
    if (!/configuration: in-cluster/.test(r.output.text))
      fail(`${r.name}: the log does not say it chose the in-cluster configuration`);
    if (!/"context":"in-cluster"/.test(r.output.text)) fail(`${r.name}: the log names no cluster in-cluster`);
    if (/EROFS|read-only file system/i.test(r.output.text))
      fail(`${r.name}: something tried to write outside /tmp`);
    const page = await get(r.port, '/signin');
    if (page?.status !== 200 || !/<html/i.test(page.text))
      fail(`${r.name}: the sign-in page: ${page?.status}`);
    r.identity = page.replica ?? undefined;
    // the pod's name is the hostname, which starts the replica's identity
    if (!r.identity?.startsWith(`${r.name}_${r.child.pid}_`))
      fail(`${r.name}: its identity (x-palisade-replica) is ${r.identity}, not ${r.name}_${r.child.pid}_…`);
    // the process's own view: / read-only, /tmp writable, the config read-only; its user and privileges
    const mounts = readFileSync(`/proc/${r.child.pid}/mountinfo`, 'utf8')
      .split('\n')
      .map((l) => l.split(' '))
      .filter((f) => f.length > 5);
    const optionsOf = (point: string) => mounts.findLast((f) => f[4] === point)?.[5].split(',') ?? [];
    // (as the process sees them: /var/run/secrets/… is under /run, /var/run being a link to it)
    const podSpec = r.pod.spec!;
    for (const m of podSpec.containers.find((c) => c.name === container.name)!.volumeMounts ?? []) {
      const writable = !m.readOnly && podSpec.volumes?.find((v) => v.name === m.name)?.emptyDir;
      const want = writable ? 'rw' : 'ro';
      const seen = inRoot(rootfs, m.mountPath).slice(rootfs.length);
      if (!optionsOf(seen).includes(want))
        fail(`${r.name}: ${m.mountPath} (${seen}) is mounted ${optionsOf(seen)}, not ${want}`);
    }
    if (!optionsOf('/').includes('ro')) fail(`${r.name}: the root is not read-only: ${optionsOf('/')}`);
    const status = readFileSync(`/proc/${r.child.pid}/status`, 'utf8');
    const line = (k: string) => status.match(new RegExp(`^${k}:\\s*(.*)$`, 'm'))?.[1] ?? '';
    if (!/^65532\s/.test(line('Uid')) || !/^65532\s/.test(line('Gid')) || !/\b65532\b/.test(line('Groups')))
      fail(
        `${r.name}: not 65532:65532 with group 65532: Uid ${line('Uid')} Gid ${line('Gid')} Groups ${line('Groups')}`,
      );
    if (line('NoNewPrivs') !== '1' || !/^0+$/.test(line('CapEff')))
      fail(`${r.name}: NoNewPrivs ${line('NoNewPrivs')}, CapEff ${line('CapEff')}`);
  }
  if (new Set(running.map((r) => r.identity)).size !== running.length) fail('two replicas share an identity');
  say(
    'kubelet-style probe, in-cluster log line, sign-in page, mounts as the pod spec says, 65532 with no privileges: ok',
  );

  // 6. what the chart's identity must be able to do. The leader's certificate controller: the
  // serving Secret, and its CA in every webhook configuration Palisade is told to patch
  const certs = webhook.certificates.secret as { namespace: string; name: string };
  const secret = await until(`Secret ${certs.namespace}/${certs.name}`, 60_000, async () => {
    exitedEarly();
    const s = await core.readNamespacedSecret(certs).catch(() => undefined);
    return s?.data?.['ca.crt'] && s.data['tls.crt'] && s.data['tls.key'] ? s : undefined;
  });
  const servingCa = Buffer.from(secret.data!['ca.crt'], 'base64').toString('utf8');
  const admission = kc.makeApiClient(k8s.AdmissionregistrationV1Api);
  const names = (webhook.configurations ?? []) as string[];
  const rendered = webhookConfigs.map((c) => c.metadata.name as string);
  if (names.length !== rendered.length || !rendered.every((n) => names.includes(n)))
    fail(`palisade.yaml names ${names}, the chart renders ${rendered}`);
  let bundles = '';
  await until(
    'the CA in every webhook configuration',
    60_000,
    async () => {
      exitedEarly();
      const got = await Promise.all(
        names.map((name) => admission.readValidatingWebhookConfiguration({ name })),
      );
      bundles = got
        .map(
          (c) =>
            `${c.metadata!.name}: ${c.webhooks!.map((w) => (w.clientConfig.caBundle ? 'caBundle' : 'none')).join(' ')}`,
        )
        .join('\n');
      return (
        got.every((c) =>
          c.webhooks!.every(
            (w) =>
              w.clientConfig.caBundle &&
              Buffer.from(w.clientConfig.caBundle, 'base64').toString('utf8') === servingCa,
          ),
        ) || undefined
      );
    },
    () => `${replicasOutput!()}\n--- caBundles ---\n${bundles}`,
    "the replicas'",
  );
  say(`Secret ${certs.namespace}/${certs.name} made and its ca.crt in ${names.join(', ')}`);
  // every replica serves a certificate of that CA, for the Service's names
  for (const r of running)
    await until(
      `${r.name}'s webhook certificate, of the Secret's CA`,
      30_000,
      () =>
        new Promise<true | undefined>((res) => {
          const s = tls.connect(
            { host: '127.0.0.1', port: r.webhookPort, servername: webhookService, ca: servingCa },
            () => {
              s.destroy();
              res(true);
            },
          );
          s.once('error', () => res(undefined));
        }),
    );
  // the API server reaches the webhook through the chart's Service with that CA: a dry-run pod
  // deletion (sideEffects NoneOnDryRun) is sent to it, and admitted
  await core.createNamespacedPod({
    namespace: 'default',
    body: {
      metadata: { name: 'image-test' },
      spec: { containers: [{ name: 'main', image: 'registry.k8s.io/pause:3.10' }] },
    },
  });
  let refusal = '';
  await until(
    'a dry-run pod deletion admitted through the webhook Service',
    60_000,
    async () => {
      exitedEarly();
      return core.deleteNamespacedPod({ namespace: 'default', name: 'image-test', dryRun: 'All' }).then(
        () => true as const,
        (e) => void (refusal = String((e as { body?: string }).body ?? e)),
      );
    },
    () => `${replicasOutput!()}\n--- the API server's last answer ---\n${refusal}`,
    "the replicas'",
  );
  say(
    `every replica serves the Secret's certificate; the API server calls the webhook through ${webhookService}`,
  );

  // the controller Lease in the release namespace, held by one replica
  const leaseNamespace = chartConfig.controllers?.leaderElection?.namespace ?? namespace;
  const coordination = kc.makeApiClient(k8s.CoordinationV1Api);
  const holder = () =>
    coordination.readNamespacedLease({ namespace: leaseNamespace, name: LEASE }).then(
      (l) => l.spec?.holderIdentity ?? '',
      () => '',
    );
  const leaderIdentity = await until(
    `Lease ${leaseNamespace}/${LEASE} held by a replica`,
    30_000,
    async () => {
      const h = await holder();
      return running.some((r) => r.identity === h) ? h : undefined;
    },
  );
  const leader = running.find((r) => r.identity === leaderIdentity)!;
  say(`Lease ${leaseNamespace}/${LEASE} held by ${leaderIdentity}`);

  const forbidden = () =>
    running.flatMap((r) =>
      r.output.text
        .split('\n')
        .filter((l) => /forbidden/i.test(l))
        .map((l) => `${r.name}: ${l}`),
    );
  if (forbidden().length) fail(`"forbidden" in the log:\n${forbidden().join('\n')}`);

  // the history store (no PostgreSQL in the chart's default) opens from the image's template, and
  // no replica used more memory than the chart's limit allows (a pod would be OOM-killed)
  for (const r of running)
    await until(`${r.name}: its history store open`, 120_000, () =>
      /history store open/.test(r.output.text) ? true : undefined,
    );
  if (running.some((r) => /no template yet/.test(r.output.text)))
    fail('a replica ran initdb: the image template was not used');
  const limit = quantityBytes(String(container.resources?.limits?.memory ?? ''));
  const memory = running.map((r) => {
    const status = readFileSync(`/proc/${r.child.pid}/status`, 'utf8');
    const kb = (k: string) => Number(status.match(new RegExp(`^${k}:\\s*(\\d+) kB`, 'm'))?.[1] ?? 0) * 1024;
    return { name: r.name, rss: kb('VmRSS'), hwm: kb('VmHWM') };
  });
  const mib = (b: number) => `${(b / 2 ** 20).toFixed(0)} MiB`;
  say(
    `memory: ${memory.map((m) => `${m.name} ${mib(m.rss)} now, ${mib(m.hwm)} peak`).join('; ')} (the chart's limit ${container.resources?.limits?.memory ?? 'none'})`,
  );
  const over = memory.filter((m) => limit && m.hwm > limit);
  if (over.length)
    fail(`above the chart's memory limit: ${over.map((m) => `${m.name} ${mib(m.hwm)}`).join(', ')}`);

  // 7. stop as the kubelet does: the leader first; another replica takes the Lease
  const stopped = async (r: Replica) => {
    const code = await Promise.race([
      r.exited,
      // unref'd: a pending timer would keep this script alive 20 s after it passed
      new Promise<'late'>((t) => setTimeout(() => t('late'), 20_000).unref()),
    ]);
    if (code === 'late') fail(`${r.name}: not stopped within 20s of SIGTERM`);
    if (code !== 0) fail(`${r.name}: exited ${code} on SIGTERM`);
  };
  leader.child.kill('SIGTERM');
  const others = running.filter((r) => r !== leader);
  if (others.length) {
    const successor = await until('another replica takes the Lease', 30_000, async () => {
      const h = await holder();
      return others.find((r) => r.identity === h);
    });
    say(`SIGTERM to the leader: ${successor.name} took the Lease`);
  }
  for (const r of others) r.child.kill('SIGTERM');
  for (const r of running) await stopped(r);
  if (forbidden().length) fail(`"forbidden" in the log:\n${forbidden().join('\n')}`);
  cluster.kill('SIGTERM');
  await new Promise((r) => cluster.once('exit', r));
  if (process.env.PALISADE_IMAGE_TEST_VERBOSE) console.log(replicasOutput());
  say(
    `stopped, no "forbidden" in any log; ready in ${(readyMs / 1000).toFixed(1)}s, whole test ${((Date.now() - started) / 1000).toFixed(1)}s`,
  );
  cleanup();
  say('removed the unpacked image');
  console.log('image: 1 passed, 0 failed');
  // (keep-alive sockets of the API clients would hold the process a while longer)
  process.exit(0);
}

/** a Kubernetes memory quantity in bytes (512Mi, 1Gi, 600M, 1e9); 0 when there is none */
function quantityBytes(q: string): number {
  const m = /^(\d+(?:\.\d+)?)(Ki|Mi|Gi|Ti|k|M|G|T)?$/.exec(q.trim());
  if (!m) return 0;
  const unit =
    { Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40, k: 1e3, M: 1e6, G: 1e9, T: 1e12 }[m[2] ?? ''] ?? 1;
  return Number(m[1]) * unit;
}

main().catch((e) => fail((e as Error).stack ?? String(e)));
