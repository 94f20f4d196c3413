import { expect, test } from '@playwright/test';
import { budget } from './helpers';

// Issue 25, finding 6: React error #418 (a hydration mismatch) on each load of the timeline. Every
// page of the console loads without an error in the browser's console: a mismatch makes React
// throw away the server's HTML and render again, and hides the next real error among the noise.
const PAGES = [
  '/',
  '/incident',
  '/timeline',
  '/nodes',
  '/pods',
  '/volumes',
  '/fencing',
  '/protectors',
  '/instance-ids',
  '/leadership',
  '/audit',
];

test('every page loads without an error in the browser console', async ({ page }) => {
  test.setTimeout(budget(120_000));
  const errors: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(`${page.url()}: ${m.text()}`);
  });
  page.on('pageerror', (e) => errors.push(`${page.url()}: ${e.message}`));
  for (const path of PAGES) {
    await page.goto(path);
    await expect(page.getByRole('heading', { level: 1 }).first()).toBeVisible();
    await expect(page.locator('[data-keys="on"]')).toHaveCount(1, { timeout: 30_000 });
  }
  expect(errors).toEqual([]);
});
