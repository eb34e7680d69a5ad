import type { PublicClient } from '../../service/contracts/clients.js';
import type { Role } from '../../service/contracts/roles.js';
import { expect, expectNoHorizontalScroll, shot, test } from './fixtures.js';
import type { E2EJunction } from './fixtures.js';

interface Channel {
  _id: string;
  name: string;
  allow: string[];
}

async function addChannel(junction: E2EJunction, name: string, allow: string[] = []): Promise<Channel> {
  const answer = await junction.api('POST', '/channels', {
    name,
    urlPattern: `^/${name.toLowerCase().replace(/[^a-z0-9]+/g, '-')}$`,
    allow,
    routes: [{ name: 'primary', host: '127.0.0.1', port: 9, primary: true }],
  });
  expect(answer.status, answer.text).toBe(201);
  return answer.json as Channel;
}

async function addClient(junction: E2EJunction, clientID: string, roles: string[] = []): Promise<PublicClient> {
  const answer = await junction.api('POST', '/clients', { clientID, name: clientID, roles, password: 'client-passphrase' });
  expect(answer.status, answer.text).toBe(201);
  return answer.json as PublicClient;
}

async function channel(junction: E2EJunction, id: string): Promise<Channel> {
  return (await junction.api('GET', `/channels/${id}`)).json as Channel;
}

async function client(junction: E2EJunction, id: string): Promise<PublicClient> {
  return (await junction.api('GET', `/clients/${id}`)).json as PublicClient;
}

test('roles are granted and revoked on channels and clients through the matrix', async ({ console: page, junction }, testInfo) => {
  const lab = await addChannel(junction, 'Lab results');
  const pharmacy = await addChannel(junction, 'Pharmacy orders');
  // Enough channels that the grid is wider than the window.
  for (let i = 1; i <= 30; i++) await addChannel(junction, `Ward ${String(i).padStart(2, '0')} admissions`);
  const labSystem = await addClient(junction, 'lab-system');
  await addClient(junction, 'emr', ['clinicians']);

  await page.goto(`${junction.apiUrl}/#/roles`);
  await expect(page.getByRole('heading', { name: 'Roles', level: 1 })).toBeVisible();
  const grid = page.getByRole('region', { name: 'Role grants' });
  const onLab = grid.getByRole('checkbox', { name: 'role clinicians on channel Lab results' });
  const onLabSystem = grid.getByRole('checkbox', { name: 'role clinicians on client lab-system' });
  await expect(grid.getByRole('checkbox', { name: 'role clinicians on client emr' })).toBeChecked();
  await expect(onLab).not.toBeChecked();

  // Grant: one channel and one more client, saved together with the row's Save button.
  await onLab.check();
  await onLabSystem.check();
  await shot(page, testInfo, 'roles-unsaved');
  await grid.getByRole('button', { name: 'Save role clinicians' }).click();
  await expect(grid.getByRole('button', { name: 'Save role clinicians' })).toHaveCount(0);
  expect((await channel(junction, lab._id)).allow).toEqual(['clinicians']);
  expect((await client(junction, labSystem._id)).roles).toEqual(['clinicians']);
  await expect(onLab).toBeChecked();

  // Revoke the channel with the keyboard: arrow keys move along the row, Space unticks.
  await grid.getByRole('checkbox', { name: 'role clinicians on channel Pharmacy orders' }).focus();
  await page.keyboard.press('ArrowLeft');
  await expect(onLab).toBeFocused();
  await page.keyboard.press('Space');
  await expect(onLab).not.toBeChecked();
  await grid.getByRole('button', { name: 'Save role clinicians' }).click();
  await expect(grid.getByRole('button', { name: 'Save role clinicians' })).toHaveCount(0);
  expect((await channel(junction, lab._id)).allow).toEqual([]);
  expect((await client(junction, labSystem._id)).roles).toEqual(['clinicians']);

  // Undo drops an unsaved change without touching the server.
  await grid.getByRole('checkbox', { name: 'role clinicians on channel Pharmacy orders' }).check();
  await grid.getByRole('button', { name: 'Discard changes to role clinicians' }).click();
  await expect(grid.getByRole('checkbox', { name: 'role clinicians on channel Pharmacy orders' })).not.toBeChecked();
  expect((await channel(junction, pharmacy._id)).allow).toEqual([]);

  // The grid scrolls inside its own box; the page does not, and the role names stay in view.
  await expectNoHorizontalScroll(page);
  const widths = await grid.evaluate((el) => ({ scroll: el.scrollWidth, client: el.clientWidth }));
  expect(widths.scroll).toBeGreaterThan(widths.client);
  await grid.evaluate((el) => el.scrollTo({ left: el.scrollWidth }));
  const box = await grid.boundingBox();
  const rowHead = await grid.getByRole('rowheader', { name: /clinicians/ }).boundingBox();
  expect(box).not.toBeNull();
  expect(rowHead).not.toBeNull();
  expect(Math.abs((rowHead?.x ?? 0) - (box?.x ?? 0))).toBeLessThan(3);
  await shot(page, testInfo, 'roles');
});

