// Debian's Chromium through Playwright's library (never a downloaded browser): open the
// map in a fresh context, time its first full render, and hand the page over for the
// latency phase.
import { writeFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { type Browser, type BrowserContext, type CDPSession, type Page, chromium } from '@playwright/test';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../../e2e/chromium.js';
import { sleep } from '../common.js';
import { IS_FULL, type ProbeState, READ_STATE, probeScript } from './probe.js';

export { CHROMIUM_PATH as CHROMIUM } from '../../e2e/chromium.js';
const RENDER_TIMEOUT_MS = 60_000;

export function launch(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: CHROMIUM_ARGS,
  });
}

export interface Render extends ProbeState {
  /** navigation timing, ms after navigation start */
  responseEndMs: number;
  domContentLoadedMs: number;
  loadMs: number;
}

export interface OpenMap {
  ctx: BrowserContext;
  page: Page;
  render: Render;
}

/** A CPU profile of the page's main thread from now until the returned function writes it to `path`. */
export async function profilePage(
  ctx: BrowserContext,
  page: Page,
): Promise<(path: string) => Promise<string>> {
  const cdp: CDPSession = await ctx.newCDPSession(page);
  await cdp.send('Profiler.enable');
  await cdp.send('Profiler.start');
  return async (path) => {
    const { profile } = await cdp.send('Profiler.stop');
    writeFileSync(path, JSON.stringify(profile));
    await cdp.detach();
    return path;
  };
}

/**
 * Polls `expr` every 250 ms from Node until it is truthy in the page. Not page.waitForFunction:
 * it compiles a string predicate with `new Function` from the page's own timers, which the
 * console's CSP (no 'unsafe-eval') refuses. page.evaluate runs over CDP (Runtime.callFunctionOn),
 * which CSP does not block, so the page keeps its real policy.
 */
export async function waitInPage(page: Page, expr: string, what: string, timeoutMs: number): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    // a document still being replaced is "not yet", as waitForFunction takes it
    const ok = await page.evaluate(expr).catch((e: Error) => {
      if (/Execution context was destroyed/.test(e.message)) return false;
      throw e;
    });
    if (ok) return;
    if (performance.now() >= deadline)
      throw new Error(`${what}: not reached within ${timeoutMs / 1000} s (${expr})`);
    await sleep(250);
  }
}

/**
 * A new context (no cache, no storage), the probe, then `/` until the map is full.
 * profilePath: also write a CPU profile of the page's load there.
 */
export async function openMap(
  browser: Browser,
  url: string,
  /** a token of the cluster: the context signs in with it first, as the sign-in page does */
  token: string,
  nodes: number,
  pods: number,
  profilePath?: string,
  timeoutMs = RENDER_TIMEOUT_MS,
): Promise<OpenMap> {
  // no bypassCSP: the map renders under the console's own Content-Security-Policy (the probe
  // goes in with addInitScript and is read with page.evaluate, both over CDP, which CSP allows)
  const ctx = await browser.newContext({ viewport: { width: 1600, height: 900 } });
  try {
    const signIn = await ctx.request.post(`${url}/auth/token`, { data: { token }, headers: { origin: url } });
    if (!signIn.ok()) throw new Error(`sign-in failed: ${signIn.status()} ${await signIn.text()}`);
    const page = await ctx.newPage();
    await page.addInitScript({ content: probeScript(nodes, pods) });
    const profiled = profilePath ? await profilePage(ctx, page) : undefined;
    const res = await page.goto(url, { waitUntil: 'commit' });
    if (!res?.headers()['content-security-policy']) throw new Error(`${url}: no Content-Security-Policy`);
    await waitInPage(page, IS_FULL, `the full map (${nodes} tiles, ${pods} pods)`, timeoutMs);
    await profiled?.(profilePath!);
    const state = (await page.evaluate(READ_STATE)) as ProbeState;
    const nav = (await page.evaluate(
      "(({ responseEnd, domContentLoadedEventEnd, loadEventEnd }) => ({ responseEnd, domContentLoadedEventEnd, loadEventEnd }))(performance.getEntriesByType('navigation')[0])",
    )) as { responseEnd: number; domContentLoadedEventEnd: number; loadEventEnd: number };
    const render: Render = {
      ...state,
      responseEndMs: nav.responseEnd,
      domContentLoadedMs: nav.domContentLoadedEventEnd,
      loadMs: nav.loadEventEnd,
    };
    return { ctx, page, render };
  } catch (e) {
    await ctx.close().catch(() => undefined);
    throw e;
  }
}
