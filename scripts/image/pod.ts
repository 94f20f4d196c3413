// The runtime half of scripts/image/test.ts: an unpacked image's process started the way a
// kubelet and a container runtime start a pod's container — from the pod as the API server
// stores it and the image's config — in mount and UTS namespaces of its own, under chroot:
//   - argv: the container's command (else the image's Entrypoint), then its args (else, with no
//     command, the image's Cmd), then whatever the caller appends
//   - env: the image's Env, KUBERNETES_SERVICE_HOST/PORT and HOSTNAME (what the kubelet adds;
//     the pod sets enableServiceLinks: false), then the container's env, its downward-API
//     fieldRefs resolved from the pod
//   - user: runAsUser/runAsGroup (container, else pod, else the image's User), fsGroup and
//     supplementalGroups as supplementary groups; allowPrivilegeEscalation: false is
//     no_new_privs (setpriv); the hostname is the pod's name
//   - volumes: the root read-only (readOnlyRootFilesystem), an emptyDir a tmpfs of its
//     sizeLimit, a configMap volume a read-only bind of a directory of its keys (the caller may
//     rewrite a key: what it writes is what the process reads), a projected volume (the API
//     server's kube-api-access-*: a TokenRequest token bound to the pod, kube-root-ca.crt's
//     ca.crt, the namespace) likewise; /proc, /sys read-only and a /dev of the usual device
//     nodes, as a runtime gives any container
// Needs root. The mount points are made in the unpacked tree before its root is made read-only
// (a runtime does the same); the mounts die with the process's namespace.
import { type ChildProcess, spawn } from 'node:child_process';
import { lstatSync, mkdirSync, readlinkSync, writeFileSync } from 'node:fs';
import { join, posix } from 'node:path';
import type * as k8s from '@kubernetes/client-node';

export interface ImageConfig {
  User?: string;
  WorkingDir?: string;
  Env?: string[];
  Entrypoint?: string[];
  Cmd?: string[];
  Labels?: Record<string, string>;
}

/** One process as it runs: what the script below needs, all resolved. */
export interface ProcessSpec {
  rootfs: string;
  argv: string[];
  env: string[];
  uid: string;
  gid: string;
  groups: string[];
  workingDir: string;
  readOnlyRoot: boolean;
  noNewPrivs: boolean;
  hostname?: string;
  tmpfs: { path: string; size: string }[];
  /** host directory -> path in the image, bound read-only */
  binds: { source: string; target: string }[];
}

export interface Running {
  child: ChildProcess;
  output: { text: string };
  exited: Promise<number | null>;
}

const q = (s: string) => `'${s.replaceAll("'", "'\\''")}'`;

/**
 * A path inside the image as the process sees it, resolved to a path under rootfs: symbolic
 * links are followed inside the root (/var/run -> /run), never out of it.
 */
export function inRoot(rootfs: string, path: string): string {
  let resolved = '/';
  const rest = path.split('/').filter(Boolean);
  for (let hops = 0; rest.length; ) {
    const next = posix.join(resolved, rest.shift()!);
    let link: string | undefined;
    try {
      if (lstatSync(join(rootfs, next)).isSymbolicLink()) link = readlinkSync(join(rootfs, next));
    } catch {
      // not there yet: made below as a plain directory
    }
    if (link === undefined) resolved = next;
    else {
      if (++hops > 40) throw new Error(`too many links resolving ${path} in the image`);
      rest.unshift(...link.split('/').filter(Boolean));
      if (link.startsWith('/')) resolved = '/';
    }
  }
  return join(rootfs, resolved);
}

