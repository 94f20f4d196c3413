import { defineConfig, devices } from '@playwright/test';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../e2e/chromium';
import { demoPaths } from './paths';

// One demo flow per run (PALISADE_DEMO, set by scripts/demo.sh), on a console and embedded
// cluster of its own (own port and state dir), so it never disturbs the e2e server. Every
// run keeps its Playwright trace; the spec saves its own screenshots.
const demo = demoPaths(process.env.PALISADE_DEMO ?? 'storm');
// below Linux's ephemeral range (32768-60999): a server another test binds to port 0 never
// takes it between Playwright's check and this server's listen (CI saw EADDRINUSE on 39417)
const port = Number(process.env.PALISADE_DEMO_PORT ?? 29517);
export default defineConfig({
  testDir: '.',
  testMatch: `${demo.name}.spec.ts`,
  outputDir: demo.playwrightDir,
  timeout: 150_000,
  expect: { timeout: 20_000 },
  fullyParallel: false,
  workers: 1,
  retries: 0,
  reporter: [['list'], ['../e2e/summary-reporter.ts']],
  webServer: {
    command: `node --import tsx server/main.ts --port ${port} --state-dir ${demo.stateDir} --scenario demo`,
    cwd: '..',
    url: `http://127.0.0.1:${port}/readyz`,
    timeout: 120_000,
    reuseExistingServer: false,
    stdout: 'ignore',
    stderr: 'pipe',
  },
  use: {
    baseURL: `http://127.0.0.1:${port}`,
    screenshot: 'off',
    trace: 'on',
    video: 'off',
    launchOptions: { executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS },
  },
  // tall enough that a protector's page shows its chart and recent decisions in one shot
  projects: [
    // signs in as the demo cluster's admin user first (tokens.csv), as a person would
    { name: 'setup', testMatch: /auth\.setup\.ts/ },
    {
      name: 'chromium',
      dependencies: ['setup'],
      use: {
        ...devices['Desktop Chrome'],
        channel: undefined,
        viewport: { width: 1280, height: 1000 },
        storageState: demo.storageState,
      },
    },
  ],
});
