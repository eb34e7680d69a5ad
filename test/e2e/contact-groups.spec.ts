/**
 * The Contact groups page: an admin adds a group with recipients picked from the users, edits it, is refused its
 * deletion while a channel's alert uses it (the dialog names that channel and links to it), and deletes it once the
 * channel lets go.
 */
import type { ContactGroup } from '../../service/contracts/contact-groups.js';
import { expect, expectNoHorizontalScroll, shot, test } from './fixtures.js';
import type { E2EJunction } from './fixtures.js';

const NURSE = 'nurse@clinic.example';
const TECH = 'tech@clinic.example';

async function addUser(junction: E2EJunction, email: string, firstname: string, msisdn?: string): Promise<void> {
  const res = await junction.api('POST', '/users', { email, firstname, surname: 'Staff', groups: ['ward'], password: 'ward-staff-passphrase-9', ...(msisdn === undefined ? {} : { msisdn }) });
  expect(res.status, res.text).toBe(201);
}

async function groups(junction: E2EJunction): Promise<ContactGroup[]> {
  const res = await junction.api('GET', '/groups');
  expect(res.status, res.text).toBe(200);
  return res.json as ContactGroup[];
}

test('an admin adds, edits and deletes a contact group, and is told which channels still use it', async ({ console: page, junction }, testInfo) => {
  await addUser(junction, NURSE, 'Naledi', '+27821234567');
  await addUser(junction, TECH, 'Thabo');

  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Contact groups' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Contact groups' })).toBeVisible();
  const table = page.getByRole('table', { name: 'Contact groups' });
  await expect(table).toContainText('No contact groups yet');

  // Add: nothing filled in is refused before anything is sent.
  await page.getByRole('button', { name: 'Add contact group' }).click();
  const form = page.getByRole('dialog', { name: 'Add contact group' });
  await form.getByRole('button', { name: 'Add recipient' }).click();
  await form.getByRole('button', { name: 'Save group' }).click();
  await expect(form.getByText('Enter a name for the group')).toBeVisible();
  await expect(form.getByText('Choose a user', { exact: true })).toBeVisible();
  await expect(form.getByLabel(/^Group name/)).toBeFocused();

  await form.getByLabel(/^Group name/).fill('Lab on call');
  await form.getByLabel('Recipient 1', { exact: true }).selectOption(NURSE);
  await expect(form.getByText('Choose a user', { exact: true })).toHaveCount(0);
  await form.getByRole('button', { name: 'Add recipient' }).click();
  await form.getByLabel('Recipient 2', { exact: true }).selectOption(TECH);
  await form.getByLabel('Send recipient 2 by').selectOption('sms');
  // Thabo has no mobile number: the form says so, but does not stop the save.
  await expect(form.getByText(`${TECH} has no mobile number yet`)).toBeVisible();
  await form.getByLabel('Alert recipient 2 at most').selectOption('1 per hour');
  await expectNoHorizontalScroll(page);
  await shot(page, testInfo, 'contact-group-form');
  await form.getByRole('button', { name: 'Save group' }).click();
  await expect(form).toBeHidden();

  const row = table.getByRole('row').filter({ hasText: 'Lab on call' });
  await expect(row).toContainText('2 recipients');
  await expect(row).toContainText(`${TECH} (SMS)`);
  let [stored] = await groups(junction);
  expect(stored).toMatchObject({
    group: 'Lab on call',
    users: [
      { user: NURSE, method: 'email', maxAlerts: 'no max' },
      { user: TECH, method: 'sms', maxAlerts: '1 per hour' },
    ],
  });

  // Edit: rename, drop Thabo, limit Naledi to one a day.
  await row.getByRole('button', { name: 'Edit contact group Lab on call' }).click();
  const edit = page.getByRole('dialog', { name: 'Edit contact group Lab on call' });
  await expect(edit.getByLabel('Recipient 2', { exact: true })).toHaveValue(TECH);
  await edit.getByLabel(/^Group name/).fill('Lab night shift');
  await edit.getByRole('button', { name: 'Remove recipient 2' }).click();
  await edit.getByLabel('Alert recipient 1 at most').selectOption('1 per day');
  await edit.getByRole('button', { name: 'Save group' }).click();
  await expect(edit).toBeHidden();
  const renamed = table.getByRole('row').filter({ hasText: 'Lab night shift' });
  await expect(renamed).toContainText('1 recipient');
  [stored] = await groups(junction);
  expect(stored).toMatchObject({ group: 'Lab night shift', users: [{ user: NURSE, method: 'email', maxAlerts: '1 per day' }] });
  const id = stored!._id;

  // A taken name is refused by the server and the message sits under the name.
  await page.getByRole('button', { name: 'Add contact group' }).click();
  const clash = page.getByRole('dialog', { name: 'Add contact group' });
  await clash.getByLabel(/^Group name/).fill('Lab night shift');
  await clash.getByRole('button', { name: 'Save group' }).click();
  await expect(clash.getByText('Is already the name of another contact group')).toBeVisible();
  await clash.getByRole('button', { name: 'Cancel' }).click();

  // A channel's alert uses the group: deleting it is refused, naming the channel.
  const channel = await junction.api('POST', '/channels', {
    name: 'ICU monitors',
    urlPattern: '^/icu/.*$',
    routes: [{ name: 'icu', host: '127.0.0.1', port: 9, primary: true }],
    alerts: [{ condition: 'status', status: '5xx', groups: [id], users: [] }],
  });
  expect(channel.status, channel.text).toBe(201);
  const channelId = (channel.json as { _id: string })._id;

  await renamed.getByRole('button', { name: 'Delete contact group Lab night shift' }).click();
  const confirm = page.getByRole('dialog', { name: 'Delete contact group Lab night shift?' });
  await confirm.getByRole('button', { name: 'Delete group' }).click();
  await expect(confirm.getByRole('alert')).toContainText('This group is still in use');
  const link = confirm.getByRole('list', { name: 'Channels whose alerts use the group' }).getByRole('link', { name: 'ICU monitors' });
  await expect(link).toHaveAttribute('href', `#/channels/${channelId}`);
  await shot(page, testInfo, 'contact-group-in-use');
  await confirm.getByRole('button', { name: 'Close', exact: true }).click();
  await expect(renamed).toBeVisible();
  expect(await groups(junction)).toHaveLength(1);

  // Once the channel lets go, the group can be deleted.
  const freed = await junction.api('PUT', `/channels/${channelId}`, { alerts: [] });
  expect(freed.status, freed.text).toBe(200);
  await renamed.getByRole('button', { name: 'Delete contact group Lab night shift' }).click();
  await page.getByRole('dialog', { name: 'Delete contact group Lab night shift?' }).getByRole('button', { name: 'Delete group' }).click();
  await expect(table).toContainText('No contact groups yet');
  expect(await groups(junction)).toEqual([]);
});
