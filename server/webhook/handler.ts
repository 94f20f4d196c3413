// What the one webhook listener (listener.ts) routes to: a Handler per path, each judging the
// AdmissionReviews of its webhook for one cell. Deletion protection, fence approval, FencePolicy
// writes and leader epochs each register one (server/protection/service.ts wires them).

/** The paths the listener serves: POST /<path>/<cellID>. */
export const WEBHOOK_PATHS = ['admission', 'fences', 'fencepolicies', 'epochs'] as const;
export type WebhookPath = (typeof WEBHOOK_PATHS)[number];

export interface ReviewContext {
  /** how long the API server waits for the answer (its ?timeout=, 10 s when absent) */
  timeoutMs: number;
}

/** One webhook: the review's text, for a known cell, answered as [HTTP status, body]. */
export interface Handler {
  review(text: string, cellId: string, ctx: ReviewContext): Promise<[number, unknown]>;
}

export type Handlers = Partial<Record<WebhookPath, Handler>>;
