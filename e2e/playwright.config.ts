import { defineConfig, devices } from '@playwright/test';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from './chromium';
import { budget, E2E_STORAGE } from './helpers';

// Playwright starts the real console (built UI, embedded demo cluster) on 127.0.0.1
// unless PALISADE_URL points at one already running. Browsers: Debian's Chromium;
// never `playwright install`.
// below Linux's ephemeral range (32768-60999): a server another test binds to port 0 never
// takes it between Playwright's check and this server's listen (CI saw EADDRINUSE on 39417)
const port = Number(process.env.PALISADE_E2E_PORT ?? 29417);
const external = process.env.PALISADE_URL;
export default defineConfig({
  testDir: '.',
  testMatch: '**/*.spec.ts',
  outputDir: '../test-results',
  // budgets, not waits: three times larger on CI's loaded machine (helpers.ts)
  timeout: budget(30_000),
  expect: { timeout: budget(15_000) },
  fullyParallel: false,
  retries: 0,
  reporter: [
    ['list'],
    ['html', { outputFolder: '../playwright-report', open: 'never' }],
    ['./summary-reporter.ts'],
  ],
  webServer: external
    ? undefined
    : {
        command: `node --import tsx server/main.ts --port ${port} --state-dir .palisade/e2e --scenario demo --fence-policy none`,
        cwd: '..',
        // ready once the informers have their first lists
        url: `http://127.0.0.1:${port}/readyz`,
        timeout: 120_000,
        reuseExistingServer: false,
        stdout: 'pipe',
        stderr: 'pipe',
      },
  use: {
    baseURL: external ?? `http://127.0.0.1:${port}`,
    screenshot: 'only-on-failure',
    trace: 'retain-on-failure',
    video: 'off',
    launchOptions: {
      executablePath: CHROMIUM_PATH,
      args: CHROMIUM_ARGS,
    },
  },
  projects: [
    // signs in as the demo admin once; the specs start signed in (their own sign-in specs sign out)
    { name: 'setup', testMatch: /auth\.setup\.ts/ },
    {
      name: 'chromium',
      dependencies: ['setup'],
      use: { ...devices['Desktop Chrome'], channel: undefined, storageState: E2E_STORAGE },
    },
  ],
});