/** The process in namespaces of its own, its stdout and stderr gathered. */
export function start(p: ProcessSpec): Running {
  const R = q(p.rootfs);
  const mountPoint = (path: string) => {
    const host = inRoot(p.rootfs, path);
    mkdirSync(host, { recursive: true });
    return q(host);
  };
  const tmpfs = p.tmpfs.map(
    (t) => `mount -t tmpfs -o mode=1777,size=${t.size},nodev,nosuid tmpfs ${mountPoint(t.path)}`,
  );
  const binds = p.binds.map((b) => {
    const at = mountPoint(b.target);
    return `mount --bind ${q(b.source)} ${at} && mount -o remount,bind,ro ${at}`;
  });
  const groups = [...new Set([p.gid, ...p.groups])].join(',');
  const script = [
    'set -eu',
    ...(p.hostname ? [`hostname ${q(p.hostname)}`] : []),
    `mount --bind ${R} ${R}`,
    ...(p.readOnlyRoot ? [`mount -o remount,bind,ro ${R}`] : []),
    ...tmpfs,
    `mount -t proc -o nosuid,nodev,noexec proc ${R}/proc`,
    `mount --rbind /sys ${R}/sys && mount -o remount,bind,ro ${R}/sys`,
    `mount -t tmpfs -o mode=755,size=64k,nosuid tmpfs ${R}/dev`,
    ...['null', 'zero', 'full', 'random', 'urandom'].map(
      (d) => `touch ${R}/dev/${d} && mount --bind /dev/${d} ${R}/dev/${d}`,
    ),
    `ln -s /proc/self/fd ${R}/dev/fd && ln -s fd/0 ${R}/dev/stdin && ln -s fd/1 ${R}/dev/stdout && ln -s fd/2 ${R}/dev/stderr`,
    ...binds,
    [
      'exec',
      ...(p.noNewPrivs ? ['setpriv', '--no-new-privs'] : []),
      `chroot --userspec=${p.uid}:${p.gid} --groups=${groups} ${R}`,
      `/usr/bin/env -i -C ${q(p.workingDir)} ${p.env.map(q).join(' ')}`,
      p.argv.map(q).join(' '),
    ].join(' '),
  ].join('\n');
  const child = spawn('unshare', ['--mount', '--uts', '--propagation', 'private', '--', 'sh', '-c', script], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output = { text: '' };
  child.stdout!.on('data', (d) => (output.text += d));
  child.stderr!.on('data', (d) => (output.text += d));
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  return { child, output, exited };
}

/** A plain run of the image (its Entrypoint and Cmd, or argv), as a runtime with no pod spec would. */
export function imageProcess(
  rootfs: string,
  config: ImageConfig,
  env: string[],
  argv?: string[],
): ProcessSpec {
  const [uid, gid] = (config.User ?? '0:0').split(':');
  return {
    rootfs,
    argv: argv ?? [...(config.Entrypoint ?? []), ...(config.Cmd ?? [])],
    env: [...(config.Env ?? []), ...env],
    uid,
    gid: gid ?? uid,
    groups: [],
    workingDir: config.WorkingDir ?? '/',
    readOnlyRoot: true,
    noNewPrivs: false,
    tmpfs: [{ path: '/tmp', size: '256m' }],
    binds: [],
  };
}

/** A downward-API fieldRef, read from the pod as stored (what the kubelet resolves). */
function fieldOf(pod: k8s.V1Pod, path: string): string {
  const m = path.match(/^metadata\.(labels|annotations)\['(.+)'\]$/);
  if (m) return pod.metadata?.[m[1] as 'labels' | 'annotations']?.[m[2]] ?? '';
  const fields: Record<string, string | undefined> = {
    'metadata.name': pod.metadata?.name,
    'metadata.namespace': pod.metadata?.namespace,
    'metadata.uid': pod.metadata?.uid,
    'spec.nodeName': pod.spec?.nodeName,
    'spec.serviceAccountName': pod.spec?.serviceAccountName,
    'status.podIP': pod.status?.podIP,
    'status.hostIP': pod.status?.hostIP,
  };
  if (!(path in fields)) throw new Error(`fieldRef ${path}: this test does not resolve it`);
  return fields[path] ?? '';
}

/** Kubernetes quantities as tmpfs sizes: 256Mi -> 256m */
function tmpfsSize(q: string | undefined): string {
  if (!q) return '50%';
  const m = q.match(/^(\d+)(Ki|Mi|Gi)?$/);
  if (!m) throw new Error(`emptyDir sizeLimit ${q}: this test reads only Ki, Mi, Gi and bytes`);
  return `${m[1]}${{ Ki: 'k', Mi: 'm', Gi: 'g' }[m[2] ?? ''] ?? ''}`;
}

/** a volume's directory of files: what the kubelet writes for a configMap or projected volume */
function writeFiles(dir: string, files: [string, string][]) {
  mkdirSync(dir, { recursive: true });
  for (const [path, text] of files) {
    mkdirSync(join(dir, posix.dirname(path)), { recursive: true });
    writeFileSync(join(dir, path), text, { mode: 0o644 });
  }
  return dir;
}

const configMapFiles = (
  cm: k8s.V1ConfigMap,
  items: k8s.V1KeyToPath[] | undefined,
  edit?: (configMap: string, key: string, text: string) => string,
): [string, string][] =>
  (items ?? Object.keys(cm.data ?? {}).map((key) => ({ key, path: key }))).map((it) => {
    const text = cm.data?.[it.key];
    if (text === undefined) throw new Error(`ConfigMap ${cm.metadata?.name} has no key ${it.key}`);
    return [it.path, edit ? edit(cm.metadata!.name!, it.key, text) : text];
  });

/**
 * The pod's container as the kubelet runs it: argv, env, user, mounts. Volumes: emptyDir (a
 * tmpfs), configMap and projected (serviceAccountToken, configMap, downwardAPI: a directory of
 * files, bound read-only), as a kubelet writes them; anything else is refused, so that a chart
 * change this test does not follow is noticed.
 */
export async function podProcess(o: {
  rootfs: string;
  config: ImageConfig;
  pod: k8s.V1Pod;
  container: string;
  /** the ConfigMap, as stored in the pod's namespace */
  configMap: (name: string) => Promise<k8s.V1ConfigMap>;
  /** a TokenRequest for the pod's ServiceAccount, bound to the pod, as the projection asks */
  token: (projection: k8s.V1ServiceAccountTokenProjection) => Promise<string>;
  apiServer: URL;
  /** a host directory per replica, where its volumes are written */
  dir: string;
  /** a configMap volume's key, as the process reads it (the caller may change it) */
  edit?: (configMap: string, key: string, text: string) => string;
  extraArgs: string[];
}): Promise<ProcessSpec> {
  const spec = o.pod.spec!;
  const c = spec.containers.find((x) => x.name === o.container);
  if (!c) throw new Error(`the pod has no container ${o.container}`);
  const argv = [
    ...(c.command ?? o.config.Entrypoint ?? []),
    ...(c.args ?? (c.command ? [] : (o.config.Cmd ?? []))),
    ...o.extraArgs,
  ];
  const env = [
    ...(o.config.Env ?? []),
    `HOSTNAME=${o.pod.metadata!.name}`,
    `KUBERNETES_SERVICE_HOST=${o.apiServer.hostname}`,
    `KUBERNETES_SERVICE_PORT=${o.apiServer.port}`,
  ];
  for (const e of c.env ?? []) {
    if (e.value !== undefined) env.push(`${e.name}=${e.value}`);
    else if (e.valueFrom?.fieldRef) env.push(`${e.name}=${fieldOf(o.pod, e.valueFrom.fieldRef.fieldPath)}`);
    else throw new Error(`env ${e.name}: this test resolves only values and fieldRefs`);
  }
  if (c.envFrom?.length) throw new Error('envFrom: this test does not resolve it');
  const podSc = spec.securityContext ?? {};
  const sc = c.securityContext ?? {};
  const [imageUid, imageGid] = (o.config.User ?? '0:0').split(':');
  const uid = String(sc.runAsUser ?? podSc.runAsUser ?? imageUid);
  const gid = String(sc.runAsGroup ?? podSc.runAsGroup ?? imageGid ?? uid);
  const groups = [podSc.fsGroup, ...(podSc.supplementalGroups ?? [])]
    .filter((g) => g !== undefined)
    .map(String);
  const tmpfs: ProcessSpec['tmpfs'] = [];
  const binds: ProcessSpec['binds'] = [];
  for (const m of c.volumeMounts ?? []) {
    const v = spec.volumes?.find((x) => x.name === m.name);
    if (!v) throw new Error(`volumeMount ${m.name}: no such volume`);
    if (m.subPath) throw new Error(`volumeMount ${m.name}: subPath: this test does not mount it`);
    const dir = join(o.dir, `volume-${v.name}`);
    if (v.emptyDir) {
      if (m.readOnly) throw new Error(`volumeMount ${m.name}: a read-only emptyDir`);
      tmpfs.push({ path: m.mountPath, size: tmpfsSize(v.emptyDir.sizeLimit as string | undefined) });
      continue;
    }
    // the kubelet mounts these read-only whatever the volumeMount says
    if (v.configMap) {
      const cm = await o.configMap(v.configMap.name!);
      writeFiles(dir, configMapFiles(cm, v.configMap.items, o.edit));
    } else if (v.projected) {
      const files: [string, string][] = [];
      for (const source of v.projected.sources ?? []) {
        if (source.serviceAccountToken)
          files.push([source.serviceAccountToken.path, await o.token(source.serviceAccountToken)]);
        else if (source.configMap)
          files.push(...configMapFiles(await o.configMap(source.configMap.name!), source.configMap.items));
        else if (source.downwardAPI)
          for (const it of source.downwardAPI.items ?? []) {
            if (!it.fieldRef) throw new Error(`volume ${v.name}: downwardAPI ${it.path}: only fieldRefs`);
            files.push([it.path, fieldOf(o.pod, it.fieldRef.fieldPath)]);
          }
        else throw new Error(`volume ${v.name}: a projected source this test does not write`);
      }
      writeFiles(dir, files);
    } else
      throw new Error(
        `volume ${v.name}: only emptyDir, configMap and projected volumes are mounted by this test`,
      );
    binds.push({ source: dir, target: m.mountPath });
  }
  return {
    rootfs: o.rootfs,
    argv,
    env,
    uid,
    gid,
    groups,
    workingDir: c.workingDir ?? o.config.WorkingDir ?? '/',
    readOnlyRoot: sc.readOnlyRootFilesystem === true,
    noNewPrivs: sc.allowPrivilegeEscalation === false,
    hostname: o.pod.metadata!.name,
    tmpfs,
    binds,
  };
}
