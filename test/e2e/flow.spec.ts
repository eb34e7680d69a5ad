/**
 * The whole first day, as a site administrator lives it: first sign-in with the default password, the forced change,
 * a client and a channel made through the forms, a real request on the HTTP transaction port that shows up in the
 * live feed without a reload, its detail, a re-run, and an export of the filtered list.
 */
import { readFile } from 'node:fs/promises';
import { httpUpstream, readBody } from '../helpers/upstream.js';
import { FIRST_RUN_PASSWORD, expect, expectNoHorizontalScroll, shot, signIn, test } from './fixtures.js';

const NEW_PASSWORD = 'our-clinic-runs-on-junction-2026';

test.use({ firstRun: true });

test('first run to export: sign in, change password, create client and channel, watch a request arrive, re-run and export it', async ({ page, junction }, testInfo) => {
  const upstream = await httpUpstream((req, res) => {
    void readBody(req).then((body) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ ok: true, path: req.url, echoed: body }));
    });
  });
  try {
    // First sign-in with the default password forces a change.
    await signIn(page, junction, FIRST_RUN_PASSWORD);
    await expect(page.getByRole('heading', { name: 'Choose a new password' })).toBeVisible();
    await page.getByLabel(/^New password/).fill(NEW_PASSWORD);
    await page.getByLabel(/^Confirm new password/).fill(NEW_PASSWORD);
    await page.getByRole('button', { name: 'Change password' }).click();
    await expect(page.getByRole('navigation', { name: 'Main' })).toBeVisible();
    junction.adminPassword = NEW_PASSWORD;

    // A client with a basic-auth password, through the form.
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Clients' }).click();
    await page.getByRole('button', { name: 'Add client' }).click();
    const clientForm = page.getByRole('dialog', { name: 'Add client' });
    await clientForm.getByLabel(/^Client ID/).fill('ward-emr');
    await clientForm.getByLabel(/^Name/).fill('Ward EMR');
    await clientForm.getByLabel(/^Password/).fill('ward-emr-secret-1');
    await clientForm.getByLabel(/^Confirm password/).fill('ward-emr-secret-1');
    await clientForm.getByRole('button', { name: 'Save client' }).click();
    await expect(clientForm).toBeHidden();
    await expect(page.getByRole('table', { name: 'Clients' })).toContainText('ward-emr');

    // A channel for that client, routed to the upstream, through the editor.
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Channels' }).click();
    await page.getByRole('link', { name: 'New channel' }).click();
    await page.getByLabel(/^Name/).fill('Ward observations');
    await page.getByLabel(/^URL pattern/).fill('^/ward/.*$');
    await page.getByRole('tab', { name: /^Access/ }).click();
    const allowed = page.getByRole('combobox', { name: 'Allowed clients', exact: true });
    await allowed.fill('ward-emr');
    await allowed.press('Enter');
    await allowed.press('Escape');
    await page.getByRole('tab', { name: /^Routes/ }).click();
    await page.getByLabel(/^Route name/).fill('Observation store');
    await page.getByLabel(/^Host/).fill('127.0.0.1');
    await page.getByLabel(/^Port/).fill(String(upstream.port));
    await page.getByRole('button', { name: 'Save channel' }).click();
    await expect(page.getByText('Ward observations').first()).toBeVisible();
    const channels = (await junction.api('GET', '/channels')).json as { _id: string; name: string; allow: string[]; routes: { port: number; primary: boolean }[] }[];
    const channel = channels.find((c) => c.name === 'Ward observations');
    expect(channel?.allow).toEqual(['ward-emr']);
    expect(channel?.routes).toMatchObject([{ port: upstream.port, primary: true }]);

    // The dashboard is open; a request arrives on the HTTP transaction port and appears without a reload.
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Dashboard' }).click();
    const feed = page.getByRole('region', { name: 'Live feed' });
    await expect(feed).toBeVisible();
    await page.evaluate(() => {
      (window as unknown as { sameDocument?: boolean }).sameDocument = true;
    });
    const response = await fetch(`${junction.httpUrl}/ward/observations?bed=4`, {
      method: 'POST',
      headers: { authorization: `Basic ${Buffer.from('ward-emr:ward-emr-secret-1').toString('base64')}`, 'content-type': 'application/json' },
      body: '{"bed":4,"pulse":72}',
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ ok: true, echoed: '{"bed":4,"pulse":72}' });
    const transactionId = response.headers.get('x-openhim-transactionid') ?? '';
    expect(transactionId).toMatch(/^[0-9a-f]{24}$/);
    const entry = feed.getByRole('link', { name: 'POST /ward/observations' });
    await expect(entry).toBeVisible();
    await expect(page.getByRole('link', { name: 'Successful 1' })).toBeVisible();
    expect(await page.evaluate(() => (window as unknown as { sameDocument?: boolean }).sameDocument)).toBe(true);
    await expectNoHorizontalScroll(page);
    await shot(page, testInfo, 'flow-dashboard');

    // Its detail: the request as sent and the upstream's answer.
    await entry.click();
    await expect(page.getByRole('heading', { name: 'Transaction' })).toBeVisible();
    await expect(page.getByText(transactionId)).toBeVisible();
    await expect(page.getByRole('region', { name: 'Request body' })).toContainText('"pulse": 72');
    await page.getByRole('tab', { name: 'Response' }).click();
    await expect(page.getByRole('region', { name: 'Response body' })).toContainText('"ok": true');
    await shot(page, testInfo, 'flow-detail');

    // Re-run it: a task is created for exactly this transaction, and the re-run reaches the upstream again.
    await page.getByRole('button', { name: 'Re-run' }).click();
    await page.getByRole('dialog', { name: 'Re-run this transaction?' }).getByRole('button', { name: 'Re-run now' }).click();
    await expect(page.getByText(/Re-run finished/)).toBeVisible();
    await expect
      .poll(async () => {
        const tasks = (await junction.api('GET', '/tasks')).json as { status: string; transactions?: { tid: string }[]; totalTransactions: number }[];
        return tasks.map((t) => t.status);
      })
      .toContain('Completed');
    await expect
      .poll(async () => ((await junction.api('GET', '/transactions?filterLimit=10')).json as unknown[]).length)
      .toBe(2);

    // Export the filtered list (path ^/ward/, Successful) as CSV.
    await page.getByRole('link', { name: 'Back to transactions' }).click();
    const filters = page.getByRole('form', { name: 'Filters' });
    await filters.getByRole('textbox', { name: 'Path' }).fill('^/ward/');
    await filters.getByRole('textbox', { name: 'Path' }).press('Enter');
    await expect(page).toHaveURL(/path=%5E%2Fward%2F/);
    await expect(page.getByRole('table', { name: 'Transactions' }).locator('tbody tr')).toHaveCount(2);
    await page.getByRole('button', { name: 'Export' }).click();
    const dialog = page.getByRole('dialog', { name: 'Export transactions' });
    await dialog.getByRole('radio', { name: 'CSV' }).check();
    const download = page.waitForEvent('download');
    await dialog.getByRole('button', { name: 'Start export' }).click();
    const file = await (await download).path();
    const lines = (await readFile(file, 'utf8')).trim().split(/\r?\n/);
    expect(lines[0]).toContain('_id');
    expect(lines).toHaveLength(3);
    expect(lines.slice(1).every((line) => line.includes('/ward/observations'))).toBe(true);
    expect(lines.some((line) => line.includes(transactionId))).toBe(true);
  } finally {
    await upstream.close();
  }
});
