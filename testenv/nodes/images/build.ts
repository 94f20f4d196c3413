// The real-node tier's images, built here (no registry is reachable): the pause binary and the
// workload, compiled from testenv/nodes/images/ with the Go of testenv/build.sh, each written
// as an OCI layout archive beside a `.ref` file holding its manifest digest (what a node checks
// before importing it again).
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fromRoot } from '../../../sim/root.js';
import { PAUSE_IMAGE, WORKLOAD_IMAGE } from '../plan.js';
import { writeImageArchive } from './oci.js';

const IMAGES = [
  { ref: PAUSE_IMAGE, pkg: './pause', entry: 'pause' },
  { ref: WORKLOAD_IMAGE, pkg: './workload', entry: 'workload' },
];

/** Build both images into `out`; returns the archives' paths. */
export function buildNodeImages(out: string): string[] {
  mkdirSync(out, { recursive: true });
  const dir = fromRoot('testenv', 'nodes', 'images');
  const goBin = execFileSync('bash', [fromRoot('scripts', 'ensure-go.sh')], { encoding: 'utf8' }).trim();
  const env = {
    ...process.env,
    PATH: `${goBin}:${process.env.PATH}`,
    CGO_ENABLED: '0',
    GOTOOLCHAIN: 'local',
    GOWORK: 'off',
  };
  return IMAGES.map(({ ref, pkg, entry }) => {
    const binary = join(out, entry);
    execFileSync('go', ['build', '-trimpath', '-ldflags', '-s -w', '-o', binary, pkg], {
      cwd: dir,
      env,
      stdio: 'pipe',
    });
    const archive = join(out, `${entry}.oci.tar`);
    writeFileSync(`${archive}.ref`, `${writeImageArchive({ ref, binary, entry }, archive)}\n`);
    return archive;
  });
}
