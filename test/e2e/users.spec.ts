import { Agent } from 'undici';
import type { PublicUser } from '../../service/contracts/users.js';
import { ROOT_EMAIL, expect, expectNoHorizontalScroll, shot, signIn, test } from './fixtures.js';
import type { E2EJunction } from './fixtures.js';

const NURSE = 'nurse@clinic.example';

async function user(junction: E2EJunction, email: string): Promise<{ status: number; user: PublicUser }> {
  const answer = await junction.api('GET', `/users/${encodeURIComponent(email)}`);
  return { status: answer.status, user: answer.json as PublicUser };
}

/** The status of `GET /me`-like call made with a user's own Basic credentials. */
async function canSignIn(junction: E2EJunction, email: string, password: string): Promise<number> {
  const dispatcher = new Agent({ connect: { rejectUnauthorized: false } });
  try {
    const response = await fetch(`${junction.apiUrl}/users/${encodeURIComponent(email)}`, {
      headers: { authorization: `Basic ${Buffer.from(`${email}:${password}`).toString('base64')}` },
      dispatcher,
    } as RequestInit);
    await response.arrayBuffer();
    return response.status;
  } finally {
    await dispatcher.close();
  }
}

test('an admin creates a user who then signs in, edits their own account, and is finally deleted', async ({ console: page, junction, browser }, testInfo) => {
  await page.goto(`${junction.apiUrl}/#/users`);
  await expect(page.getByRole('heading', { name: 'Users', level: 1 })).toBeVisible();
  const table = page.getByRole('table', { name: 'Users' });
  await expect(table.getByRole('row').filter({ hasText: ROOT_EMAIL })).toContainText('built-in');

  await page.getByRole('button', { name: 'Add user' }).click();
  const form = page.getByRole('dialog', { name: 'Add user' });
  await form.getByRole('button', { name: 'Save user' }).click();
  // Nothing filled in: each required field says so, and nothing reaches the server.
  await expect(form.getByText('Enter an email address')).toBeVisible();
  await expect(form.getByText('Enter a password')).toBeVisible();
  await expect(form.getByLabel(/^Email/)).toBeFocused();

  await form.getByLabel(/^Email/).fill(NURSE);
  await form.getByLabel(/^First name/).fill('Naledi');
  await form.getByLabel(/^Surname/).fill('Dlamini');
  const groups = form.getByLabel(/^Groups/);
  await groups.fill('admin');
  await groups.press('Enter');
  await expect(form.getByText('admin is a special group')).toBeVisible();
  await groups.press('Backspace');
  await expect(form.getByText('admin is a special group')).toHaveCount(0);
  await groups.fill('ward staff');
  await groups.press('Enter');
  await form.getByLabel(/^Password/).fill('nurse-first-passphrase');
  await form.getByLabel(/^Confirm password/).fill('nurse-first-passphrase');
  await form.getByLabel(/^Mobile number/).fill('+27821234567');
  await form.getByRole('switch', { name: 'Daily report' }).check();
  await form.getByRole('switch', { name: 'Weekly report' }).check();
  await expect(form.getByLabel('Ask for a new password at the next sign-in')).toBeChecked();
  await shot(page, testInfo, 'users-form');
  await form.getByRole('button', { name: 'Save user' }).click();
  await expect(form).toBeHidden();

  const row = table.getByRole('row').filter({ hasText: NURSE });
  await expect(row).toContainText('Naledi Dlamini');
  await expect(row).toContainText('ward staff');
  await expect(row).toContainText('Daily');
  await expect(row).toContainText('Weekly');
  const created = await user(junction, NURSE);
  expect(created.status).toBe(200);
  expect(created.user).toMatchObject({
    email: NURSE,
    firstname: 'Naledi',
    surname: 'Dlamini',
    groups: ['ward staff'],
    msisdn: '+27821234567',
    dailyReport: true,
    weeklyReport: true,
    passwordChangeRequired: true,
    builtin: false,
  });
  await expectNoHorizontalScroll(page);
  await shot(page, testInfo, 'users');

  // A second account with the same email is refused, and the form says so under Email.
  await page.getByRole('button', { name: 'Add user' }).click();
  const again = page.getByRole('dialog', { name: 'Add user' });
  await again.getByLabel(/^Email/).fill(NURSE.toUpperCase());
  await again.getByLabel(/^First name/).fill('Other');
  await again.getByLabel(/^Surname/).fill('Person');
  await again.getByLabel(/^Password/).fill('another-passphrase');
  await again.getByLabel(/^Confirm password/).fill('another-passphrase');
  await again.getByRole('button', { name: 'Save user' }).click();
  await expect(again.getByLabel(/^Email/)).toHaveAttribute('aria-invalid', 'true');
  await expect(again.getByText('Already in use')).toBeVisible();
  await again.getByRole('button', { name: 'Cancel' }).click();

  // The new user signs in in a browser of their own, replaces the password they were given, and edits their account.
  const context = await browser.newContext({ ignoreHTTPSErrors: true, viewport: { width: 1280, height: 800 } });
  const nurse = await context.newPage();
  await signIn(nurse, junction, 'nurse-first-passphrase', NURSE);
  await expect(nurse.getByRole('heading', { name: 'Choose a new password' })).toBeVisible();
  await nurse.getByLabel(/^New password/).fill('nurse-own-passphrase');
  await nurse.getByLabel('Confirm new password').fill('nurse-own-passphrase');
  await nurse.getByRole('button', { name: 'Change password' }).click();
  const nav = nurse.getByRole('navigation', { name: 'Main' });
  await expect(nav).toBeVisible();
  await expect(nav.getByRole('link', { name: 'Users' })).toHaveCount(0);

  await nurse.goto(`${junction.apiUrl}/#/users`);
  await expect(nurse.getByRole('heading', { name: 'My account', level: 1 })).toBeVisible();
  const details = nurse.getByRole('form', { name: 'Your details' });
  await expect(details.getByLabel(/^Surname/)).toHaveValue('Dlamini');
  await details.getByLabel(/^Surname/).fill('Dlamini-Mokoena');
  await details.getByRole('switch', { name: 'Weekly report' }).uncheck();
  await details.getByRole('button', { name: 'Save details' }).click();
  await expect(details.getByText('Your details are saved.')).toBeVisible();
  const password = nurse.getByRole('form', { name: 'Change your password' });
  await password.getByLabel(/^New password/).fill('nurse-own-passphrase');
  await password.getByLabel(/^Confirm new password/).fill('nurse-own-passphrase');
  await password.getByRole('button', { name: 'Change password' }).click();
  // The server refuses the same password again; the reason is shown under the field.
  await expect(password.getByText('Must differ from the current password')).toBeVisible();
  await password.getByLabel(/^New password/).fill('nurse-newest-passphrase');
  await password.getByLabel(/^Confirm new password/).fill('nurse-newest-passphrase');
  await password.getByRole('button', { name: 'Change password' }).click();
  await expect(password.getByText('Your password is changed.')).toBeVisible();
  await expectNoHorizontalScroll(nurse);
  await shot(nurse, testInfo, 'users-my-account');
  expect((await user(junction, NURSE)).user).toMatchObject({ surname: 'Dlamini-Mokoena', weeklyReport: false, dailyReport: true, passwordChangeRequired: false });
  expect(await canSignIn(junction, NURSE, 'nurse-own-passphrase')).toBe(401);
  expect(await canSignIn(junction, NURSE, 'nurse-newest-passphrase')).toBe(200);

  // The admin edits the account: another group, no daily report.
  await page.reload();
  await row.getByRole('button', { name: `Edit user ${NURSE}` }).click();
  const edit = page.getByRole('dialog', { name: `Edit user ${NURSE}` });
  await expect(edit.getByLabel(/^Surname/)).toHaveValue('Dlamini-Mokoena');
  await edit.getByLabel(/^Groups/).fill('pharmacy');
  await edit.getByLabel(/^Groups/).press('Enter');
  await edit.getByRole('switch', { name: 'Daily report' }).uncheck();
  await edit.getByRole('button', { name: 'Save user' }).click();
  await expect(edit).toBeHidden();
  expect((await user(junction, NURSE)).user).toMatchObject({ groups: ['ward staff', 'pharmacy'], dailyReport: false, weeklyReport: false });
  // No password typed on edit: the user's password is unchanged.
  expect(await canSignIn(junction, NURSE, 'nurse-newest-passphrase')).toBe(200);

  await row.getByRole('button', { name: `Delete user ${NURSE}` }).click();
  const confirm = page.getByRole('dialog', { name: `Delete user ${NURSE}?` });
  await confirm.getByRole('button', { name: 'Delete user' }).click();
  await expect(confirm).toBeHidden();
  await expect(row).toHaveCount(0);
  expect((await user(junction, NURSE)).status).toBe(404);
  // Their open session ended with the account.
  await nurse.reload();
  await expect(nurse.getByRole('button', { name: 'Sign in' })).toBeVisible();
  await context.close();
});

