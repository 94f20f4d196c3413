import { describe, expect, it } from 'vitest';
import { InstanceIdClient, InstanceIdError } from './client.js';

type Call = { url: string; init: RequestInit };

/** A fetch that answers from a script, recording what it was sent. */
function scripted(answers: (Response | Error)[]) {
  const calls: Call[] = [];
  const fetch = (async (url: URL | string, init?: RequestInit) => {
    calls.push({ url: String(url), init: init ?? {} });
    const next = answers.shift();
    if (!next) throw new Error('no more answers');
    if (next instanceof Error) throw next;
    return next;
  }) as typeof globalThis.fetch;
  return { fetch, calls };
}

const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });

const ANSWER = {
  id: 2,
  replicas: 3,
  workload: { kind: 'Deployment', namespace: 'shop', name: 'web' },
  retries: 0,
};

describe('the instance-ID client', () => {
  it('posts the pod and its token to /instance-ids/acquire, reading the token each time', async () => {
    const f = scripted([json(200, ANSWER), json(200, { ...ANSWER, released: 2 })]);
    let n = 0;
    const c = new InstanceIdClient({
      url: 'http://palisade.test:3000/',
      namespace: 'shop',
      pod: 'web-1',
      token: () => `t${++n}`,
      fetch: f.fetch,
    });
    expect(await c.acquireOnce()).toEqual(ANSWER);
    await c.release();
    expect(f.calls.map((x) => x.url)).toEqual([
      'http://palisade.test:3000/instance-ids/acquire',
      'http://palisade.test:3000/instance-ids/release',
    ]);
    expect(f.calls[0].init.method).toBe('POST');
    expect(f.calls[0].init.headers).toEqual({
      authorization: 'Bearer t1',
      'content-type': 'application/json',
    });
    expect(JSON.parse(String(f.calls[0].init.body))).toEqual({ namespace: 'shop', pod: 'web-1' });
    expect((f.calls[1].init.headers as Record<string, string>).authorization).toBe('Bearer t2');
  });

  it("a refusal becomes an error with Palisade's code and sentence", async () => {
    const f = scripted([json(403, { code: 'not_this_pod', error: 'the token is bound to pod shop/other' })]);
    const c = new InstanceIdClient({
      url: 'http://p',
      namespace: 'shop',
      pod: 'web-1',
      token: 't',
      fetch: f.fetch,
    });
    const e = await c.acquireOnce().catch((x) => x);
    expect(e).toBeInstanceOf(InstanceIdError);
    expect(e).toMatchObject({
      status: 403,
      code: 'not_this_pod',
      message: 'the token is bound to pod shop/other',
    });
    expect(e.retryable).toBe(false);
  });

  it('acquire() asks again while every id is held or Palisade is away, then gives up at its deadline', async () => {
    const f = scripted([
      json(409, { code: 'no_free_id', error: 'all 1 instance IDs are held' }),
      new Error('connect ECONNREFUSED'),
      json(200, ANSWER),
    ]);
    const c = new InstanceIdClient({
      url: 'http://p',
      namespace: 'shop',
      pod: 'web-1',
      token: 't',
      fetch: f.fetch,
    });
    expect(await c.acquire({ baseDelayMs: 1, maxDelayMs: 2 })).toEqual(ANSWER);
    expect(f.calls).toHaveLength(3);

    const never = scripted(
      Array.from({ length: 50 }, () => json(409, { code: 'no_free_id', error: 'held' })),
    );
    const d = new InstanceIdClient({
      url: 'http://p',
      namespace: 'shop',
      pod: 'web-1',
      token: 't',
      fetch: never.fetch,
    });
    await expect(d.acquire({ deadlineMs: 20, baseDelayMs: 4, maxDelayMs: 4 })).rejects.toMatchObject({
      code: 'no_free_id',
    });
    expect(never.calls.length).toBeGreaterThan(1);
    expect(never.calls.length).toBeLessThan(50);
  });

  it('asks again while a holder is not known to have stopped, and says for whom it waited', async () => {
    const waiting = [
      {
        id: 0,
        pod: 'web-0',
        node: 'c2-2',
        reason: 'node-unreachable',
        text: 'web-0 on c2-2: node unreachable',
      },
    ];
    const f = scripted([
      json(409, { code: 'holder_not_stopped', error: 'waits', waiting }),
      json(200, ANSWER),
    ]);
    const c = new InstanceIdClient({
      url: 'http://p',
      namespace: 'shop',
      pod: 'web-1',
      token: 't',
      fetch: f.fetch,
    });
    expect(await c.acquire({ baseDelayMs: 1, maxDelayMs: 2 })).toEqual(ANSWER);
    expect(f.calls).toHaveLength(2);
    const once = scripted([json(409, { code: 'holder_not_stopped', error: 'waits', waiting })]);
    const e = await new InstanceIdClient({
      url: 'http://p',
      namespace: 'shop',
      pod: 'web-1',
      token: 't',
      fetch: once.fetch,
    })
      .acquireOnce()
      .catch((x) => x);
    expect(e).toMatchObject({ status: 409, code: 'holder_not_stopped', retryable: true, waiting });
  });

  it('does not retry what will not change (a refusal of the token)', async () => {
    const f = scripted([json(401, { code: 'unauthenticated', error: 'no' }), json(200, ANSWER)]);
    const c = new InstanceIdClient({
      url: 'http://p',
      namespace: 'shop',
      pod: 'web-1',
      token: 't',
      fetch: f.fetch,
    });
    await expect(c.acquire({ baseDelayMs: 1 })).rejects.toMatchObject({ code: 'unauthenticated' });
    expect(f.calls).toHaveLength(1);
  });

  it('asks again after a rate limit (429), no sooner than its Retry-After', async () => {
    // the fault run: pods behind one address hit the per-client limit and gave up for good
    const limited = new Response(
      JSON.stringify({ code: 'rate_limited', error: 'too many failed sign-ins' }),
      {
        status: 429,
        headers: { 'content-type': 'application/json', 'retry-after': '1' },
      },
    );
    const f = scripted([limited, json(200, ANSWER)]);
    const c = new InstanceIdClient({
      url: 'http://p',
      namespace: 'shop',
      pod: 'web-1',
      token: 't',
      fetch: f.fetch,
    });
    const started = Date.now();
    expect(await c.acquire({ baseDelayMs: 1 })).toEqual(ANSWER);
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
    expect(f.calls).toHaveLength(2);
  });

  it('gives up on a 429 whose Retry-After is past its deadline', async () => {
    const f = scripted([
      new Response(JSON.stringify({ code: 'rate_limited', error: 'slow down' }), {
        status: 429,
        headers: { 'retry-after': '60' },
      }),
    ]);
    const c = new InstanceIdClient({
      url: 'http://p',
      namespace: 'shop',
      pod: 'web-1',
      token: 't',
      fetch: f.fetch,
    });
    await expect(c.acquire({ baseDelayMs: 1, deadlineMs: 5_000 })).rejects.toMatchObject({
      status: 429,
      retryable: true,
      retryAfterMs: 60_000,
    });
    expect(f.calls).toHaveLength(1);
  });

  it('an answer that is not Palisade (a proxy page) says what came back', async () => {
    const f = scripted([
      new Response('<html>Bad Gateway</html>', { status: 502, statusText: 'Bad Gateway' }),
    ]);
    const c = new InstanceIdClient({
      url: 'http://p',
      namespace: 'shop',
      pod: 'web-1',
      token: 't',
      fetch: f.fetch,
    });
    await expect(c.acquireOnce()).rejects.toMatchObject({
      status: 502,
      code: 'bad_answer',
      message: 'Palisade answered 502 Bad Gateway: <html>Bad Gateway</html>',
    });
  });
});
