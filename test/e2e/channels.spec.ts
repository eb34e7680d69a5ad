/**
 * The Channels area as an administrator uses it: creating a channel with every kind of setting through the editor,
 * the server's refusals shown beside the fields they concern, editing, enabling/disabling, triggering, deleting and
 * restoring from the list. Each change is checked on the server too.
 */
import { createServer } from 'node:net';
import type { Server } from 'node:net';
import type { Locator, Page, TestInfo } from '@playwright/test';
import { ROOT_EMAIL, expect, expectNoHorizontalScroll, shot as fullPageShot, signIn, test } from './fixtures.js';
import type { E2EJunction } from './fixtures.js';
import { freePort } from '../helpers/process.js';

interface ApiChannel {
  _id: string;
  name: string;
  status: string;
  [key: string]: unknown;
}

async function channels(junction: E2EJunction): Promise<ApiChannel[]> {
  const res = await junction.api('GET', '/channels?includeDeleted=true');
  expect(res.status).toBe(200);
  return res.json as ApiChannel[];
}

async function channelNamed(junction: E2EJunction, name: string): Promise<ApiChannel> {
  const found = (await channels(junction)).find((c) => c.name === name);
  if (found === undefined) throw new Error(`no channel named ${name}`);
  return found;
}

async function createByApi(junction: E2EJunction, body: Record<string, unknown>): Promise<ApiChannel> {
  const res = await junction.api('POST', '/channels', body);
  expect(res.status, res.text).toBe(201);
  return res.json as ApiChannel;
}

/** A full-page screenshot taken from the top, so the fixed header does not land in the middle of it. */
async function shot(page: Page, testInfo: TestInfo, name: string): Promise<void> {
  await page.evaluate(() => window.scrollTo(0, 0));
  await fullPageShot(page, testInfo, name);
}

const route = (page: Page, n: number): Locator => page.getByRole('group', { name: new RegExp(`^Route ${n}\\b`) });
const tab = (page: Page, name: string): Locator => page.getByRole('tab', { name: new RegExp(`^${name}`) });

async function openTab(page: Page, name: string): Promise<void> {
  await tab(page, name).click();
  await expect(tab(page, name)).toHaveAttribute('aria-selected', 'true');
}

/** Types a value into a tags input (a combobox) and presses Enter to add it. */
async function addTag(scope: Page | Locator, name: string, value: string): Promise<void> {
  const input = scope.getByRole('combobox', { name, exact: true });
  await input.fill(value);
  await input.press('Enter');
  // The suggestions stay open for the next value; Escape closes them, as a person would.
  await input.press('Escape');
}

/** The list of values a tags input holds, as shown in its pills. */
const tagsOf = (page: Page, name: string): Locator =>
  page.locator('.mantine-InputWrapper-root', { has: page.getByRole('combobox', { name, exact: true }) });

/** Turns a switch on or off from the keyboard (Space), as its track covers the input for pointers. */
async function setSwitch(toggle: Locator, on: boolean): Promise<void> {
  if ((await toggle.isChecked()) !== on) {
    await toggle.focus();
    await toggle.press('Space');
  }
  await (on ? expect(toggle).toBeChecked() : expect(toggle).not.toBeChecked());
}

