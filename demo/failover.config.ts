import { defineConfig, devices } from '@playwright/test';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../e2e/chromium';
import { demoPaths } from './paths';

// Demo flow "failover" (scripts/demo.sh picks this config over playwright.config.ts): three
// Palisade replicas on one embedded cluster, so no webServer here — the flow starts the cluster
// (in its own worker process, so that killing a replica never takes the cluster with it) and the
// three replicas itself, and signs the browser in to one of them.
const demo = demoPaths('failover');
export default defineConfig({
  testDir: '.',
  testMatch: 'failover.spec.ts',
  outputDir: demo.playwrightDir,
  timeout: 420_000,
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