test('the built-in administrator cannot be deleted or lose the admin group', async ({ console: page, junction }, testInfo) => {
  await page.goto(`${junction.apiUrl}/#/users`);
  const row = page.getByRole('table', { name: 'Users' }).getByRole('row').filter({ hasText: ROOT_EMAIL });
  await expect(row.getByRole('button', { name: `Delete user ${ROOT_EMAIL}` })).toBeDisabled();
  await expect(row.getByLabel('The built-in administrator cannot be deleted')).toBeVisible();
  // The server is the real gate.
  expect((await junction.api('DELETE', `/users/${encodeURIComponent(ROOT_EMAIL)}`)).status).toBe(403);

  await row.getByRole('button', { name: `Edit user ${ROOT_EMAIL}` }).click();
  const edit = page.getByRole('dialog', { name: `Edit user ${ROOT_EMAIL}` });
  await expect(edit.getByText('it cannot be deleted and always stays in the admin group')).toBeVisible();
  await edit.getByLabel(/^Groups/).press('Backspace');
  await edit.getByRole('button', { name: 'Save user' }).click();
  await expect(edit.getByText('The built-in administrator must stay in the admin group')).toBeVisible();
  await shot(page, testInfo, 'users-builtin');
  await edit.getByRole('button', { name: 'Cancel' }).click();
  expect((await user(junction, ROOT_EMAIL)).user.groups).toContain('admin');
  await expectNoHorizontalScroll(page);
});

