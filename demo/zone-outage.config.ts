import { defineConfig, devices } from '@playwright/test';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../e2e/chromium';
import { demoPaths } from './paths';

// Demo flow "zone-outage" (scripts/demo.sh picks this config over playwright.config.ts): the
// console is restarted mid-flow to show that the incident's timeline outlives it, so no
// webServer here — the flow starts the embedded demo cluster in its own worker and the console
// as a process of its own, twice, on one state directory (the history store lives there).
const demo = demoPaths('zone-outage');
export default defineConfig({
  testDir: '.',
  testMatch: 'zone-outage.spec.ts',
  outputDir: demo.playwrightDir,
  timeout: 720_000,
  expect: { timeout: 20_000 },
  fullyParallel: false,
  workers: 1,
  retries: 0,
  reporter: [['list'], ['../e2e/summary-reporter.ts']],
  use: {
    screenshot: 'off',
    trace: 'on',
    video: 'off',
    launchOptions: { executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS },
  },
  projects: [
    {
      name: 'chromium',
      use: { ...devices['Desktop Chrome'], channel: undefined, viewport: { width: 1280, height: 1000 } },
    },
  ],
});
