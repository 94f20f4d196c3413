// What bench:memory makes the console serve while it is measured: Debian's Chromium signs in
// with a token of the cluster, opens every page of the console in turn (each a server render by
// the Next.js handler, its scripts and its tRPC queries), a few rounds, then keeps some pages open
// (each a socket.io session with its rooms: the live map, pod list, incident and timeline).
import type { Browser, BrowserContext, Page } from '@playwright/test';
import { sleep } from '../common.js';

/** every page of the console's navigation (app/(console)/) */
export const PAGES = [
  '/',
  '/nodes',
  '/pods',
  '/volumes',
  '/protectors',
  '/fencing',
  '/incident',
  '/timeline',
  '/audit',
  '/instance-ids',
  '/leadership',
];
/** the pages kept open afterwards, each its own socket.io session */
export const LIVE = ['/', '/pods', '/incident', '/timeline'];

const PAGE_TIMEOUT_MS = 60_000;

export interface Pages {
  loads: number;
  /** pages that answered other than 200, or failed to load */
  errors: string[];
}

async function signedIn(browser: Browser, url: string, token: string): Promise<BrowserContext> {
  const ctx = await browser.newContext({ viewport: { width: 1600, height: 900 } });
  const r = await ctx.request.post(`${url}/auth/token`, { data: { token }, headers: { origin: url } });
  if (!r.ok()) throw new Error(`sign-in failed: ${r.status()} ${await r.text()}`);
  return ctx;
}

async function load(page: Page, url: string, path: string, errors: string[]) {
  try {
    const res = await page.goto(`${url}${path}`, { waitUntil: 'load', timeout: PAGE_TIMEOUT_MS });
    if (res?.status() !== 200) errors.push(`${path}: ${res?.status()}`);
    // its queries and the first live snapshot
    await sleep(750);
  } catch (e) {
    errors.push(`${path}: ${(e as Error).message.split('\n')[0]}`);
  }
}

/** `rounds` times every page, one after the other in one tab, which is then closed. */
export async function everyPage(
  browser: Browser,
  url: string,
  token: string,
  rounds: number,
): Promise<Pages> {
  const errors: string[] = [];
  let loads = 0;
  const ctx = await signedIn(browser, url, token);
  try {
    const page = await ctx.newPage();
    for (let r = 0; r < rounds; r++)
      for (const p of PAGES) {
        await load(page, url, p, errors);
        loads++;
      }
  } finally {
    await ctx.close();
  }
  return { loads, errors };
}

/** LIVE open, each in a tab of its own (a socket.io session each); close the context to end them. */
export async function livePages(
  browser: Browser,
  url: string,
  token: string,
): Promise<Pages & { live: BrowserContext }> {
  const errors: string[] = [];
  const live = await signedIn(browser, url, token);
  for (const p of LIVE) await load(await live.newPage(), url, p, errors);
  return { loads: LIVE.length, errors, live };
}
