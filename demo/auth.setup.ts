// Before the demo flow: sign in as the demo cluster's admin user (its token in tokens.csv)
// and save the session for the flow's browser.
import { test as setup } from '@playwright/test';
import { demoToken, signInRequest } from '../e2e/signin';
import { demoPaths } from './paths';

const demo = demoPaths(process.env.PALISADE_DEMO ?? 'storm');

setup('sign in as the demo admin', async ({ request, baseURL }) => {
  await signInRequest(request, baseURL!, demoToken(demo.stateDirAbs, 'admin'));
  await request.storageState({ path: demo.storageState });
});
