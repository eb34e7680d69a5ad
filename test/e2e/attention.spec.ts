/**
 * What needs attention, walked as an admin would (issue 35): the dashboard's strip names email that is not set up
 * and a channel nobody may use, each with a link to fix it; the alert editor warns that email is not set up; the
 * channel editor warns while nobody may use the channel, and stops once an address is whitelisted and saved, which
 * also takes the channel off the strip.
 */
import type { Page } from '@playwright/test';
import { freePort } from '../helpers/process.js';
import { expect, expectNoHorizontalScroll, shot, test } from './fixtures.js';

async function addTag(page: Page, name: string, value: string): Promise<void> {
  const input = page.getByRole('combobox', { name, exact: true });
  await input.fill(value);
  await input.press('Enter');
  await input.press('Escape');
}

test('the dashboard strip, the alert editor and the channel editor say what needs attention', async ({ console: page, junction }, testInfo) => {
  // The clinic's case: an MLLP feed saved private, with nobody allowed.
  const made = await junction.api('POST', '/channels', {
    name: 'Lab results feed',
    type: 'tcp',
    tcpHost: '127.0.0.1',
    tcpPort: await freePort(),
    authType: 'private',
    routes: [{ name: 'EMR', type: 'mllp', host: '127.0.0.1', port: 9, primary: true }],
  });
  expect(made.status, made.text).toBe(201);
  const channel = made.json as { _id: string; admitsNobody?: string };
  expect(channel.admitsNobody).toMatch(/cannot identify clients/);

  await page.goto(`${junction.apiUrl}/#/`);
  await expect(page.getByRole('heading', { name: 'Dashboard', level: 1 })).toBeVisible();
  const strip = page.getByRole('region', { name: /^Needs attention/ });
  await expect(strip).toContainText('Email is not set up (email.smtp.host is empty)');
  await expect(strip).toContainText('Channel Lab results feed admits nobody');
  await expect(strip.getByText('Warning', { exact: true }).first()).toBeVisible();
  await expectNoHorizontalScroll(page);
  await shot(page, testInfo, 'attention-strip');

  // The email item leads to the Settings page, where email is set up.
  await strip.getByRole('link', { name: /^Fix it ?: Email is not set up/ }).click();
  await expect(page.getByRole('heading', { name: 'Settings', level: 1 })).toBeVisible();

  // The channel item leads to its editor, which says nobody may use it.
  await page.goto(`${junction.apiUrl}/#/`);
  await page.getByRole('region', { name: /^Needs attention/ }).getByRole('link', { name: /^Fix it ?: Channel Lab results feed admits nobody/ }).click();
  await expect(page.getByRole('heading', { name: 'Channel “Lab results feed”', level: 1 })).toBeVisible();
  const warning = page.getByTestId('channel-access-warning');
  await expect(warning).toContainText('Nobody may use this channel');
  await expect(warning).toContainText('only whitelisted IP addresses may send');

  // The alert editor warns that email is not set up.
  await page.getByRole('tab', { name: /^Alerts/ }).click();
  await expect(page.getByTestId('alerts-messaging-warning')).toContainText('Email is not set up (email.smtp.host is empty)');
  await shot(page, testInfo, 'alert-editor-warning');

  // Whitelisting the lab's address admits it: the warning goes before saving.
  await page.getByRole('tab', { name: /^Alerts/ }).click();
  await page.getByRole('button', { name: 'Open the Access tab' }).click();
  await expect(page.getByRole('tab', { name: /^Access/ })).toHaveAttribute('aria-selected', 'true');
  await shot(page, testInfo, 'channel-editor-warning');
  await addTag(page, 'Whitelisted IP addresses', '10.0.0.7');
  await expect(page.getByTestId('channel-access-warning')).toHaveCount(0);
  await page.getByRole('button', { name: 'Save channel' }).click();
  await expect(page.getByText('Channel “Lab results feed” was saved.')).toBeVisible();
  await expect(page.getByText(/Nobody may use it/)).toHaveCount(0);

  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Dashboard' }).click();
  const after = page.getByRole('region', { name: /^Needs attention/ });
  await expect(after).toContainText('Email is not set up');
  await expect(after).not.toContainText('Lab results feed');
});

test('saving a channel nobody may use says so in the list', async ({ console: page, junction }) => {
  await page.goto(`${junction.apiUrl}/#/channels/new`);
  await expect(page.getByRole('heading', { name: 'New channel', level: 1 })).toBeVisible();
  // A new channel is private with nobody allowed until someone is added.
  await expect(page.getByTestId('channel-access-warning')).toContainText('It is private and allows no client, role or IP address.');
  await page.getByLabel(/^Name/).fill('Pharmacy orders');
  await page.getByLabel(/^URL pattern/).fill('^/pharmacy$');
  await page.getByRole('tab', { name: /^Routes/ }).click();
  await page.getByLabel(/^Route name/).fill('Pharmacy system');
  await page.getByLabel(/^Host/).fill('127.0.0.1');
  await page.getByLabel(/^Port/).fill('8099');
  await page.getByRole('button', { name: 'Save channel' }).click();
  await expect(page.getByText(/Channel “Pharmacy orders” was created\. Nobody may use it: it is private and allows no client, role or address\./)).toBeVisible();
});

test.describe('with the search indexer held back', () => {
  // The indexer runs once at start, then not for an hour; more than one waiting transaction counts as behind.
  test.use({ env: { JUNCTION_SEARCH_INTERVAL_MS: '3600000', JUNCTION_ATTENTION_SEARCH_BEHIND_TRANSACTIONS: '1' } });

  test('the strip says search indexing is behind and leads to the transactions', async ({ console: page, junction }) => {
    // The first run has taken its place on the feed: what completes from now waits for the next run.
    await expect.poll(async () => ((await junction.api('GET', '/transactions/search-index')).json as { backfill: { done: boolean } }).backfill.done).toBe(true);
    const made = await junction.api('POST', '/channels', { name: 'Ward', urlPattern: '^/ward$', authType: 'public', routes: [{ name: 'EMR', host: '127.0.0.1', port: 9, primary: true }] });
    expect(made.status, made.text).toBe(201);
    for (const control of ['W-1', 'W-2']) {
      const body = `MSH|^~\\&|ADT|SMH|EMR|SMH|20260115083000||ADT^A01|${control}|P|2.5.1\rPID|1||MRN-1^^^SMH^MR`;
      const res = await junction.api('POST', '/transactions', { channelID: (made.json as { _id: string })._id, status: 'Successful', request: { path: '/ward', method: 'POST', body, timestamp: new Date().toISOString() } });
      expect(res.status, res.text).toBe(201);
    }
    await page.goto(`${junction.apiUrl}/#/`);
    const strip = page.getByRole('region', { name: /^Needs attention/ });
    await expect(strip).toContainText('Search indexing is 2 transactions behind');
    await strip.getByRole('link', { name: /^Fix it ?: Search indexing is 2 transactions behind/ }).click();
    await expect(page.getByRole('heading', { name: 'Transactions', level: 1 })).toBeVisible();
  });
});
