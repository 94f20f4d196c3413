// Self-managed webhook certificates rotating under load, on both back ends: three replicas
// behind one webhook address (haproxy passing TLS through, so the API server verifies each
// replica's own certificate against the caBundle), with a CA so short-lived (ca.validity 10m,
// ca.renewBefore 585s) that the leader rotates it every ~15 s, and the serving certificate
// with it. A deletion storm runs through the webhook all along — dry-run deletions of free pods
// (admitted) and protected ones (refused at the floor), and real deletions of free pods. Every
// request gets an admitted-or-refused answer: no TLS error, no failure calling the webhook.
// Meanwhile a probe connects to every replica every 100 ms and checks that what it serves
// verifies against the caBundle the API server has at that moment, and records each stage of
// the caBundle (one CA, old + new, the new one alone).
import { mkdtempSync, rmSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { X509Certificate } from 'node:crypto';
import * as k8s from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { splitBundle } from '../../lib/pki/bundle.js';
import { eventually } from '../../sim/apiserver/test/harness.js';
import { startScenario } from '../../sim/test/clusterHarness.js';
import { haproxyAvailable } from '../../testenv/ha/haproxy.js';
import {
  createFixturePods,
  createProtector,
  markReady,
  scenario,
} from '../protection/test/protectionHarness.js';
import { createReadyNamespace } from '../test/namespaces.js';
import { type Replicas, startReplicas } from '../test/replicas.js';
import { served } from './certProbe.js';
import { message, untilRefusedThroughBalancer } from './fixture.js';

const NS = 'cert-rotation';
const SECRET = { namespace: 'kube-system', name: 'palisade-webhook-serving' };
const CONFIGS = ['podseidon.kubewharf.io', 'palisade-nodefences', 'palisade-leader-epochs'];
const FREE = 40;
const dir = mkdtempSync(join(tmpdir(), 'palisade-ha-certs-'));
let cluster: Awaited<ReturnType<typeof startScenario>>;
let set: Replicas;

const admissions = () => cluster.kc.makeApiClient(k8s.AdmissionregistrationV1Api);
const bundleOf = async (name: string) => {
  const c = await admissions().readValidatingWebhookConfiguration({ name });
  const all = new Set((c.webhooks ?? []).map((w) => w.clientConfig.caBundle ?? ''));
  expect(all.size).toBe(1);
  return Buffer.from([...all][0], 'base64').toString('utf8');
};
const secretPem = async (key: string) =>
  Buffer.from((await cluster.core.readNamespacedSecret(SECRET)).data?.[key] ?? '', 'base64').toString('utf8');
const fingerprints = (pem: string) => splitBundle(pem).map((c) => c.fingerprint256);

describe.skipIf(!haproxyAvailable())('webhook certificates rotating during a deletion storm', () => {
  beforeAll(async () => {
    cluster = await startScenario(scenario('ha-cert-rotation'));
    await createReadyNamespace(cluster.core, NS);
    await createProtector(cluster.kc.makeApiClient(k8s.CustomObjectsApi), NS, 'web', {
      minAvailable: 3,
      selector: { app: 'web' },
    });
    await createFixturePods(cluster.core, NS, ['web-0', 'web-1', 'web-2'], { app: 'web' });
    for (const p of ['web-0', 'web-1', 'web-2'])
      await markReady(cluster.core, NS, p, new Date(Date.now() - 60_000));
    // free-*: deleted in dry run over and over; gone-*: deleted for real, one by one
    await createFixturePods(
      cluster.core,
      NS,
      Array.from({ length: FREE }, (_, i) => `free-${i}`),
      { app: 'free' },
    );
    await createFixturePods(
      cluster.core,
      NS,
      Array.from({ length: 2 * FREE }, (_, i) => `gone-${i}`),
      { app: 'gone' },
    );
    const kubeconfig = join(dir, 'kubeconfig');
    await writeFile(kubeconfig, cluster.kc.exportConfig());
    set = await startReplicas({
      kubeconfig,
      n: 3,
      protection: {
        webhook: {
          certificates: {
            validity: '10m',
            renewBefore: '570s',
            ca: { validity: '10m', renewBefore: '585s' },
            reloadDelay: '2s',
          },
        },
      },
    });
    await untilRefusedThroughBalancer(cluster, NS);
  }, 240_000);

  afterAll(async () => {
    await set?.stop();
    await cluster?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  /**
   * The storm and the probe, until stop(): dry-run deletions on four workers, real deletions of
   * gone-<from>.. every half second, and every live replica's certificate checked against the
   * caBundle of the moment every 100 ms.
   */
  function startStorm(from: number) {
    const failures: string[] = [];
    const untrusted: string[] = [];
    const stages: string[][] = [];
    const counts = { admitted: 0, refused: 0, deleted: 0 };
    let storming = true;
    const dryRun = { dryRun: ['All'] };
    const worker = async (w: number) => {
      for (let i = 0; storming; i++) {
        const protectedPod = i % 3 === 0;
        const name = protectedPod ? `web-${i % 3}` : `free-${(w * 7 + i) % FREE}`;
        await cluster.core.deleteNamespacedPod({ namespace: NS, name, body: dryRun }).then(
          () => {
            if (protectedPod) failures.push(`${name}: a protected pod's deletion was admitted`);
            else counts.admitted++;
          },
          (e) => {
            const m = message(e);
            if (protectedPod && /reports too few available replicas/.test(m)) counts.refused++;
            else failures.push(`${name}: ${m}`);
          },
        );
      }
    };
    const deleter = async () => {
      for (let i = from; storming && i < from + FREE; i++) {
        await cluster.core
          .deleteNamespacedPod({ namespace: NS, name: `gone-${i}`, body: { gracePeriodSeconds: 0 } })
          .then(
            () => counts.deleted++,
            (e) => {
              failures.push(`delete gone-${i}: ${message(e)}`);
            },
          );
        await new Promise((r) => setTimeout(r, 500));
      }
    };
    const alive = () => set.replicas.filter((r) => r.child.exitCode === null && r.child.signalCode === null);
    const probe = async () => {
      while (storming) {
        const bundle = await bundleOf('podseidon.kubewharf.io');
        const fps = fingerprints(bundle);
        if (JSON.stringify(stages.at(-1)) !== JSON.stringify(fps)) stages.push(fps);
        for (const r of alive()) {
          const s = await served(r.webhookPort, bundle);
          // a replica draining after SIGTERM no longer listens (refused) or closes the probe's
          // connection as it exits (reset): gone, not untrusted; admissions reach the others
          if (s.error && !(['ECONNREFUSED', 'ECONNRESET'].includes(s.error) && r.child.killed))
            untrusted.push(`replica ${r.index}: ${s.error} (bundle of ${fps.length})`);
        }
        await new Promise((r) => setTimeout(r, 100));
      }
    };
    const started = Date.now();
    const running = Promise.all([...[0, 1, 2, 3].map(worker), deleter(), probe()]);
    return {
      stages,
      async stop(what: string) {
        storming = false;
        await running;
        console.log(
          `${what}: ${((Date.now() - started) / 1000).toFixed(1)} s, ${counts.admitted} admitted, ${counts.refused} refused, ${counts.deleted} deleted, ${failures.length} failed; caBundle stages: ${stages.map((x) => x.length).join(' -> ')}`,
        );
        expect(failures.slice(0, 20)).toEqual([]);
        expect(untrusted.slice(0, 20)).toEqual([]);
        expect(counts.admitted + counts.refused).toBeGreaterThan(50);
        // each stage: a new CA joins after the one there, then the old one goes
        for (let i = 1; i < stages.length; i++) {
          const [before, after] = [stages[i - 1], stages[i]];
          if (after.length === 2) expect(after[0]).toBe(before.at(-1));
          else expect(after).toEqual([before.at(-1)]);
        }
      },
    };
  }

  /** until the caBundle has gone 1 -> 2 -> 1 CA `n` times (the error, if it did not in time) */
  const rotations = (stages: string[][], n: number) =>
    eventually(
      () => stages.filter((x) => x.length === 2).length >= n && stages.at(-1)?.length === 1,
      `${n} CA rotations completed`,
      120_000,
    ).then(
      () => undefined,
      (e: Error) => e,
    );

  it('two CA rotations under a storm: every admission answered, every replica trusted at every moment', async () => {
    const firstCa = fingerprints(await secretPem('ca.crt'));
    const storm = startStorm(0);
    const rotated = await rotations(storm.stages, 2);
    await storm.stop('rotation storm');
    if (rotated) throw rotated;
    expect(storm.stages.at(-1)).not.toEqual(firstCa);
  }, 180_000);

  it("afterwards every replica serves the Secret's certificate, and every caBundle is its ca.crt", async () => {
    await eventually(
      async () => {
        const [caPem, certPem] = [await secretPem('ca.crt'), await secretPem('tls.crt')];
        const want = new X509Certificate(certPem).fingerprint256;
        const got = await Promise.all(set.replicas.map((r) => served(r.webhookPort, caPem)));
        const bundles = await Promise.all(CONFIGS.map(bundleOf));
        return got.every((s) => s.fingerprint === want) && bundles.every((b) => b === caPem);
      },
      'every replica on the Secret, every caBundle its ca.crt',
      30_000,
    );
  });

  it('the leader stopped (SIGTERM) mid-rotation: another replica becomes leader and finishes it, no admission fails', async () => {
    const storm = startStorm(FREE);
    await eventually(() => storm.stages.at(-1)?.length === 2, 'a CA rotation under way', 60_000);
    const lease = await cluster.kc
      .makeApiClient(k8s.CoordinationV1Api)
      .readNamespacedLease({ namespace: 'kube-system', name: 'palisade-controller' });
    const leader = set.byIdentity(lease.spec?.holderIdentity);
    expect(leader).toBeDefined();
    const begun = storm.stages.filter((x) => x.length === 2).length;
    leader!.signal('SIGTERM');
    await leader!.exited;
    // the rotation under way ends, and the next one runs start to end, on the new leader
    const rotated = await rotations(storm.stages, begun + 1);
    await storm.stop('leader stopped mid-rotation');
    if (rotated) throw rotated;
    const after = await cluster.kc
      .makeApiClient(k8s.CoordinationV1Api)
      .readNamespacedLease({ namespace: 'kube-system', name: 'palisade-controller' });
    expect(after.spec?.holderIdentity).not.toBe(lease.spec?.holderIdentity);
  }, 180_000);
});
