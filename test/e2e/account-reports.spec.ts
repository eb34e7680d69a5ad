/** My account: a user who is not an admin sets their SMS number and report e-mails, and finds them saved after a reload. */
import type { PublicUser } from '../../service/contracts/users.js';
import { expect, shot, signIn, test } from './fixtures.js';

const CLERK = 'clerk@clinic.example';
const PASSWORD = 'records-clerk-passphrase-4';

test('a user sets their mobile number and reports on My account, and they stay after a reload', async ({ browser, junction }, testInfo) => {
  const created = await junction.api('POST', '/users', { email: CLERK, firstname: 'Records', surname: 'Clerk', groups: ['records'], password: PASSWORD, passwordChangeRequired: false });
  expect(created.status, created.text).toBe(201);
  const context = await browser.newContext({ ignoreHTTPSErrors: true, viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  try {
    await signIn(page, junction, PASSWORD, CLERK);
    await page.getByRole('link', { name: `My account: ${CLERK}` }).click();
    await expect(page.getByRole('heading', { level: 1, name: 'My account' })).toBeVisible();
    const form = page.getByRole('form', { name: 'Your details' });
    await expect(form.getByText('at 07:00 in the server’s time zone')).toBeVisible();
    await expect(form.getByText('weekly report on Mondays')).toBeVisible();

    const msisdn = form.getByLabel(/^Mobile number/);
    await msisdn.fill('082 123 4567');
    await form.getByRole('button', { name: 'Save details' }).click();
    await expect(form.getByText('Use the international number in digits')).toBeVisible();
    await expect(msisdn).toBeFocused();

    await msisdn.fill('+27821234567');
    await form.getByRole('switch', { name: 'Daily report' }).check();
    await form.getByRole('switch', { name: 'Weekly report' }).check();
    await form.getByRole('button', { name: 'Save details' }).click();
    await expect(form.getByRole('status')).toHaveText('Your details are saved.');
    await shot(page, testInfo, 'account-reports');

    const stored = await junction.api('GET', `/users/${encodeURIComponent(CLERK)}`);
    expect(stored.json as PublicUser).toMatchObject({ msisdn: '+27821234567', dailyReport: true, weeklyReport: true });

    await page.reload();
    const again = page.getByRole('form', { name: 'Your details' });
    await expect(again.getByLabel(/^Mobile number/)).toHaveValue('+27821234567');
    await expect(again.getByRole('switch', { name: 'Daily report' })).toBeChecked();
    await expect(again.getByRole('switch', { name: 'Weekly report' })).toBeChecked();

    // Turning one off and clearing the number is saved too.
    await again.getByLabel(/^Mobile number/).fill('');
    await again.getByRole('switch', { name: 'Daily report' }).uncheck();
    await again.getByRole('button', { name: 'Save details' }).click();
    await expect(again.getByRole('status')).toHaveText('Your details are saved.');
    const cleared = (await junction.api('GET', `/users/${encodeURIComponent(CLERK)}`)).json as PublicUser;
    expect(cleared.dailyReport).toBe(false);
    expect(cleared.weeklyReport).toBe(true);
    expect(cleared.msisdn ?? '').toBe('');
  } finally {
    await context.close();
  }
});
