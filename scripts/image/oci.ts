// The OCI image layout archive scripts/image/build.sh writes, read the way a runtime reads it:
// index, manifest, config; then its layers applied in order, every digest checked.
import { execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createReadStream, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import type { ImageConfig } from './pod.js';

export interface Descriptor {
  digest: string;
  size: number;
}

/** The image's manifest and config, read from the layout the way a runtime does: index, manifest, config. */
export function readImage(
  layout: string,
  version: string,
): {
  layers: Descriptor[];
  diffIds: string[];
  config: ImageConfig;
  /** the manifest's annotations */
  annotations: Record<string, string>;
} {
  const blob = (digest: string) => JSON.parse(readFileSync(blobPath(layout, digest), 'utf8'));
  const index = JSON.parse(readFileSync(join(layout, 'index.json'), 'utf8'));
  const desc = index.manifests.find(
    (m: { annotations?: Record<string, string> }) =>
      m.annotations?.['org.opencontainers.image.ref.name'] === version,
  );
  if (!desc) throw new Error(`the archive's index names no image "${version}"`);
  const manifest = blob(desc.digest);
  const config = blob(manifest.config.digest);
  return {
    layers: manifest.layers,
    diffIds: config.rootfs.diff_ids,
    config: config.config,
    annotations: manifest.annotations ?? {},
  };
}

const blobPath = (layout: string, digest: string) => join(layout, 'blobs', ...digest.split(':'));

/**
 * Apply the layers in order, as a runtime does, checking each blob's digest and its uncompressed
 * digest (the config's diff_id) on the way (tar reads to the end, past the archive's end
 * marker, so every byte is hashed). Whiteouts (.wh.*) are refused: the build makes none.
 * (umoci unpack does the same, several times slower on this machine.)
 */
export async function unpack(layout: string, layers: Descriptor[], diffIds: string[], rootfs: string) {
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
    if ((await exited) !== 0) throw new Error(`layer ${i + 1}: tar failed`);
    if (`sha256:${compressed.digest('hex')}` !== layer.digest)
      throw new Error(`layer ${i + 1}: its blob is not ${layer.digest}`);
    if (`sha256:${plain.digest('hex')}` !== diffIds[i])
      throw new Error(`layer ${i + 1}: not the config's diff_id ${diffIds[i]}`);
  }
  const whiteouts = execFileSync('find', [rootfs, '-name', '.wh.*', '-print', '-quit'], { encoding: 'utf8' });
  if (whiteouts)
    throw new Error(`a whiteout in the image (${whiteouts.trim()}): this test's unpacker applies none`);
}
