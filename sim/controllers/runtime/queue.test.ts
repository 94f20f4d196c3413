import { describe, expect, it } from 'vitest';
import { WorkQueue } from './queue.js';

const until = async (check: () => boolean) => {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((r) => setTimeout(r, 10));
};

describe('WorkQueue', () => {
  it('deduplicates keys added before they are handled', async () => {
    const seen: string[] = [];
    const q = new WorkQueue(async (k) => {
      seen.push(k);
    });
    q.add('a');
    q.add('a');
    q.add('b');
    await until(() => seen.length >= 2);
    expect(seen).toEqual(['a', 'b']);
    q.stop();
  });

  it('runs delayed keys in deadline order, keeping the earliest deadline', async () => {
    const seen: string[] = [];
    const q = new WorkQueue(async (k) => {
      seen.push(k);
    });
    q.addAfter('late', 60);
    q.addAfter('early', 20);
    q.addAfter('late', 500); // later deadline for a scheduled key is ignored
    await until(() => seen.length >= 2);
    expect(seen).toEqual(['early', 'late']);
    q.stop();
  });

  it('retries a failing key with backoff', async () => {
    let calls = 0;
    const errors: string[] = [];
    const q = new WorkQueue(
      async () => {
        calls++;
        if (calls < 3) throw new Error(`fail ${calls}`);
      },
      (_k, e) => errors.push((e as Error).message),
    );
    q.add('x');
    await until(() => calls >= 3);
    expect(calls).toBe(3);
    expect(errors).toEqual(['fail 1', 'fail 2']);
    q.stop();
  });
});

describe('WorkQueue with concurrency', () => {
  it('handles different keys in parallel but never one key twice at once', async () => {
    let active = 0;
    let peak = 0;
    const perKey = new Map<string, number>();
    let overlap = false;
    const q = new WorkQueue(
      async (k) => {
        active++;
        peak = Math.max(peak, active);
        perKey.set(k, (perKey.get(k) ?? 0) + 1);
        if ((perKey.get(k) ?? 0) > 1) overlap = true;
        await new Promise((r) => setTimeout(r, 20));
        perKey.set(k, (perKey.get(k) ?? 0) - 1);
        active--;
      },
      undefined,
      4,
    );
    for (let i = 0; i < 8; i++) q.add(`k${i}`);
    q.add('k0');
    await new Promise((r) => setTimeout(r, 10));
    q.add('k0'); // re-added while in flight: runs again afterwards
    await until(() => active === 0 && q.length === 0);
    await new Promise((r) => setTimeout(r, 50));
    expect(peak).toBeGreaterThan(1);
    expect(peak).toBeLessThanOrEqual(4);
    expect(overlap).toBe(false);
    q.stop();
  });
});