test.describe('channels', () => {
  test('creates a channel with two routes, URL rewriting, auto retry and an alert through the editor', async ({ console: page, junction }, testInfo) => {
    expect((await junction.api('POST', '/clients', { clientID: 'lab-system', name: 'Lab system', roles: ['lab'], password: 'lab-system-secret-1' })).status).toBe(201);
    const nurse = { email: 'nina@clinic.example', firstname: 'Nina', surname: 'Nurse', groups: ['nurses'], password: 'nina-password-123', msisdn: '+27820000000' };
    expect((await junction.api('POST', '/users', nurse)).status).toBe(201);
    // Alerts name contact groups by id; the editor offers them by name.
    const onCall = await junction.api('POST', '/groups', { group: 'On-call nurses', users: [{ user: nurse.email, method: 'sms' }] });
    expect(onCall.status, onCall.text).toBe(201);
    const onCallId = (onCall.json as { _id: string })._id;

    await page.getByRole('link', { name: 'Channels', exact: true }).click();
    await expect(page.getByRole('heading', { name: 'Channels', exact: true })).toBeVisible();
    await expect(page.getByText('No channels yet.')).toBeVisible();
    await page.getByRole('link', { name: 'New channel' }).click();
    await expect(page.getByRole('heading', { name: 'New channel' })).toBeVisible();

    // Basics
    await page.getByLabel(/^Name/).fill('Lab results');
    await page.getByLabel('Description').fill('Results from the lab analyser');
    await page.getByLabel(/^Priority/).fill('2');
    await page.getByLabel(/^URL pattern/).fill('^/lab/.*$');
    await page.getByLabel(/^Timeout/).fill('30000');
    await page.getByRole('button', { name: 'Add property' }).click();
    await page.getByLabel('Property 1 name').fill('department');
    await page.getByLabel('Property 1 value').fill('pathology');
    await expectNoHorizontalScroll(page);
    await shot(page, testInfo, 'editor-basics');

    // Routes: two, and the second chosen as primary.
    await openTab(page, 'Routes');
    await route(page, 1).getByLabel(/^Route name/).fill('analyser');
    await route(page, 1).getByLabel(/^Host/).fill('127.0.0.1');
    await route(page, 1).getByLabel(/^Port/).fill('8101');
    await route(page, 1).getByLabel('Path transform').fill('s/^\\/lab/\\/api/');
    await route(page, 1).getByLabel('Username').fill('svc');
    await route(page, 1).getByLabel('Password', { exact: true }).fill('route-secret-1');
    await page.getByRole('button', { name: 'Add route' }).click();
    await route(page, 2).getByLabel(/^Route name/).fill('archive');
    await route(page, 2).getByLabel('Route type').selectOption('mllp');
    await route(page, 2).getByLabel(/^Host/).fill('archive.clinic.local');
    await route(page, 2).getByLabel(/^Port/).fill('2575');
    await setSwitch(route(page, 2).getByRole('switch', { name: 'TLS' }), true);
    await route(page, 2).getByRole('radio', { name: /Primary route/ }).check();
    await expect(route(page, 1).getByRole('radio', { name: /Primary route/ })).not.toBeChecked();
    await expect(route(page, 2)).toContainText('primary');
    await expectNoHorizontalScroll(page);
    await shot(page, testInfo, 'editor-routes');

    // Access
    await openTab(page, 'Access');
    await addTag(page, 'Allowed clients', 'lab-system');
    await addTag(page, 'Allowed roles', 'lab');
    await addTag(page, 'Whitelisted IP addresses', '10.0.0.7');
    await addTag(page, 'Groups that can view transactions', 'nurses');
    await addTag(page, 'Groups that can view request and response bodies', 'doctors');
    await addTag(page, 'Groups that can re-run transactions', 'admin');
    await expectNoHorizontalScroll(page);
    await shot(page, testInfo, 'editor-access');

    // Request matching
    await openTab(page, 'Request matching');
    await page.getByRole('checkbox', { name: 'POST' }).check();
    await page.getByRole('checkbox', { name: 'PUT' }).check();
    await addTag(page, 'Content types', 'application/json');
    await page.getByRole('radio', { name: 'JSON: property and value' }).check();
    await page.getByLabel(/^JSON property/).fill('resourceType');
    await page.getByLabel(/^Expected value/).fill('Observation');
    await shot(page, testInfo, 'editor-matching');

    // URL rewriting
    await openTab(page, 'URL rewriting');
    await setSwitch(page.getByRole('switch', { name: 'Rewrite URLs' }), true);
    await setSwitch(page.getByRole('switch', { name: 'Add rules for the primary routes automatically' }), false);
    await page.getByRole('button', { name: 'Add rewrite rule' }).click();
    const rule = page.getByRole('group', { name: 'Rewrite rule 1' });
    await rule.getByLabel(/^From host/).fill('archive.clinic.local');
    await rule.getByLabel(/^From port/).fill('2575');
    await rule.getByLabel(/^To host/).fill('junction.clinic.local');
    await rule.getByLabel(/^To port/).fill('5001');
    await rule.getByLabel('Path transform').fill('s/^/\\/lab/');
    await expectNoHorizontalScroll(page);
    await shot(page, testInfo, 'editor-rewriting');

    // Retries and storage
    await openTab(page, 'Retries and storage');
    await setSwitch(page.getByRole('switch', { name: 'Retry automatically' }), true);
    await page.getByLabel('Minimum wait between retries (minutes)').fill('5');
    await page.getByRole('checkbox', { name: 'Limit the number of attempts' }).check();
    await page.getByLabel('Maximum attempts').fill('3');
    await setSwitch(page.getByRole('switch', { name: 'Store response bodies' }), false);
    await page.getByRole('checkbox', { name: 'Delete stored bodies after some days' }).check();
    await page.getByLabel('Keep bodies for (days)').fill('30');
    await shot(page, testInfo, 'editor-retries');

    // Alerts
    await openTab(page, 'Alerts');
    await page.getByRole('button', { name: 'Add alert' }).click();
    const alert = page.getByRole('group', { name: 'Alert 1' });
    await alert.getByLabel(/^Response status/).fill('5xx');
    await alert.getByLabel(/^Failure rate above/).fill('10');
    await alert.getByRole('combobox', { name: 'Groups to notify', exact: true }).click();
    await page.getByRole('option', { name: 'On-call nurses', exact: true }).click();
    await alert.getByRole('combobox', { name: 'Groups to notify', exact: true }).press('Escape');
    await expect(tagsOf(page, 'Groups to notify')).toContainText('On-call nurses');
    await alert.getByRole('button', { name: 'Add user to alert 1' }).click();
    await alert.getByRole('combobox', { name: 'User 1', exact: true }).fill(nurse.email);
    await alert.getByRole('combobox', { name: 'User 1', exact: true }).press('Escape');
    await alert.getByLabel('Send user 1 by').selectOption('sms');
    await alert.getByLabel('Alert user 1 at most').selectOption({ label: 'Once an hour' });
    await expectNoHorizontalScroll(page);
    await shot(page, testInfo, 'editor-alerts');

    await page.getByRole('button', { name: 'Save channel' }).click();
    await expect(page.getByRole('heading', { name: 'Channels', exact: true })).toBeVisible();
    await expect(page.getByRole('status')).toContainText('Channel “Lab results” was created.');
    const row = page.getByRole('row', { name: /Lab results/ });
    await expect(row).toContainText('archive');
    await expect(row).toContainText('archive.clinic.local:2575');
    await expect(row).toContainText('^/lab/.*$');
    await expectNoHorizontalScroll(page);

    const saved = await channelNamed(junction, 'Lab results');
    expect(saved).toMatchObject({
      description: 'Results from the lab analyser',
      type: 'http',
      urlPattern: '^/lab/.*$',
      priority: 2,
      timeout: 30000,
      status: 'enabled',
      authType: 'private',
      methods: ['POST', 'PUT'],
      matchContentTypes: ['application/json'],
      matchContentJson: 'resourceType',
      matchContentValue: 'Observation',
      whitelist: ['10.0.0.7'],
      txViewAcl: ['nurses'],
      txViewFullAcl: ['doctors'],
      txRerunAcl: ['admin'],
      properties: [{ department: 'pathology' }],
      rewriteUrls: true,
      addAutoRewriteRules: false,
      rewriteUrlsConfig: [{ fromHost: 'archive.clinic.local', fromPort: 2575, toHost: 'junction.clinic.local', toPort: 5001, pathTransform: 's/^/\\/lab/' }],
      autoRetryEnabled: true,
      autoRetryPeriodMinutes: 5,
      autoRetryMaxAttempts: 3,
      requestBody: true,
      responseBody: false,
      maxBodyAgeDays: 30,
      alerts: [{ condition: 'status', status: '5xx', failureRate: 10, groups: [onCallId], users: [{ user: nurse.email, method: 'sms', maxAlerts: '1 per hour' }] }],
    });
    expect([...(saved.allow as string[])].sort()).toEqual(['lab', 'lab-system']);
    expect(saved).not.toHaveProperty('matchContentRegex');
    expect(saved.routes).toEqual([
      {
        name: 'analyser',
        type: 'http',
        host: '127.0.0.1',
        port: 8101,
        pathTransform: 's/^\\/lab/\\/api/',
        primary: false,
        secured: false,
        username: 'svc',
        password: '********',
        forwardAuthHeader: false,
        status: 'enabled',
        waitPrimaryResponse: false,
      },
      { name: 'archive', type: 'mllp', host: 'archive.clinic.local', port: 2575, primary: true, secured: true, forwardAuthHeader: false, status: 'enabled', waitPrimaryResponse: false },
    ]);

    // Reopened, the alert shows its group by name, not by id.
    await page.getByRole('link', { name: 'Lab results' }).click();
    await expect(page.getByRole('heading', { name: 'Channel “Lab results”' })).toBeVisible();
    await openTab(page, 'Alerts');
    const groups = tagsOf(page, 'Groups to notify');
    await expect(groups).toContainText('On-call nurses');
    await expect(groups).not.toContainText(onCallId);
  });

  test('shows the server’s refusals next to the fields they concern and keeps what was typed', async ({ console: page, junction }, testInfo) => {
    await page.goto(`${junction.apiUrl}/#/channels/new`);
    // The obvious problems are caught before asking the server.
    await page.getByRole('button', { name: 'Save channel' }).click();
    await expect(page.getByLabel(/^Name/)).toHaveAccessibleDescription(/Name is required/);

    await page.getByLabel(/^Name/).fill('Broken');
    await page.getByLabel(/^URL pattern/).fill('^/broken/(');
    await openTab(page, 'Routes');
    await route(page, 1).getByLabel(/^Route name/).fill('target');
    await route(page, 1).getByLabel(/^Host/).fill('127.0.0.1');
    await route(page, 1).getByLabel(/^Port/).fill('8200');
    await route(page, 1).getByLabel('Path', { exact: true }).fill('/somewhere');
    await route(page, 1).getByLabel('Path transform').fill('s/a/b/');
    await page.getByRole('button', { name: 'Save channel' }).click();

    // The server refuses both; the first problem's tab opens and a summary lists them all.
    const summary = page.getByRole('alert').filter({ hasText: 'The channel was not saved' });
    await expect(summary).toContainText('URL pattern is not a valid regular expression: missing closing ).');
    await expect(summary).toContainText('Route 1 (target) › Path transform cannot be set together with path; use one of them.');
    await expect(tab(page, 'Basics')).toHaveAttribute('aria-selected', 'true');
    await expect(page.getByLabel(/^URL pattern/)).toHaveAccessibleDescription(/URL pattern is not a valid regular expression: missing closing \)/);
    await expect(tab(page, 'Routes')).toContainText('1');
    await expectNoHorizontalScroll(page);
    await shot(page, testInfo, 'editor-server-errors');
    expect(await channels(junction)).toEqual([]);

    // The summary leads to the route's field, where the problem is shown too.
    await summary.getByRole('button', { name: 'Route 1 (target) › Path transform' }).click();
    await expect(tab(page, 'Routes')).toHaveAttribute('aria-selected', 'true');
    const transform = route(page, 1).getByLabel('Path transform');
    await expect(transform).toBeFocused();
    await expect(transform).toHaveAccessibleDescription(/Path transform cannot be set together with path; use one of them\./);
    await expect(transform).toHaveValue('s/a/b/');
    await shot(page, testInfo, 'editor-route-error');

    // Fixing the fields clears their messages, and the channel saves.
    await route(page, 1).getByLabel('Path', { exact: true }).fill('');
    await expect(transform).not.toHaveAccessibleDescription(/cannot be set together/);
    await openTab(page, 'Basics');
    await page.getByLabel(/^URL pattern/).fill('^/broken/.*$');
    await page.getByRole('button', { name: 'Save channel' }).click();
    await expect(page.getByRole('status')).toContainText('Channel “Broken” was created.');
    expect(await channelNamed(junction, 'Broken')).toMatchObject({ urlPattern: '^/broken/.*$', routes: [{ name: 'target', pathTransform: 's/a/b/' }] });
  });

  test('edits a channel, keeping the stored route password and the settings not touched', async ({ console: page, junction }, testInfo) => {
    expect((await junction.api('POST', '/clients', { clientID: 'pacs', name: 'PACS', password: 'pacs-client-secret-1' })).status).toBe(201);
    const created = await createByApi(junction, {
      name: 'Radiology',
      urlPattern: '^/rad$',
      allow: ['pacs', 'imaging'],
      alerts: [{ status: '401', users: [{ user: ROOT_EMAIL, method: 'email', maxAlerts: '1 per day' }] }],
      routes: [{ name: 'pacs', host: '127.0.0.1', port: 8300, primary: true, username: 'pacs', password: 'pacs-secret-9' }],
    });
    await page.goto(`${junction.apiUrl}/#/channels`);
    await page.getByRole('link', { name: 'Radiology' }).click();
    await expect(page.getByRole('heading', { name: 'Channel “Radiology”' })).toBeVisible();
    await expect(page.getByLabel(/^URL pattern/)).toHaveValue('^/rad$');
    await page.getByLabel('Description').fill('Images and reports');
    await page.getByRole('radio', { name: 'Polling' }).check();
    await page.getByLabel(/^Polling schedule/).fill('15 minutes');

    await openTab(page, 'Routes');
    const password = route(page, 1).getByLabel('Password', { exact: true });
    await expect(password).toHaveValue('');
    await expect(route(page, 1)).toContainText('A password is stored');
    await route(page, 1).getByLabel(/^Port/).fill('8301');
    await openTab(page, 'Access');
    // `allow` is split: the known client in one input, the role in the other.
    await expect(tagsOf(page, 'Allowed clients')).toContainText('pacs');
    await expect(tagsOf(page, 'Allowed clients')).not.toContainText('imaging');
    await expect(tagsOf(page, 'Allowed roles')).toContainText('imaging');
    await page.getByRole('radio', { name: /^Public/ }).check();
    await shot(page, testInfo, 'editor-edit');

    await page.getByRole('button', { name: 'Save channel' }).click();
    await expect(page.getByRole('status')).toContainText('Channel “Radiology” was saved.');
    const updated = await channelNamed(junction, 'Radiology');
    expect(updated).toMatchObject({
      _id: created._id,
      description: 'Images and reports',
      type: 'polling',
      pollingSchedule: '15 minutes',
      authType: 'public',
      allow: ['pacs', 'imaging'],
      alerts: [{ condition: 'status', status: '401', groups: [], users: [{ user: ROOT_EMAIL, method: 'email', maxAlerts: '1 per day' }] }],
      routes: [{ name: 'pacs', port: 8301, username: 'pacs', password: '********', primary: true }],
    });
  });

  test('enables, disables, triggers and deletes channels from the list', async ({ console: page, junction }, testInfo) => {
    const upstream = { host: '127.0.0.1', port: 9, primary: true };
    await createByApi(junction, { name: 'Pharmacy', urlPattern: '^/pharmacy$', authType: 'public', routes: [{ name: 'pharmacy', ...upstream }] });
    await createByApi(junction, { name: 'Old feed', urlPattern: '^/old$', routes: [{ name: 'old', ...upstream }] });
    await createByApi(junction, { name: 'Stock poll', type: 'polling', urlPattern: '^/poll/stock$', pollingSchedule: '1 days', routes: [{ name: 'stock', ...upstream }] });
    // A transaction through Pharmacy makes the service keep it, marked deleted, when it is deleted.
    const sent = await fetch(`${junction.httpUrl}/pharmacy`);
    expect(sent.status).toBe(500);

    await page.goto(`${junction.apiUrl}/#/channels`);
    await expect(page.getByRole('row')).toHaveCount(4);
    await expectNoHorizontalScroll(page);
    await shot(page, testInfo, 'list');

    // Disable and enable again.
    const toggle = page.getByRole('switch', { name: 'Enable Pharmacy' });
    await expect(toggle).toBeChecked();
    await setSwitch(toggle, false);
    await expect(page.getByRole('status')).toContainText('Channel “Pharmacy” is now disabled.');
    await expect(toggle).not.toBeChecked();
    await expect(page.getByRole('row', { name: /Pharmacy/ })).toContainText('disabled');
    expect((await channelNamed(junction, 'Pharmacy')).status).toBe('disabled');
    await setSwitch(toggle, true);
    await expect(page.getByRole('status')).toContainText('Channel “Pharmacy” is now enabled.');
    expect((await channelNamed(junction, 'Pharmacy')).status).toBe('enabled');

    // Only polling channels can be triggered; a trigger records a transaction.
    await expect(page.getByRole('button', { name: 'Trigger Pharmacy now' })).toHaveCount(0);
    await page.getByRole('button', { name: 'Trigger Stock poll now' }).click();
    await expect(page.getByRole('status')).toContainText('Channel Stock poll triggered.');
    const transactionLink = page.getByRole('status').getByRole('link', { name: 'View the transaction' });
    const href = await transactionLink.getAttribute('href');
    const transactionId = /transactions\/([0-9a-f]{24})$/.exec(href ?? '')?.[1];
    expect(transactionId, `link ${href ?? ''}`).toBeDefined();
    const stock = await channelNamed(junction, 'Stock poll');
    await expect
      .poll(async () => ((await junction.api('GET', `/transactions/${transactionId ?? ''}`)).json as { channelID?: string } | null)?.channelID)
      .toBe(stock._id);

    // Delete asks first; Cancel keeps the channel.
    await page.getByRole('button', { name: 'Delete Old feed' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete channel “Old feed”?' });
    await expect(dialog).toBeVisible();
    await shot(page, testInfo, 'list-delete-confirm');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await expect(dialog).toBeHidden();
    expect((await channels(junction)).map((c) => c.name)).toContain('Old feed');
    await page.getByRole('button', { name: 'Delete Old feed' }).click();
    await dialog.getByRole('button', { name: 'Delete channel' }).click();
    await expect(page.getByRole('status')).toContainText('Channel “Old feed” was deleted.');
    await expect(page.getByRole('row', { name: /Old feed/ })).toHaveCount(0);
    expect((await channels(junction)).map((c) => c.name)).not.toContain('Old feed');

    // A channel with transactions is kept as deleted: hidden unless asked for.
    await page.getByRole('button', { name: 'Delete Pharmacy' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete channel' }).click();
    await expect(page.getByRole('status')).toContainText('Channel “Pharmacy” was deleted.');
    await expect(page.getByRole('row', { name: /Pharmacy/ })).toHaveCount(0);
    expect((await channelNamed(junction, 'Pharmacy')).status).toBe('deleted');
    await setSwitch(page.getByRole('switch', { name: 'Show deleted channels' }), true);
    const deletedRow = page.getByRole('row', { name: /Pharmacy/ });
    await expect(deletedRow).toContainText('deleted');
    await expect(deletedRow.getByRole('switch')).toHaveCount(0);
    await expect(deletedRow.getByRole('button', { name: 'Restore Pharmacy' })).toBeVisible();
    await shot(page, testInfo, 'list-with-deleted');
  });

  test('restores deleted channels from the list and from their read-only page, renaming one whose name was taken', async ({ console: page, junction }, testInfo) => {
    const upstream = { host: '127.0.0.1', port: 9, primary: true };
    /** A public channel that has one transaction, deleted: the service keeps it, marked deleted. */
    async function keptDeleted(name: string, path: string): Promise<ApiChannel> {
      const channel = await createByApi(junction, { name, urlPattern: `^${path}$`, authType: 'public', routes: [{ name: 'r', ...upstream }] });
      const sent = await fetch(`${junction.httpUrl}${path}`);
      expect(sent.status).toBe(500);
      expect((await junction.api('DELETE', `/channels/${channel._id}`)).status).toBe(200);
      return channel;
    }
    const radiology = await keptDeleted('Radiology', '/radiology');
    const pharmacy = await keptDeleted('Pharmacy', '/pharmacy-old');
    const lab = await keptDeleted('Lab', '/lab');
    // A new channel took Pharmacy's name after it was deleted.
    const taker = await createByApi(junction, { name: 'Pharmacy', urlPattern: '^/pharmacy$', routes: [{ name: 'p', ...upstream }] });

    await page.goto(`${junction.apiUrl}/#/channels`);
    await expect(page.getByRole('row')).toHaveCount(2);
    await setSwitch(page.getByRole('switch', { name: 'Show deleted channels' }), true);
    await expect(page.getByRole('row')).toHaveCount(5);
    await expect(page.getByRole('button', { name: 'Restore Pharmacy' })).toHaveCount(1);

    // Restored as it was, enabled.
    await page.getByRole('button', { name: 'Restore Radiology' }).click();
    const radiologyDialog = page.getByRole('dialog', { name: 'Restore channel “Radiology”' });
    await expect(radiologyDialog.getByLabel(/^Name/)).toHaveValue('Radiology');
    await shot(page, testInfo, 'restore-dialog');
    await radiologyDialog.getByRole('button', { name: 'Restore channel' }).click();
    await expect(radiologyDialog).toBeHidden();
    await expect(page.getByRole('status')).toContainText('Channel “Radiology” was restored; it is enabled.');
    await expect(page.getByRole('switch', { name: 'Enable Radiology' })).toBeChecked();
    expect((await junction.api('GET', `/channels/${radiology._id}`)).json).toMatchObject({ name: 'Radiology', status: 'enabled' });

    // Its name is taken: the refusal shows under the name, and a new name (restored disabled) gets past it.
    await page.getByRole('button', { name: 'Restore Pharmacy' }).click();
    const pharmacyDialog = page.getByRole('dialog', { name: 'Restore channel “Pharmacy”' });
    await pharmacyDialog.getByRole('button', { name: 'Restore channel' }).click();
    const name = pharmacyDialog.getByLabel(/^Name/);
    await expect(name).toHaveAttribute('aria-invalid', 'true');
    await expect(pharmacyDialog).toContainText(`Is used by channel "Pharmacy" (_id ${taker._id})`);
    await shot(page, testInfo, 'restore-name-taken');
    expect((await junction.api('GET', `/channels/${pharmacy._id}`)).json).toMatchObject({ status: 'deleted' });
    await name.fill('Pharmacy (old)');
    await setSwitch(pharmacyDialog.getByRole('switch', { name: /^Enabled/ }), false);
    await pharmacyDialog.getByRole('button', { name: 'Restore channel' }).click();
    await expect(pharmacyDialog).toBeHidden();
    await expect(page.getByRole('status')).toContainText('Channel “Pharmacy (old)” was restored; it is disabled.');
    expect((await junction.api('GET', `/channels/${pharmacy._id}`)).json).toMatchObject({ name: 'Pharmacy (old)', status: 'disabled' });
    expect((await junction.api('GET', `/channels/${taker._id}`)).json).toMatchObject({ name: 'Pharmacy', status: 'enabled' });

    // A deleted channel opens read-only, and can be restored from there.
    await page.getByRole('link', { name: 'Lab', exact: true }).click();
    await expect(page.getByText('This channel is deleted')).toBeVisible();
    await expect(page.getByLabel(/^Name/)).toHaveValue('Lab');
    await expect(page.getByLabel(/^Name/)).toBeDisabled();
    await expect(page.getByRole('button', { name: 'Save channel' })).toHaveCount(0);
    await shot(page, testInfo, 'deleted-read-only');
    await page.getByRole('button', { name: 'Restore channel' }).click();
    const labDialog = page.getByRole('dialog', { name: 'Restore channel “Lab”' });
    await labDialog.getByRole('button', { name: 'Restore channel' }).click();
    await expect(labDialog).toBeHidden();
    await expect(page.getByText('This channel is deleted')).toBeHidden();
    await expect(page.getByLabel(/^Name/)).toBeEnabled();
    await expect(page.getByRole('button', { name: 'Save channel' })).toBeVisible();
    expect((await junction.api('GET', `/channels/${lab._id}`)).json).toMatchObject({ status: 'enabled' });
  });

  test('asks before leaving an editor with unsaved changes', async ({ console: page, junction }) => {
    await page.goto(`${junction.apiUrl}/#/channels/new`);
    await page.getByLabel(/^Name/).fill('Half done');
    await page.getByRole('link', { name: 'Channels', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: 'Leave without saving?' });
    await expect(dialog).toBeVisible();
    await dialog.getByRole('button', { name: 'Stay here' }).click();
    await expect(page.getByLabel(/^Name/)).toHaveValue('Half done');
    await page.getByRole('link', { name: 'Channels', exact: true }).click();
    await dialog.getByRole('button', { name: 'Leave and discard' }).click();
    await expect(page.getByRole('heading', { name: 'Channels', exact: true })).toBeVisible();
    expect(await channels(junction)).toEqual([]);
  });

  test('shows channels read-only to a user whose group may view them', async ({ page, junction }) => {
    const viewer = { email: 'vic@clinic.example', firstname: 'Vic', surname: 'Viewer', groups: ['nurses'], password: 'vic-password-1234' };
    expect((await junction.api('POST', '/users', viewer)).status).toBe(201);
    await createByApi(junction, { name: 'Ward feed', urlPattern: '^/ward$', txViewAcl: ['nurses'], routes: [{ name: 'ward', host: '127.0.0.1', port: 9, primary: true }] });
    await createByApi(junction, { name: 'Billing', urlPattern: '^/billing$', routes: [{ name: 'billing', host: '127.0.0.1', port: 9, primary: true }] });

    await signIn(page, junction, viewer.password, viewer.email);
    await page.getByRole('link', { name: 'Channels', exact: true }).click();
    await expect(page.getByRole('link', { name: 'Ward feed' })).toBeVisible();
    await expect(page.getByRole('row', { name: /Billing/ })).toHaveCount(0);
    await expect(page.getByRole('link', { name: 'New channel' })).toHaveCount(0);
    await expect(page.getByRole('switch', { name: 'Enable Ward feed' })).toHaveCount(0);
    await expect(page.getByRole('button', { name: 'Delete Ward feed' })).toHaveCount(0);

    await page.getByRole('link', { name: 'Ward feed' }).click();
    await expect(page.getByText('Only administrators can change channels.')).toBeVisible();
    await expect(page.getByLabel(/^Name/)).toHaveValue('Ward feed');
    await expect(page.getByLabel(/^Name/)).toBeDisabled();
    await expect(page.getByRole('button', { name: 'Save channel' })).toHaveCount(0);
    await openTab(page, 'Routes');
    await expect(route(page, 1).getByLabel(/^Host/)).toBeDisabled();
    await expectNoHorizontalScroll(page);
  });

  test('creates a TLS channel with its port, framing and client certificate, and shows its listener in the list', async ({ console: page, junction }, testInfo) => {
    const port = await freePort();
    await page.goto(`${junction.apiUrl}/#/channels/new`);
    await page.getByLabel(/^Name/).fill('Lab analyser MLLP');
    await page.getByRole('radio', { name: 'TLS' }).check();
    // A socket channel takes everything arriving on its port: no URL pattern, no request matching or URL rewriting.
    await expect(page.getByLabel(/^URL pattern/)).toHaveCount(0);
    await expect(tab(page, 'Request matching')).toHaveCount(0);
    await expect(tab(page, 'URL rewriting')).toHaveCount(0);
    await expect(page.getByLabel('Listen on address')).toHaveAttribute('placeholder', '0.0.0.0');
    await expect(page.getByRole('radio', { name: 'Auto-detect' })).toBeChecked();
    await expect(page.getByRole('radio', { name: 'Stream' })).toHaveAccessibleDescription(/One message per connection/);

    // The port is required, said next to its field before the server is asked.
    await openTab(page, 'Routes');
    await route(page, 1).getByLabel(/^Route name/).fill('lis');
    await route(page, 1).getByLabel('Route type').selectOption('mllp');
    await route(page, 1).getByLabel(/^Host/).fill('127.0.0.1');
    await route(page, 1).getByLabel(/^Port/).fill('2576');
    // An MLLP route has no path, authentication or forwarded header; its secured switch is TLS.
    await expect(route(page, 1).getByLabel('Path', { exact: true })).toHaveCount(0);
    await expect(route(page, 1).getByLabel('Username')).toHaveCount(0);
    await setSwitch(route(page, 1).getByRole('switch', { name: 'TLS' }), true);
    await page.getByRole('button', { name: 'Save channel' }).click();
    await expect(tab(page, 'Basics')).toHaveAttribute('aria-selected', 'true');
    await expect(page.getByLabel(/^Listen on port/)).toHaveAccessibleDescription(/Listen on port is required for tls channels\./);

    await page.getByLabel(/^Listen on port/).fill(String(port));
    await page.getByRole('radio', { name: 'MLLP' }).check();
    await setSwitch(page.getByRole('switch', { name: 'Require a client certificate' }), true);
    await expectNoHorizontalScroll(page);
    await shot(page, testInfo, 'editor-tls-channel');
    await page.getByRole('button', { name: 'Save channel' }).click();
    await expect(page.getByRole('status')).toContainText('Channel “Lab analyser MLLP” was created.');

    const saved = await channelNamed(junction, 'Lab analyser MLLP');
    // An address left empty listens on all of them.
    expect(saved).toMatchObject({ type: 'tls', urlPattern: '', tcpHost: '0.0.0.0', tcpPort: port, tcpFraming: 'mllp', requireClientCertificate: true, methods: [] });
    expect(saved.routes).toEqual([{ name: 'lis', type: 'mllp', host: '127.0.0.1', port: 2576, primary: true, secured: true, forwardAuthHeader: false, status: 'enabled', waitPrimaryResponse: false }]);

    const row = page.getByRole('row', { name: /Lab analyser MLLP/ });
    await expect(row).toContainText('TLS');
    await expect(row).toContainText('MLLP, client certificate required');
    // The service answers a tcp or tls channel with its listener, once it has started: on every address, so the port alone.
    expect(saved.listener).toMatchObject({ state: 'listening', port });
    await expect(row.locator('[data-listener-state="listening"]')).toHaveText(`Listening on ${port}`);
    await expectNoHorizontalScroll(page);
    await shot(page, testInfo, 'list-tls-channel');

    // The editor reads the channel back as saved, and a framing change is saved.
    await row.getByRole('link', { name: 'Lab analyser MLLP' }).click();
    await expect(page.getByLabel(/^Listen on port/)).toHaveValue(String(port));
    await expect(page.getByRole('radio', { name: 'TLS' })).toBeChecked();
    await expect(page.getByRole('radio', { name: 'MLLP' })).toBeChecked();
    await expect(page.getByRole('switch', { name: 'Require a client certificate' })).toBeChecked();
    await page.getByRole('radio', { name: 'Stream' }).check();
    await page.getByRole('button', { name: 'Save channel' }).click();
    await expect(page.getByRole('status')).toContainText('Lab analyser MLLP');
    expect(await channelNamed(junction, 'Lab analyser MLLP')).toMatchObject({ tcpFraming: 'stream', requireClientCertificate: true, tcpPort: port });
  });
  test('shows in red, and in words, a channel whose port another program holds', async ({ console: page, junction }, testInfo) => {
    // Another program on the port the channel is given.
    const holder: Server = createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    const address = holder.address();
    const port = typeof address === 'object' && address !== null ? address.port : 0;
    try {
      await page.goto(`${junction.apiUrl}/#/channels/new`);
      await page.getByLabel(/^Name/).fill('Ward monitors');
      await page.getByRole('radio', { name: 'TCP', exact: true }).check();
      await page.getByLabel('Listen on address').fill('127.0.0.1');
      await page.getByLabel(/^Listen on port/).fill(String(port));
      await openTab(page, 'Routes');
      await route(page, 1).getByLabel(/^Route name/).fill('ehr');
      await route(page, 1).getByLabel('Route type').selectOption('mllp');
      await route(page, 1).getByLabel(/^Host/).fill('127.0.0.1');
      await route(page, 1).getByLabel(/^Port/).fill('2576');
      await page.getByRole('button', { name: 'Save channel' }).click();
      // The channel is kept: the port may be freed later; the failure is the listener's, not the save's.
      await expect(page.getByRole('status')).toContainText('Channel “Ward monitors” was created.');

      const saved = await channelNamed(junction, 'Ward monitors');
      const listener = saved.listener as { state: string; error?: string } | undefined;
      expect(listener).toMatchObject({ state: 'failed', host: '127.0.0.1', port });
      expect(listener?.error).toMatch(/EADDRINUSE|in use/i);

      const row = page.getByRole('row', { name: /Ward monitors/ });
      const badge = row.locator('[data-listener-state="failed"]');
      // Said in words, not by colour alone: the port, why, and the service's own error text under it.
      await expect(badge).toHaveText(`Port 127.0.0.1:${port}: in use by another program`);
      const detail = row.getByText(listener?.error ?? '', { exact: true });
      await expect(detail).toBeVisible();
      // And in red: both the badge's text and the error's are clearly more red than green or blue.
      for (const part of [badge, detail]) {
        const [r = 0, g = 0, b = 0] = ((await part.evaluate((el) => getComputedStyle(el).color)).match(/\d+/g) ?? []).map(Number);
        expect(r, `colour rgb(${r}, ${g}, ${b})`).toBeGreaterThan(g + 60);
        expect(r).toBeGreaterThan(b + 60);
      }
      await expectNoHorizontalScroll(page);
      await shot(page, testInfo, 'list-port-in-use');
    } finally {
      await new Promise<void>((resolve) => holder.close(() => resolve()));
    }
  });
});
