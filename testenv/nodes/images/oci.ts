// An OCI image layout archive of one static binary, as `ctr images import` takes it: one
// uncompressed layer (the binary at /<name>, plus /tmp), a config and a manifest, and an
// index that names the image (io.containerd.image.name, which containerd reads to tag it).
// Deterministic: the same binary gives the same digests.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface ImageSpec {
  /** the full reference containerd tags it with, e.g. registry.k8s.io/pause:3.10 */
  ref: string;
  /** the static binary to put at /<entry> */
  binary: string;
  /** its name in the image, and the entrypoint */
  entry: string;
}

const sha = (b: Buffer) => `sha256:${createHash('sha256').update(b).digest('hex')}`;

/** Write the image's layout archive to `out` (a .tar); returns the manifest's digest. */
export function writeImageArchive(spec: ImageSpec, out: string): string {
  const work = mkdtempSync(join(tmpdir(), 'palisade-oci-'));
  try {
    const root = join(work, 'rootfs');
    mkdirSync(join(root, 'tmp'), { recursive: true });
    chmodSync(join(root, 'tmp'), 0o1777);
    copyFileSync(spec.binary, join(root, spec.entry));
    chmodSync(join(root, spec.entry), 0o755);
    const layer = execFileSync(
      'tar',
      ['-c', '-C', root, '--sort=name', '--mtime=@0', '--owner=0', '--group=0', '--numeric-owner', '.'],
      { maxBuffer: 256 * 1024 * 1024 },
    );
    const config = Buffer.from(
      JSON.stringify({
        architecture: 'amd64',
        os: 'linux',
        config: { Entrypoint: [`/${spec.entry}`], Env: ['PATH=/'], WorkingDir: '/' },
        rootfs: { type: 'layers', diff_ids: [sha(layer)] },
      }),
    );
    const manifest = Buffer.from(
      JSON.stringify({
        schemaVersion: 2,
        mediaType: 'application/vnd.oci.image.manifest.v1+json',
        config: {
          mediaType: 'application/vnd.oci.image.config.v1+json',
          digest: sha(config),
          size: config.length,
        },
        layers: [
          { mediaType: 'application/vnd.oci.image.layer.v1.tar', digest: sha(layer), size: layer.length },
        ],
      }),
    );
    const layout = join(work, 'layout');
    mkdirSync(join(layout, 'blobs', 'sha256'), { recursive: true });
    for (const blob of [layer, config, manifest])
      writeFileSync(join(layout, 'blobs', 'sha256', sha(blob).slice(7)), blob);
    writeFileSync(join(layout, 'oci-layout'), JSON.stringify({ imageLayoutVersion: '1.0.0' }));
    const index = {
      schemaVersion: 2,
      manifests: [
        {
          mediaType: 'application/vnd.oci.image.manifest.v1+json',
          digest: sha(manifest),
          size: manifest.length,
          annotations: {
            'io.containerd.image.name': spec.ref,
            'org.opencontainers.image.ref.name': spec.ref.split(':').at(-1),
          },
        },
      ],
    };
    writeFileSync(join(layout, 'index.json'), JSON.stringify(index));
    execFileSync('tar', [
      '-c',
      '-f',
      out,
      '-C',
      layout,
      '--sort=name',
      '--mtime=@0',
      '--owner=0',
      '--group=0',
      '.',
    ]);
    return sha(manifest);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/**
 * A copy of an OCI layout archive whose index names its image `ref` (io.containerd.image.name).
 * `npm run image` names it `palisade:<version>`, which the CRI would read as
 * docker.io/library/palisade; imported under that short name, the kubelet never finds it.
 */
export function renameArchive(src: string, dst: string, ref: string) {
  const index = JSON.parse(execFileSync('tar', ['-xOf', src, 'index.json'], { encoding: 'utf8' }));
  for (const m of index.manifests) m.annotations = { ...m.annotations, 'io.containerd.image.name': ref };
  const work = mkdtempSync(join(tmpdir(), 'palisade-oci-'));
  try {
    copyFileSync(src, dst);
    execFileSync('tar', ['--delete', '-f', dst, 'index.json']);
    writeFileSync(join(work, 'index.json'), JSON.stringify(index));
    execFileSync('tar', ['-rf', dst, '-C', work, 'index.json']);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

// `tsx oci.ts REF BINARY ENTRY OUT`
if (process.argv[1]?.endsWith('oci.ts') && process.argv.length === 6) {
  const [ref, binary, entry, out] = process.argv.slice(2);
  console.log(writeImageArchive({ ref, binary, entry }, out));
}