test('roles are added, refused when the name is a client ID, renamed and deleted', async ({ console: page, junction }, testInfo) => {
  const pharmacy = await addChannel(junction, 'Pharmacy orders');
  await addChannel(junction, 'Lab results', ['lab-system']);
  const dispenser = await addClient(junction, 'dispenser');
  await addClient(junction, 'lab-system');

  await page.goto(`${junction.apiUrl}/#/roles`);
  await expect(page.getByText('No roles yet')).toBeVisible();
  await page.getByRole('button', { name: 'Add role' }).click();
  const dialog = page.getByRole('dialog', { name: 'Add role' });
  // Nothing chosen: the browser explains that a role needs something to be granted on.
  await dialog.getByLabel(/^Role name/).fill('pharmacy staff');
  await dialog.getByRole('button', { name: 'Add role' }).click();
  await expect(dialog.getByRole('alert')).toContainText('Choose at least one channel or client');

  await dialog.getByRole('combobox', { name: 'Channels' }).click();
  await page.getByRole('option', { name: 'Pharmacy orders' }).click();
  await page.keyboard.press('Escape');
  await dialog.getByRole('combobox', { name: 'Clients' }).click();
  await page.getByRole('option', { name: 'dispenser' }).click();
  await page.keyboard.press('Escape');

  // A role may not share its name with a client ID: the server's 409 is shown under the name.
  await dialog.getByLabel(/^Role name/).fill('lab-system');
  await dialog.getByRole('button', { name: 'Add role' }).click();
  await expect(dialog.getByLabel(/^Role name/)).toHaveAttribute('aria-invalid', 'true');
  await expect(dialog.getByText(/lab-system is a client id/)).toBeVisible();
  await shot(page, testInfo, 'roles-add-conflict');
  expect((await junction.api('GET', '/roles')).json).toEqual([]);

  await dialog.getByLabel(/^Role name/).fill('pharmacy staff');
  await dialog.getByRole('button', { name: 'Add role' }).click();
  await expect(dialog).toBeHidden();
  const grid = page.getByRole('region', { name: 'Role grants' });
  await expect(grid.getByRole('checkbox', { name: 'role pharmacy staff on channel Pharmacy orders' })).toBeChecked();
  const created = (await junction.api('GET', `/roles/${encodeURIComponent('pharmacy staff')}`)).json as Role;
  expect(created).toEqual({ name: 'pharmacy staff', channels: [{ _id: pharmacy._id, name: 'Pharmacy orders' }], clients: [{ _id: dispenser._id, clientID: 'dispenser' }] });

  // Rename from the row's menu.
  await grid.getByRole('button', { name: 'More actions for role pharmacy staff' }).click();
  await page.getByRole('menuitem', { name: 'Rename role' }).click();
  const rename = page.getByRole('dialog', { name: 'Rename role pharmacy staff' });
  await rename.getByLabel(/^New name/).fill('dispensary');
  await rename.getByRole('button', { name: 'Rename role' }).click();
  await expect(rename).toBeHidden();
  await expect(grid.getByRole('checkbox', { name: 'role dispensary on client dispenser' })).toBeChecked();
  expect((await channel(junction, pharmacy._id)).allow).toEqual(['dispensary']);
  expect((await client(junction, dispenser._id)).roles).toEqual(['dispensary']);
  await expectNoHorizontalScroll(page);
  await shot(page, testInfo, 'roles-renamed');

  // Delete, after confirming.
  await grid.getByRole('button', { name: 'More actions for role dispensary' }).click();
  await page.getByRole('menuitem', { name: 'Delete role' }).click();
  const confirm = page.getByRole('dialog', { name: 'Delete role dispensary?' });
  await expect(confirm).toContainText('taken off 1 channel(s) and 1 client(s)');
  await confirm.getByRole('button', { name: 'Delete role' }).click();
  await expect(confirm).toBeHidden();
  await expect(page.getByText('No roles yet')).toBeVisible();
  expect((await junction.api('GET', '/roles/dispensary')).status).toBe(404);
  expect((await channel(junction, pharmacy._id)).allow).toEqual([]);
  expect((await client(junction, dispenser._id)).roles).toEqual([]);
});
