// Runs before the specs (the "setup" project): signs in as the demo cluster's admin user and
// saves the session cookie that every spec's browser starts with.
import { resolve } from 'node:path';
import { test as setup } from '@playwright/test';
import { E2E_STATE_DIR, E2E_STORAGE } from './helpers';
import { demoToken, signInRequest } from './signin';

setup('sign in as the demo admin', async ({ request, baseURL }) => {
  await signInRequest(request, baseURL!, demoToken(E2E_STATE_DIR, 'admin'));
  await request.storageState({ path: resolve(E2E_STORAGE) });
});
