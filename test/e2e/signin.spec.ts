import { ROOT_EMAIL, FIRST_RUN_PASSWORD, expect, expectNoHorizontalScroll, shot, signIn, test } from './fixtures.js';

test.describe('sign-in and first run', () => {
  test.use({ firstRun: true });

  test('the default admin signs in, must change the password, then signs out and in with the new one', async ({ page, junction }, testInfo) => {
    await page.goto(`${junction.apiUrl}/`);
    await expect(page.getByRole('button', { name: 'Sign in' })).toBeVisible();
    await shot(page, testInfo, 'signin');

    // A wrong password is explained, not just refused.
    await signIn(page, junction, 'not-the-password');
    await expect(page.getByRole('alert')).toContainText('email or password is not right');

    await signIn(page, junction, FIRST_RUN_PASSWORD);
    await expect(page.getByRole('heading', { name: 'Choose a new password' })).toBeVisible();
    await shot(page, testInfo, 'change-password');
    await page.getByLabel(/^New password/).fill('a-brand-new-clinic-passphrase');
    await page.getByLabel('Confirm new password').fill('a-different-one');
    await expect(page.getByText('The two passwords are different')).toBeVisible();
    await page.getByLabel('Confirm new password').fill('a-brand-new-clinic-passphrase');
    await page.getByRole('button', { name: 'Change password' }).click();
    await expect(page.getByRole('navigation', { name: 'Main' })).toBeVisible();
    await expectNoHorizontalScroll(page);

    // The old password no longer works and the new one does.
    await page.getByRole('button', { name: 'Sign out' }).click();
    await expect(page.getByRole('button', { name: 'Sign in' })).toBeVisible();
    await signIn(page, junction, FIRST_RUN_PASSWORD);
    await expect(page.getByRole('alert')).toBeVisible();
    await signIn(page, junction, 'a-brand-new-clinic-passphrase');
    await expect(page.getByRole('link', { name: `My account: ${ROOT_EMAIL}` })).toBeVisible();
    // The API refuses the first-run password too (junction.api still signs with it).
    expect((await junction.api('GET', '/channels')).status).toBe(401);
  });
});