test('the signed-in admin has a My account page too', async ({ console: page, junction }) => {
  await page.goto(`${junction.apiUrl}/#/users`);
  await page.getByRole('link', { name: 'My account', exact: true }).click();
  await expect(page.getByRole('heading', { name: 'My account', level: 1 })).toBeVisible();
  const details = page.getByRole('form', { name: 'Your details' });
  await details.getByLabel(/^First name/).fill('Clinic');
  await details.getByLabel(/^Surname/).fill('Administrator');
  await details.getByRole('button', { name: 'Save details' }).click();
  await expect(details.getByText('Your details are saved.')).toBeVisible();
  expect((await user(junction, ROOT_EMAIL)).user).toMatchObject({ firstname: 'Clinic', surname: 'Administrator' });
  await expectNoHorizontalScroll(page);
});

test('an admin invites a user, who sets their own password through the link and is signed in by it; the link works once', async ({ console: page, junction, browser }, testInfo) => {
  const GUEST = 'pharmacist@clinic.example';
  await page.goto(`${junction.apiUrl}/#/users`);
  await page.getByRole('button', { name: 'Add user' }).click();
  const form = page.getByRole('dialog', { name: 'Add user' });
  await form.getByLabel(/^Email/).fill(GUEST);
  await form.getByLabel(/^First name/).fill('Thabo');
  await form.getByLabel(/^Surname/).fill('Nkosi');
  await form.getByRole('switch', { name: /^Invite/ }).check();
  // An invited user chooses their own password, so the form asks for none.
  await expect(form.getByLabel(/^Password/)).toHaveCount(0);
  await form.getByRole('button', { name: 'Save user' }).click();

  // The link is shown once, right after the invitation is saved.
  const linkDialog = page.getByRole('dialog', { name: `Set-password link for ${GUEST}` });
  const shown = linkDialog.getByLabel('Set-password link');
  await expect(shown).toContainText('/set-password/');
  const link = (await shown.textContent())?.trim() ?? '';
  expect(link).toMatch(/#\/set-password\/[^/]+$/);
  await shot(page, testInfo, 'users-invite-link');
  await linkDialog.getByRole('button', { name: 'Close dialog' }).click();
  await expect(page.getByRole('table', { name: 'Users' }).getByRole('row').filter({ hasText: GUEST })).toContainText('invited');
  // Invited, the account cannot be used yet.
  expect(((await junction.api('GET', `/users/${encodeURIComponent(GUEST)}`)).json as PublicUser).locked).toBe(true);

  // The user opens the link in a browser of their own, with no session.
  const context = await browser.newContext({ ignoreHTTPSErrors: true, viewport: { width: 1280, height: 800 } });
  try {
    const guest = await context.newPage();
    await guest.goto(link);
    await expect(guest.getByRole('heading', { name: 'Welcome to Junction' })).toBeVisible();
    const setPassword = guest.getByRole('form', { name: 'Set password' });
    await expect(setPassword.getByLabel(/^First name/)).toHaveValue('Thabo');
    await setPassword.getByLabel(/^New password/).fill('pharmacy-own-passphrase');
    await setPassword.getByLabel(/^Confirm new password/).fill('pharmacy-own-passphrase');
    await setPassword.getByRole('button', { name: 'Set password' }).click();
    // Setting the password signs the user in (issue 36): the console opens as them, not the sign-in page.
    await expect(guest.getByRole('heading', { level: 1, name: 'Dashboard' })).toBeVisible();
    await expect(guest.getByRole('link', { name: `My account: ${GUEST}` })).toBeVisible();
    await expect(guest).toHaveURL(/#\/$/);
    const cookies = await context.cookies();
    expect(cookies.find((c) => c.name === 'junction.sid')).toMatchObject({ httpOnly: true, secure: true, sameSite: 'Strict' });
    await expectNoHorizontalScroll(guest);
    await shot(guest, testInfo, 'users-set-password');

    // The account works with that password, and the link is spent.
    expect(await canSignIn(junction, GUEST, 'pharmacy-own-passphrase')).toBe(200);
    await guest.goto('about:blank');
    await guest.goto(link);
    await expect(guest.getByText('The link cannot be used')).toBeVisible();
  } finally {
    await context.close();
  }
});
