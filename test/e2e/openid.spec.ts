/**
 * OpenID Connect sign-in in Chromium: the console's "Sign in with ..." button, the provider's own login page (a real
 * oidc-provider process), the way back to the console and its dashboard; and failures shown on the sign-in page.
 */
import { freePorts } from '../helpers/process.js';
import { startProvider } from '../openid/provider.js';
import type { TestProvider } from '../openid/provider.js';
import { expect, shot, startE2EJunction, stopE2EJunction, test } from './fixtures.js';
import type { E2EJunction } from './fixtures.js';

const SECRET = 'an-e2e-client-secret-only-for-tests';

test.describe('OpenID Connect sign-in', () => {
  let junction: E2EJunction;
  let provider: TestProvider;

  test.beforeEach(async () => {
    const [port = 0] = await freePorts(1);
    junction = await startE2EJunction({
      firstRun: false,
      env: {
        JUNCTION_API_AUTHENTICATION_TYPES: 'basic,local,openid',
        JUNCTION_API_OPENID_ISSUER_URL: `http://127.0.0.1:${port}`,
        JUNCTION_API_OPENID_CLIENT_ID: 'junction-console',
        JUNCTION_API_OPENID_CLIENT_SECRET: SECRET,
        JUNCTION_API_OPENID_SCOPE: 'openid email profile groups',
        JUNCTION_API_OPENID_GROUPS_CLAIM: 'groups',
        JUNCTION_API_OPENID_ADMIN_GROUPS: 'clinic-admins',
        JUNCTION_API_OPENID_CREATE_USERS: 'true',
        JUNCTION_API_OPENID_DISPLAY_NAME: 'Clinic SSO',
      },
    });
    provider = await startProvider({
      port,
      client: { client_id: 'junction-console', client_secret: SECRET, redirect_uris: [`${junction.apiUrl}/`] },
      accounts: { amina: { email: 'amina@clinic.example', given_name: 'Amina', family_name: 'Odhiambo', groups: ['clinic-admins'] } },
    });
  });

  test.afterEach(async () => {
    await provider?.stop();
    await stopE2EJunction(junction);
  });

  test('signs in through the provider with the console button and lands on the dashboard', async ({ page }, testInfo) => {
    await page.goto(`${junction.apiUrl}/`);
    const button = page.getByRole('button', { name: 'Sign in with Clinic SSO' });
    await expect(button).toBeVisible();
    // Password sign-in stays available beside it.
    await expect(page.getByLabel('Email')).toBeVisible();
    await shot(page, testInfo, 'signin-openid');
    await button.click();

    await expect(page.getByRole('heading', { name: 'Test provider' })).toBeVisible();
    await page.getByLabel('Account').fill('amina');
    await page.getByRole('button', { name: 'Sign in at the provider' }).click();

    await expect(page.getByRole('navigation', { name: 'Main' })).toBeVisible();
    await expect(page.getByRole('link', { name: 'My account: amina@clinic.example' })).toBeVisible();
    // The one-use code is gone from the address bar.
    expect(new URL(page.url()).search).toBe('');
    // Created at first sign-in, an administrator through the mapped group, marked as an OpenID user.
    const users = (await junction.api('GET', '/users')).json as { email: string; groups: string[]; provider?: string }[];
    expect(users.find((u) => u.email === 'amina@clinic.example')).toMatchObject({ groups: ['admin'], provider: 'openid' });
    await shot(page, testInfo, 'signed-in-openid');
  });

  test('shows why a sign-in coming back with a forged state or a provider refusal failed', async ({ page }) => {
    await page.goto(`${junction.apiUrl}/?code=stolen-code&state=forged-state`);
    await expect(page.getByRole('alert')).toContainText(/state/i);
    await expect(page.getByRole('button', { name: 'Sign in with Clinic SSO' })).toBeVisible();
    expect(new URL(page.url()).search).toBe('');

    await page.goto(`${junction.apiUrl}/?error=access_denied&error_description=User+cancelled&state=whatever`);
    await expect(page.getByRole('alert')).toContainText('access_denied: User cancelled');
  });
});
