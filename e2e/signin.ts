// Signing the browser in for the e2e specs and demo flows: the demo cluster writes its users'
// tokens (viewer, operator, admin) to tokens.csv in its state directory, in kube-apiserver's
// token-file format; a setup step signs in as one of them through the console's own sign-in
// route and saves the session cookie for the specs (Playwright's storageState).
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { APIRequestContext, Page } from '@playwright/test';

export type DemoUser = 'viewer' | 'operator' | 'admin';

/** A demo user's token from `<stateDir>/tokens.csv` (token,user,uid,"groups"). */
export function demoToken(stateDir: string, user: DemoUser): string {
  const file = resolve(stateDir, 'tokens.csv');
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    const [token, name] = line.split(',');
    if (name === user) return token;
  }
  throw new Error(`no user ${user} in ${file}`);
}

/** Sign in through POST /auth/token as the sign-in page does (same Origin), for a request context. */
export async function signInRequest(request: APIRequestContext, baseURL: string, token: string) {
  const r = await request.post('/auth/token', { data: { token }, headers: { origin: baseURL } });
  if (!r.ok()) throw new Error(`sign-in failed: ${r.status()} ${await r.text()}`);
}

/** Sign a page in through the sign-in form, as a person would. */
export async function signInPage(page: Page, token: string, next = '/') {
  await page.goto(`/signin?next=${encodeURIComponent(next)}`);
  await page.getByLabel('Kubernetes token').fill(token);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL((u) => u.pathname === next);
}
