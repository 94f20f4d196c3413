import { describe, expect, it } from 'vitest';
import { DeadlineExceeded, RetryBatch } from './retryBatch.js';

describe('RetryBatch', () => {
  it('coalesces requests that arrive during a round into the next one', async () => {
    const rounds: number[][] = [];
    const rb = new RetryBatch<number, number>({
      async execute(_k, reqs) {
        rounds.push(reqs);
        await new Promise((r) => setTimeout(r, 20));
        return { kind: 'done', results: reqs.map((x) => x * 2) };
      },
    });
    const far = Date.now() + 5000;
    const all = await Promise.all([1, 2, 3, 4, 5].map((n) => rb.submit('p', n, far)));
    expect(all).toEqual([2, 4, 6, 8, 10]);
    expect(rounds).toEqual([[1], [2, 3, 4, 5]]);
  });

  it('retries the whole batch on conflict, with late arrivals joining it', async () => {
    let calls = 0;
    const seen: number[][] = [];
    const rb = new RetryBatch<number, string>({
      backoffBaseMs: 1,
      backoffJitterMs: 1,
      async execute(_k, reqs) {
        seen.push(reqs);
        calls++;
        if (calls < 3) return { kind: 'conflict' };
        return { kind: 'done', results: reqs.map(String) };
      },
    });
    const far = Date.now() + 5000;
    const a = rb.submit('p', 1, far);
    const b = rb.submit('p', 2, far);
    expect(await Promise.all([a, b])).toEqual(['1', '2']);
    expect(seen.at(-1)).toEqual([1, 2]);
  });

  it('drops requests whose deadline passed before the next try', async () => {
    const rb = new RetryBatch<number, number>({
      backoffBaseMs: 30,
      backoffJitterMs: 0,
      async execute() {
        return { kind: 'conflict' };
      },
    });
    await expect(rb.submit('p', 1, Date.now() + 50)).rejects.toBeInstanceOf(DeadlineExceeded);
  });

  it('keys are independent', async () => {
    const order: string[] = [];
    const rb = new RetryBatch<string, string>({
      async execute(k, reqs) {
        order.push(k);
        return { kind: 'done', results: reqs };
      },
    });
    const far = Date.now() + 1000;
    await Promise.all([rb.submit('a', 'x', far), rb.submit('b', 'y', far)]);
    expect(order.sort()).toEqual(['a', 'b']);
  });
});
