import { expect, expectNoHorizontalScroll, shot, signIn, test } from './fixtures.js';

const ADMIN_PAGES = ['Transactions', 'Refused', 'Channels', 'Clients', 'Roles', 'Users', 'Contact groups', 'Alerts and messages', 'Mediators', 'Tasks', 'Audit log', 'Logs', 'Import/Export', 'Backup', 'Certificates', 'Settings', 'About'];

test('the main navigation works from the keyboard, and an unknown address says so', async ({ console: page, junction }, testInfo) => {
  const nav = page.getByRole('navigation', { name: 'Main' });
  await nav.getByRole('link', { name: 'Dashboard' }).focus();
  for (const name of ADMIN_PAGES) {
    await page.keyboard.press('Tab');
    await expect(nav.getByRole('link', { name })).toBeFocused();
  }
  await page.keyboard.press('Enter');
  await expect(page.getByRole('heading', { level: 1, name: 'About' })).toBeVisible();
  await expect(page).toHaveURL(/#\/about$/);

  await page.goto(`${junction.apiUrl}/#/no-such-page`);
  await expect(page.getByRole('heading', { level: 1, name: 'Page not found' })).toBeVisible();
  await expectNoHorizontalScroll(page);
  await shot(page, testInfo, 'not-found');
  await page.getByRole('link', { name: 'Go to the dashboard' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Dashboard' })).toBeVisible();
});

test('a user outside the admin group sees only the pages open to them', async ({ browser, junction }, testInfo) => {
  const created = await junction.api('POST', '/users', {
    email: 'clerk@clinic.example',
    firstname: 'Records',
    surname: 'Clerk',
    groups: ['records'],
    password: 'records-clerk-passphrase-4',
    passwordChangeRequired: false,
  });
  expect(created.status, created.text).toBe(201);
  const context = await browser.newContext({ ignoreHTTPSErrors: true, viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  try {
    await signIn(page, junction, 'records-clerk-passphrase-4', 'clerk@clinic.example');
    const nav = page.getByRole('navigation', { name: 'Main' });
    await expect(nav).toBeVisible();
    await expect(nav.getByRole('link')).toHaveText(['Dashboard', 'Transactions', 'Refused', 'Channels', 'Tasks', 'About']);
    await shot(page, testInfo, 'dashboard-non-admin');

    // Typing an admin page's address shows why there is nothing to see, instead of an empty page.
    await page.goto(`${junction.apiUrl}/#/clients`);
    await expect(page.getByRole('alert').first()).toContainText('Only administrators');
  } finally {
    await context.close();
  }
});
