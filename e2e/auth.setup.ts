// Runs before the specs (the "setup" project): signs in as the demo cluster's admin user and
// saves the session cookie that every spec's browser starts with.
import { rmSync } from 'node:fs';
import { resolve } from 'node:path';
import { test as setup } from '@playwright/test';
import { E2E_STATE_DIR, E2E_STORAGE } from './helpers';
import { demoToken, signInRequest } from './signin';

// node locks (helpers.withNode) left by an earlier run that was killed
setup('no node locks from an earlier run', () => {
  rmSync(resolve(E2E_STATE_DIR, 'locks'), { recursive: true, force: true });
});

setup('sign in as the demo admin', async ({ request, baseURL }) => {
  await signInRequest(request, baseURL!, demoToken(E2E_STATE_DIR, 'admin'));
  await request.storageState({ path: resolve(E2E_STORAGE) });
});
