// The embedded cluster's live infrastructure event stream (server-sent events at
// /v1/events), supervised: a dropped stream reconnects with backoff until stop(), and each
// (re)connection is announced so a consumer can re-read what it may have missed.
import { EventEmitter } from 'node:events';
import type { InfraEndpoint } from './infra.js';

export interface InfraStreamEvent {
  type: string;
  at: number;
  node?: string;
  [key: string]: unknown;
}

/** Splits an SSE byte stream into events; keeps the unfinished tail between chunks. */
export class SseParser {
  private buf = '';
  push(chunk: string): { event: string; data: string }[] {
    this.buf += chunk;
    const out: { event: string; data: string }[] = [];
    let end = this.buf.indexOf('\n\n');
    while (end >= 0) {
      const block = this.buf.slice(0, end);
      this.buf = this.buf.slice(end + 2);
      let event = 'message';
      const data: string[] = [];
      for (const line of block.split('\n')) {
        if (line.startsWith('event:')) event = line.slice(6).trim();
        else if (line.startsWith('data:')) data.push(line.slice(5).trimStart());
      }
      if (data.length) out.push({ event, data: data.join('\n') });
      end = this.buf.indexOf('\n\n');
    }
    return out;
  }
}

export class InfraStream extends EventEmitter<{
  event: [InfraStreamEvent];
  connected: [];
  lost: [string];
}> {
  private stopped = false;
  private abort?: AbortController;
  private backoffMs = 250;
  private timer?: NodeJS.Timeout;
  connected = false;

  constructor(
    private readonly ep: InfraEndpoint,
    private readonly maxBackoffMs = 10_000,
  ) {
    super();
  }

  start() {
    void this.run();
  }

  stop() {
    this.stopped = true;
    clearTimeout(this.timer);
    this.abort?.abort();
  }

  private async run() {
    if (this.stopped) return;
    this.abort = new AbortController();
    try {
      const res = await fetch(`${this.ep.url}/v1/events`, {
        headers: { authorization: `Bearer ${this.ep.token}`, accept: 'text/event-stream' },
        signal: this.abort.signal,
      });
      if (!res.ok || !res.body) throw new Error(`infrastructure event stream answered ${res.status}`);
      await this.read(res.body);
      throw new Error('infrastructure event stream ended');
    } catch (e) {
      if (this.stopped) return;
      if (this.connected) this.emit('lost', (e as Error).message);
      this.connected = false;
      this.timer = setTimeout(() => void this.run(), this.backoffMs);
      this.backoffMs = Math.min(this.backoffMs * 2, this.maxBackoffMs);
    }
  }

  private async read(body: ReadableStream<Uint8Array>) {
    const parser = new SseParser();
    const decoder = new TextDecoder();
    for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
      if (!this.connected) {
        this.connected = true;
        this.backoffMs = 250;
        this.emit('connected');
      }
      for (const { data } of parser.push(decoder.decode(chunk, { stream: true }))) {
        try {
          this.emit('event', JSON.parse(data) as InfraStreamEvent);
        } catch {
          // a malformed event is skipped, not fatal: the next resync corrects any gap
        }
      }
    }
  }
}

/**
 * Follow a cluster's ground truth for a live feed: `mark` on each event `matters` accepts and on
 * each (re)connect, when events may have been missed. It reconnects by itself; stop() it.
 */
export function followTruth(
  ep: InfraEndpoint,
  matters: (e: InfraStreamEvent) => boolean,
  mark: () => void,
): InfraStream {
  const stream = new InfraStream(ep);
  stream.on('event', (e) => matters(e) && mark());
  stream.on('connected', mark);
  stream.on('lost', () => undefined);
  stream.start();
  return stream;
}
