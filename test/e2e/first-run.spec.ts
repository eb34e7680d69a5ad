/**
 * Issue 36: the empty dashboard walks a newcomer to a first message. An administrator on a new Junction follows the
 * checklist's links to create a channel and a client, runs the example command it shows (the very text, with the
 * client's password put in), and sees each step ticked off as it happens; afterwards the dashboard is as before.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { Locator, Page } from '@playwright/test';
import { httpUpstream } from '../helpers/upstream.js';
import type { Upstream } from '../helpers/upstream.js';
import { expect, expectNoHorizontalScroll, shot, test } from './fixtures.js';

const run = promisify(execFile);

function checklist(page: Page): Locator {
  return page.getByRole('region', { name: 'Get started' });
}

function step(page: Page, title: string): Locator {
  return checklist(page).getByRole('listitem').filter({ hasText: title });
}

async function toDashboard(page: Page): Promise<void> {
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Dashboard' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Dashboard' })).toBeVisible();
}

test.describe('first run', () => {
  let upstream: Upstream;
  test.beforeAll(async () => {
    upstream = await httpUpstream((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"received":true}');
    });
  });
  test.afterAll(async () => {
    await upstream.close();
  });

  test('the checklist ticks off a channel, a client and a first message as each is made, then leaves the dashboard as it was', async ({ console: page, junction }, testInfo) => {
    // A long walk (two forms, a terminal command, three dashboards) on a loaded machine.
    test.setTimeout(180_000);
    await expect(page.getByRole('heading', { level: 1, name: 'Dashboard' })).toBeVisible();
    await expect(checklist(page)).toBeVisible();
    await expect(checklist(page).getByTestId('first-run-progress')).toHaveText('0 of 3 steps done. Each is ticked off here as it happens.');
    await expect(step(page, 'Create a channel')).toContainText('Step 1');
    await expect(step(page, 'Send a first message')).toContainText('Once a channel is enabled');
    await expectNoHorizontalScroll(page);
    await shot(page, testInfo, 'first-run-empty');

    // Step 1: the link opens the channel editor.
    await step(page, 'Create a channel').getByRole('link', { name: 'Create a channel' }).click();
    await expect(page.getByRole('heading', { level: 1, name: 'New channel' })).toBeVisible();
    await page.getByLabel(/^Name/).fill('Lab results');
    await page.getByLabel(/^URL pattern/).fill('^/lab$');
    await page.getByRole('tab', { name: /^Access/ }).click();
    const roles = page.getByRole('combobox', { name: 'Allowed roles', exact: true });
    await roles.fill('lab');
    await roles.press('Enter');
    await roles.press('Escape');
    await page.getByRole('tab', { name: /^Routes/ }).click();
    await page.getByLabel(/^Route name/).fill('Lab system');
    await page.getByLabel(/^Host/).fill('127.0.0.1');
    await page.getByLabel(/^Port/).fill(String(upstream.port));
    await page.getByRole('button', { name: 'Save channel' }).click();
    await expect(page.getByRole('status').filter({ hasText: 'Channel “Lab results” was created.' })).toBeVisible();

    await toDashboard(page);
    await expect(step(page, 'Create a channel')).toContainText('✓ Done');
    await expect(checklist(page).getByTestId('first-run-progress')).toContainText('1 of 3 steps done');
    // The address to send to is known now, with the client's credentials still to come.
    const address = checklist(page).getByTestId('first-message-address');
    await expect(address).toHaveText(new RegExp(`^https://127\\.0\\.0\\.1:${new URL(junction.httpsUrl).port}/lab$`));

    // Step 2: the link opens the clients page.
    await step(page, 'Add a client').getByRole('link', { name: 'Add a client' }).click();
    await expect(page.getByRole('heading', { level: 1, name: 'Clients' })).toBeVisible();
    await page.getByRole('button', { name: 'Add client' }).click();
    const form = page.getByRole('dialog', { name: 'Add client' });
    await form.getByLabel(/^Client ID/).fill('lab-system');
    await form.getByLabel(/^Name/).fill('Lab system');
    await form.getByLabel(/^Roles/).fill('lab');
    await form.getByLabel(/^Roles/).press('Enter');
    await form.getByLabel(/^Password/).fill('lab-secret-passphrase');
    await form.getByLabel(/^Confirm password/).fill('lab-secret-passphrase');
    await form.getByRole('button', { name: 'Save client' }).click();
    await expect(form).toBeHidden();

    await toDashboard(page);
    await expect(step(page, 'Add a client')).toContainText('✓ Done');
    await expect(checklist(page).getByTestId('first-run-progress')).toContainText('2 of 3 steps done');
    const command = checklist(page).getByLabel('Example command', { exact: true });
    await expect(command).toContainText('--user lab-system:CLIENT-PASSWORD');
    await expectNoHorizontalScroll(page);
    await shot(page, testInfo, 'first-run-command');

    // Step 3: the command as shown, run in a terminal with the password put in; the page is not reloaded.
    await page.evaluate(() => {
      (window as unknown as { stayed: boolean }).stayed = true;
    });
    const text = (await command.textContent()) ?? '';
    const { stdout } = await run('bash', ['-c', text.replace('CLIENT-PASSWORD', 'lab-secret-passphrase')]);
    expect(stdout).toContain('"received":true');
    await expect(step(page, 'Send a first message')).toContainText('✓ Done');
    await expect(checklist(page).getByTestId('first-run-progress')).toHaveText('All three steps are done: messages are flowing through Junction.');
    await expect(checklist(page).getByText('You are set up')).toBeVisible();
    await expect(page.getByRole('region', { name: 'Live feed' }).getByRole('link', { name: 'POST /lab' })).toBeVisible();
    expect(await page.evaluate(() => (window as unknown as { stayed?: boolean }).stayed)).toBe(true);
    await shot(page, testInfo, 'first-run-done');

    // Set up: the next visit shows the dashboard as it always was.
    await page.reload();
    await expect(page.getByRole('heading', { level: 1, name: 'Dashboard' })).toBeVisible();
    await expect(page.getByRole('link', { name: 'Successful 1', exact: true })).toBeVisible();
    await expect(checklist(page)).toHaveCount(0);
    // And it fits a phone's width with the message in its live feed.
    await page.setViewportSize({ width: 390, height: 844 });
    await expect(page.getByRole('region', { name: 'Live feed' }).getByRole('link', { name: 'POST /lab' })).toBeVisible();
    await expectNoHorizontalScroll(page);
  });

  test('an administrator may hide the checklist before finishing it, and it stays hidden', async ({ console: page }) => {
    await expect(checklist(page)).toBeVisible();
    await checklist(page).getByRole('button', { name: 'Hide this guide' }).click();
    await expect(checklist(page)).toHaveCount(0);
    await page.reload();
    await expect(page.getByRole('heading', { level: 1, name: 'Dashboard' })).toBeVisible();
    await expect(page.getByRole('region', { name: 'Live feed' })).toBeVisible();
    await expect(checklist(page)).toHaveCount(0);
  });
});
