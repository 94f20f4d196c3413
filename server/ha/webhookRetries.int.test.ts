// Three Palisade replicas behind haproxy in HTTP mode (layer-7 retries), on the embedded cluster
// and (PALISADE_CLUSTER=real) on kube-apiserver: TLS ends at the balancer, which verifies the API
// server's client certificate, and each admission request is buffered whole and sent, re-encrypted
// with the balancer's own client certificate, to a replica. Replicas are killed (SIGKILL, one
// after another) in the middle of a stream of concurrent deletions: a request in flight on the
// dead replica's connection is replayed on a live one, so no deletion fails — zero lost, where
// TLS passed through at layer 4 (webhookReplicas.int.test.ts) loses what the dead replica held.
// A replayed request may reserve an admission bucket twice (the dead replica may have written
// one before it died): conservative, fewer admissions until the aggregator reconciles.
// The same stream through the TCP balancer is run too, as the contrast: what it loses is counted
// (each loss the API server's "failed calling webhook" on a connection that died), not required.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../../sim/apiserver/test/harness.js';
import { startScenario } from '../../sim/test/clusterHarness.js';
import { haproxyAvailable } from '../../testenv/ha/haproxy.js';
import { scenario } from '../protection/test/protectionHarness.js';
import type { Replicas } from '../test/replicas.js';
import { expectOneRegistration, message, replicasGuardingAFloor } from './fixture.js';

const NS = 'ha-l7';
const FREE = 300;
const WORKERS = 4;
let dir = '';
let cluster: Awaited<ReturnType<typeof startScenario>>;
let set: Replicas;

describe.skipIf(!haproxyAvailable()).each([{ balancer: 'http' as const }, { balancer: 'tcp' as const }])(
  'three replicas behind a $balancer balancer, killed mid-stream',
  ({ balancer }) => {
    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), `palisade-ha-${balancer}-`));
      cluster = await startScenario(scenario(`ha-${balancer}`));
      set = await replicasGuardingAFloor(cluster, { namespace: NS, free: FREE, dir, balancer });
    }, 240_000);

    afterAll(async () => {
      await set?.stop();
      await cluster?.stop();
      rmSync(dir, { recursive: true, force: true });
    });

    it('serves the shared certificate, the one registered', () => expectOneRegistration(cluster, set));

    it(`replicas killed (SIGKILL) mid-stream: ${balancer === 'http' ? 'zero' : 'what they held'} lost, the survivor still judges`, async () => {
      let next = 0;
      let done = 0;
      const failures: string[] = [];
      let stop = false;
      /** the deletions awaiting an answer: name -> when sent */
      const pending = new Map<string, number>();
      // WORKERS deletions always in flight, until the free pods run out or the test says stop
      const worker = async () => {
        while (!stop && next < FREE) {
          const name = `free-${next++}`;
          pending.set(name, Date.now());
          await cluster.core
            .deleteNamespacedPod({ namespace: NS, name, body: { gracePeriodSeconds: 0 } })
            .then(
              () => done++,
              (e) => failures.push(`${name}: ${message(e)}`),
            )
            .finally(() => pending.delete(name));
        }
      };
      const stream = Promise.all(Array.from({ length: WORKERS }, worker));
      const before = await set.balancer.stats();
      const held = [0, 0];
      for (const [k, victim] of [set.replicas[0], set.replicas[1]].entries()) {
        const at = done;
        await eventually(
          async () => done >= at + 15 || next >= FREE,
          'deletions answered before the kill',
          60_000,
        );
        if (k === 0) {
          // the first kill lands, for sure, on requests in flight: the replica is frozen
          // (SIGSTOP) until a deletion has waited on it for 500 ms (they take ~10 ms), then killed
          victim.signal('SIGSTOP');
          await eventually(
            async () => [...pending.values()].some((t) => Date.now() - t > 500),
            'a deletion held by the frozen replica',
            30_000,
          );
        }
        held[k] = [...pending.values()].filter((t) => Date.now() - t > 100).length;
        victim.signal('SIGKILL');
        await victim.exited;
        const after = done;
        await eventually(
          async () => done + failures.length >= after + 15 || (next >= FREE && pending.size === 0),
          'deletions answered after the kill',
          60_000,
        );
      }
      stop = true;
      await stream;
      const stats = await set.balancer.stats();
      console.log(
        `${balancer} balancer, 2 SIGKILLs (${held.join(' and ')} deletions held over 100 ms at the kills): ${failures.length} of ${done + failures.length} deletions lost; haproxy retries ${stats.retries - before.retries}, redispatches ${stats.redispatches - before.redispatches}`,
      );
      if (failures.length) console.log('haproxy servers:', await set.balancer.servers());
      if (balancer === 'http') expect(failures).toEqual([]);
      else {
        // L4: a request written on the dead replica's connection fails with it, nothing else
        // does (one still in its TLS handshake is retried by the API server's HTTP client, so
        // how many are lost varies: counted, not required)
        for (const f of failures)
          expect(f).toMatch(
            /failed calling webhook .*(EOF|connection reset|broken pipe|socket hang up|socket disconnected)/,
          );
      }
      // the one left still judges: the protected pod stays
      const refused = await cluster.core.deleteNamespacedPod({ namespace: NS, name: 'web-1' }).then(
        () => undefined,
        (x) => x,
      );
      expect(message(refused)).toMatch(/reports too few available replicas/);
    }, 180_000);
  },
);
