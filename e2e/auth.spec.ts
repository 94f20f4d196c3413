// Sign-in as people meet it: the sign-in page, the demo users' RBAC shown in the UI (what a
// viewer may not do is disabled, saying why), sign-out, a session that ends while a page is
// open, and sign-in through a real OpenID Connect provider (oidc-provider, testenv/oidc) with
// Palisade impersonating the person.
import { writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import * as k8s from '@kubernetes/client-node';
import { chromium, expect, test } from '@playwright/test';
import { freePort } from '../sim/real/controlPlane';
import { spawnIdentityProvider, type SpawnedIdentityProvider } from '../testenv/oidc/index';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from './chromium';
import { E2E_KUBECONFIG, E2E_STATE_DIR, type SecondConsole, startSecondConsole, budget } from './helpers';
import { demoToken, signInPage } from './signin';

test.describe('signed out', () => {
  // a browser with no session at all
  test.use({ storageState: { cookies: [], origins: [] } });

  test('pages send you to sign-in; a wrong token is refused; the viewer sees what it may not do', async ({
    page,
  }) => {
    await page.goto('/nodes');
    await expect(page).toHaveURL(/\/signin\?next=%2Fnodes/);
    await expect(page.getByRole('heading', { name: 'Sign in to Palisade' })).toBeVisible();
    // every page says which replica served it, the sign-in page too
    await expect(page.getByTestId('replica')).toContainText(/served by Palisade replica \S+_\d+_\S+/);
    // the demo users' tokens where --state-dir put them (issue 25: it said .palisade/tokens.csv)
    await expect(page.getByTestId('demo-tokens')).toHaveText('.palisade/e2e/tokens.csv');
    await page.screenshot({ path: resolve(import.meta.dirname, '..', 'docs', 'console-signin.png') });
    await page.getByLabel('Kubernetes token').fill('not-a-token-of-this-cluster');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect(page.getByRole('alert').filter({ hasText: 'does not accept this token' })).toBeVisible();

    await signInPage(page, demoToken(E2E_STATE_DIR, 'viewer'), '/');
    await expect(page.getByTestId('signed-in-user')).toHaveText('viewer');
    await expect(page.getByTestId('replica-badge')).toHaveText(/^replica \d+·\w+$/);
    // the simulation controls need create on simulatedfaults.palisade.dev: disabled, with why
    await page.getByTestId('node-tile-a1-1').click();
    const panel = page.getByRole('complementary', { name: 'Node a1-1' });
    const simulation = panel.getByRole('region', { name: 'Embedded cluster (simulation)' });
    await expect(simulation.getByTestId('forbidden-reason')).toContainText(
      'Not allowed: you (viewer) may not create simulatedfaults.palisade.dev "a1-1"',
    );
    await expect(panel.getByRole('button', { name: 'Simulate partition on a1-1' })).toBeDisabled();
    // the node's own actions too: Cordon and Drain, each disabled with the cluster's reason
    const actions = panel.getByTestId('node-actions');
    await expect(actions.getByTestId('guarded-open-cordonNode')).toBeDisabled();
    await expect(actions.getByTestId('guarded-open-drainNode')).toBeDisabled();
    await expect(actions.getByTestId('forbidden-reason').first()).toContainText(
      'you (viewer) may not patch nodes "a1-1"',
    );
    await simulation.getByTestId('forbidden-reason').scrollIntoViewIfNeeded();
    await page.getByTestId('user-menu').click();
    await expect(page.getByText('signed in with a Kubernetes token')).toBeVisible();
    // the README's picture of it
    await page.screenshot({ path: resolve(import.meta.dirname, '..', 'docs', 'console-viewer.png') });
    await page.keyboard.press('Escape');

    // sign out: back to the sign-in page, and the API no longer answers this browser
    await page.getByTestId('user-menu').click();
    await expect(page.getByRole('button', { name: 'Sign out everywhere' })).toBeVisible();
    await page.getByRole('button', { name: 'Sign out', exact: true }).click();
    await expect(page).toHaveURL(/\/signin\?next=%2F&ended=signed-out$/);
    await expect(page.getByRole('status')).toContainText('You are signed out.');
    expect((await page.request.get('/api/trpc/clusters.list')).status()).toBe(401);
  });

  test('after sign-in the browser stays on the console, whatever next says (issue 23: /\\t/evil)', async ({
    page,
    baseURL,
  }) => {
    // browsers drop the tab: "/\t/evil.example/" would be "//evil.example/", another site
    for (const next of ['%2F%09%2Fevil.example%2F', '%2F%5Cevil.example%2F', '%2F.%2F%2Fevil.example%2F']) {
      await page.goto(`/signin?next=${next}`);
      await page.getByLabel('Kubernetes token').fill(demoToken(E2E_STATE_DIR, 'viewer'));
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.waitForURL((u) => u.pathname !== '/signin');
      expect(new URL(page.url()).origin).toBe(new URL(baseURL!).origin);
      // leave the console's page first: signed out under it, it would go to sign-in by itself
      await page.goto('about:blank');
      await page.context().clearCookies();
    }
  });

  test('a viewer sees force delete disabled on a pod page, with the reason', async ({ page }) => {
    await signInPage(page, demoToken(E2E_STATE_DIR, 'viewer'), '/pods');
    const api = new k8s.KubeConfig();
    api.loadFromFile(E2E_KUBECONFIG);
    const pods = await api.makeApiClient(k8s.CoreV1Api).listNamespacedPod({ namespace: 'shop' });
    const pod = pods.items.find((p) => p.status?.phase === 'Running')!;
    const cluster = 'palisade-embedded';
    await page.goto(`/clusters/${cluster}/namespaces/shop/pods/${pod.metadata!.name}`);
    await expect(page.getByTestId('guarded-open-forceDeletePod')).toBeDisabled();
    await expect(page.getByTestId('forbidden-reason')).toContainText(
      `you (viewer) may not delete pods "${pod.metadata!.name}" in shop`,
    );
  });
});

test.describe('a session that ends while its page is open', () => {
  let second: SecondConsole | undefined;
  test.beforeAll(async () => {
    // starts processes of its own: bounded, with room for a loaded machine (CI runs phases side by side)
    test.setTimeout(budget(120_000));
    const dir = mkdtempSync(join(tmpdir(), 'palisade-expiry-'));
    const config = join(dir, 'palisade.yaml');
    // long enough for the page to load signed in on a loaded machine (at 6 s it sometimes did not)
    writeFileSync(config, 'server:\n  session:\n    absoluteTimeout: 20s\n');
    second = await startSecondConsole(['--kubeconfig', E2E_KUBECONFIG, '--config', config]);
  });
  test.afterAll(() => second?.stop());

  test('goes back to sign-in and says why', async ({ page }) => {
    await page.goto(second!.link);
    await expect(page.getByTestId('signed-in-user')).toBeVisible();
    await expect(page).toHaveURL(/\/signin\?.*ended=absolute/, { timeout: budget(40_000) });
    await expect(page.getByRole('status')).toContainText('Your session reached its maximum length.');
  });
});

test.describe('OpenID Connect sign-in', () => {
  let idp: SpawnedIdentityProvider | undefined;
  let second: SecondConsole | undefined;
  let binding = false;
  const rbac = () => {
    const kc = new k8s.KubeConfig();
    kc.loadFromFile(E2E_KUBECONFIG);
    return kc.makeApiClient(k8s.RbacAuthorizationV1Api);
  };

  test.beforeAll(async () => {
    // starts processes of its own: bounded, with room for a loaded machine (CI runs phases side by side)
    test.setTimeout(budget(120_000));
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    idp = await spawnIdentityProvider({
      clients: [
        { clientId: 'palisade', clientSecret: 'e2e-secret', redirectUris: [`${base}/auth/oidc/callback`] },
      ],
    });
    const dir = mkdtempSync(join(tmpdir(), 'palisade-oidc-'));
    const config = join(dir, 'palisade.yaml');
    writeFileSync(
      config,
      [
        'auth:',
        '  oidc:',
        `    issuer: ${idp.issuer}`,
        '    clientID: palisade',
        '    clientSecret: e2e-secret',
        '    usernameClaim: preferred_username',
        '    groupsClaim: groups',
        '    usernamePrefix: "oidc:"',
        '    groupsPrefix: "oidc:"',
        `    caFile: ${idp.caFile}`,
        '',
      ].join('\n'),
    );
    // alice's group may operate, as a team would bind it
    await rbac().createClusterRoleBinding({
      body: {
        metadata: { name: 'e2e-oidc-operators' },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'palisade-operator' },
        subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: 'oidc:palisade-operators' }],
      },
    });
    binding = true;
    second = await startSecondConsole(['--kubeconfig', E2E_KUBECONFIG, '--config', config], {
      port,
      link: false,
    });
  });

  test.afterAll(async () => {
    second?.stop();
    await idp?.stop();
    if (binding)
      await rbac()
        .deleteClusterRoleBinding({ name: 'e2e-oidc-operators' })
        .catch(() => undefined);
  });

  test('alice signs in at the provider; Palisade acts as oidc:alice with her groups', async () => {
    // this browser trusts the provider's test certificate by its key, and nothing else
    const browser = await chromium.launch({
      executablePath: CHROMIUM_PATH,
      args: [...CHROMIUM_ARGS, ...idp!.chromiumArgs],
    });
    try {
      const page = await browser.newPage();
      await page.goto(`${second!.url}/`);
      await expect(page).toHaveURL(/\/signin/);
      await page.getByRole('link', { name: 'Sign in with your identity provider' }).click();
      await expect(page).toHaveURL(new RegExp(`^${idp!.issuer}`));
      await page.getByLabel('Username').fill('alice');
      await page.getByLabel('Password').fill('alice-correct-horse');
      await page.getByRole('button', { name: 'Sign in' }).click();
      await expect(page).toHaveURL(`${second!.url}/`);
      await expect(page.getByTestId('signed-in-user')).toHaveText('oidc:alice');
      await page.getByTestId('user-menu').click();
      await expect(page.getByText('groups: oidc:shop-admins, oidc:palisade-operators')).toBeVisible();
      await expect(page.getByText(/identity provider \(Palisade impersonates you\)/)).toBeVisible();
      // her group is bound to palisade-operator: the simulation controls are hers to use
      await page.keyboard.press('Escape');
      await page.getByTestId('node-tile-b1-1').click();
      const panel = page.getByRole('complementary', { name: 'Node b1-1' });
      await expect(panel.getByRole('button', { name: 'Simulate kubelet restart on b1-1' })).toBeEnabled();
      await expect(panel.getByTestId('forbidden-reason')).toHaveCount(0);

      // signing out ends the provider's session too (issue 23): its sign-out page, then back here,
      // and the next sign-in asks for the password again
      await page.getByTestId('user-menu').click();
      await page.getByRole('button', { name: 'Sign out', exact: true }).click();
      await expect(page).toHaveURL(new RegExp(`^${idp!.issuer}`));
      await page.getByRole('button', { name: 'Sign out' }).click();
      await expect(page).toHaveURL(new RegExp(`^${second!.url}/`));
      await page.goto(`${second!.url}/signin`);
      await page.getByRole('link', { name: 'Sign in with your identity provider' }).click();
      await expect(page).toHaveURL(new RegExp(`^${idp!.issuer}`));
      await expect(page.getByLabel('Password')).toBeVisible();
    } finally {
      await browser.close();
    }
  });
});
