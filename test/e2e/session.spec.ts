import { ADMIN_PASSWORD, expect, shot, test } from './fixtures.js';

test('an expired session asks to sign in again over the page, keeps the form and completes the save', async ({ console: page, junction }, testInfo) => {
  await page.getByRole('link', { name: 'Channels' }).click();
  await page.getByRole('link', { name: 'New channel' }).click();
  await page.getByLabel(/^Name/).fill('Expiry survivor');
  await page.getByLabel(/^URL pattern/).fill('^/survivor$');
  await page.getByRole('tab', { name: /^Routes/ }).click();
  await page.getByLabel(/^Route name/).fill('lab');
  await page.getByLabel(/^Host/).fill('127.0.0.1');
  await page.getByLabel(/^Port/).fill('9');

  // The session ends (as after the idle timeout): the browser no longer holds a valid cookie.
  await page.context().clearCookies();
  await page.getByRole('button', { name: 'Save channel' }).click();

  const dialog = page.getByRole('dialog', { name: 'Your session has ended' });
  await expect(dialog).toBeVisible();
  await shot(page, testInfo, 'session-expired');
  // Nothing was saved while signed out.
  const before = (await junction.api('GET', '/channels')).json as { name: string }[];
  expect(before.map((c) => c.name)).not.toContain('Expiry survivor');

  await dialog.getByLabel(/^Password/).fill('wrong-password-here');
  await dialog.getByRole('button', { name: 'Sign in' }).click();
  await expect(dialog.getByRole('alert')).toContainText('email or password is not right');
  await dialog.getByLabel(/^Password/).fill(ADMIN_PASSWORD);
  await dialog.getByRole('button', { name: 'Sign in' }).click();
  await expect(dialog).toBeHidden();

  // The save that found the session gone went through once signed in, with what had been typed.
  await expect(page.getByText(/Expiry survivor/).first()).toBeVisible();
  await expect
    .poll(async () => ((await junction.api('GET', '/channels')).json as { name: string; urlPattern: string }[]).find((c) => c.name === 'Expiry survivor')?.urlPattern)
    .toBe('^/survivor$');
});

test('giving up on an expired session goes back to the sign-in page', async ({ console: page }) => {
  await page.context().clearCookies();
  await page.getByRole('link', { name: 'Users' }).click();
  const dialog = page.getByRole('dialog', { name: 'Your session has ended' });
  await expect(dialog).toBeVisible();
  await dialog.getByRole('button', { name: 'Discard and go to sign-in' }).click();
  await expect(page.getByRole('button', { name: 'Sign in' })).toBeVisible();
  await expect(page.getByRole('navigation', { name: 'Main' })).toBeHidden();
});
