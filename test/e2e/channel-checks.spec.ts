/**
 * "Is it working?" as a support person walks it (issue 36): the channel list says today's counts and the address to
 * send to; "Check routes" on a channel with one route down says which one and why, in words; "Send test message"
 * sends the sample (edited) through the channel and links to the transaction it made, marked as a test; the editor
 * takes a path prefix and shows it back, and gives an MLLP channel MLLP routes without being asked.
 */
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Page, TestInfo } from '@playwright/test';
import { expect, expectNoHorizontalScroll, shot as fullPageShot, test } from './fixtures.js';
import type { E2EJunction } from './fixtures.js';
import { freePort } from '../helpers/process.js';

interface ApiChannel {
  _id: string;
  name: string;
  urlPattern: string;
  routes: { name: string; type: string }[];
}

async function shot(page: Page, testInfo: TestInfo, name: string): Promise<void> {
  await page.evaluate(() => window.scrollTo(0, 0));
  await fullPageShot(page, testInfo, name);
}

async function createByApi(junction: E2EJunction, body: Record<string, unknown>): Promise<ApiChannel> {
  const res = await junction.api('POST', '/channels', body);
  expect(res.status, res.text).toBe(201);
  return res.json as ApiChannel;
}

async function channelNamed(junction: E2EJunction, name: string): Promise<ApiChannel> {
  const res = await junction.api('GET', '/channels');
  const found = (res.json as ApiChannel[]).find((c) => c.name === name);
  if (found === undefined) throw new Error(`no channel named ${name}`);
  return found;
}

/** An HTTP upstream that answers 200 and keeps what it received. */
async function upstream(): Promise<{ port: number; received: { url: string; body: string }[]; close: () => Promise<void> }> {
  const received: { url: string; body: string }[] = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      received.push({ url: req.url ?? '', body });
      res.setHeader('content-type', 'application/fhir+json');
      res.end('{"resourceType":"OperationOutcome","issue":[{"severity":"information","code":"informational"}]}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

test.describe('channels: is it working?', () => {
  test('"Check routes" on a channel with one route down says which, and why, without sending anything', async ({ console: page, junction }, testInfo) => {
    const up = await upstream();
    const down = await freePort();
    try {
      await createByApi(junction, {
        name: 'Ward orders',
        urlPattern: '^/ward(/.*)?$',
        authType: 'public',
        routes: [
          { name: 'EHR', host: '127.0.0.1', port: up.port, primary: true },
          { name: 'Pharmacy system', type: 'mllp', host: '127.0.0.1', port: down },
        ],
      });
      await page.goto(`${junction.apiUrl}/#/channels`);
      const row = page.getByRole('row', { name: /Ward orders/ });
      // The address a sender uses, from the HTTPS transaction port and the pattern.
      await expect(row.getByTestId('channel-address')).toHaveText(`${junction.httpsUrl}/ward…`);
      await expect(row.getByTestId('channel-today')).toContainText('0 received');
      await row.getByRole('button', { name: 'Check routes of Ward orders' }).click();

      const dialog = page.getByRole('dialog', { name: 'Check routes of “Ward orders”' });
      await expect(dialog.getByRole('status').filter({ hasText: /in use/ })).toHaveText('1 of the routes in use could not be reached.');
      const ehr = dialog.getByRole('row', { name: /EHR/ });
      await expect(ehr).toContainText('Reached');
      await expect(ehr).toContainText(`http://127.0.0.1:${up.port}`);
      const pharmacy = dialog.getByRole('row', { name: /Pharmacy system/ });
      await expect(pharmacy).toContainText('Refused');
      await expect(pharmacy).toContainText(`mllp://127.0.0.1:${down}`);
      await expect(pharmacy).toContainText(`connection refused: nothing is listening on 127.0.0.1:${down}`);
      await shot(page, testInfo, 'check-routes-one-down');
      // A check sends nothing: the upstream that was reached received no request.
      expect(up.received).toEqual([]);

      // Checked again once the route is up: every route reached.
      const pharmacyUp = createServer((_req, res) => res.end());
      await new Promise<void>((resolve) => pharmacyUp.listen(down, '127.0.0.1', resolve));
      try {
        await dialog.getByRole('button', { name: 'Check again' }).click();
        await expect(dialog.getByRole('status').filter({ hasText: /in use/ })).toHaveText('Every route in use was reached.');
        await expect(pharmacy).toContainText('Reached');
      } finally {
        await new Promise<void>((resolve) => pharmacyUp.close(() => resolve()));
      }
      await dialog.getByRole('button', { name: 'Close', exact: true }).click();
      await expect(dialog).toBeHidden();
    } finally {
      await up.close();
    }
  });

  test('"Send test message" sends the confirmed sample through the channel, links to its transaction, and today counts it', async ({ console: page, junction }, testInfo) => {
    const up = await upstream();
    try {
      await createByApi(junction, { name: 'FHIR', urlPattern: '^/fhir(/.*)?$', authType: 'public', routes: [{ name: 'FHIR server', host: '127.0.0.1', port: up.port, primary: true }] });
      await page.goto(`${junction.apiUrl}/#/channels`);
      const row = page.getByRole('row', { name: /FHIR/ });
      await row.getByRole('button', { name: 'Send test message through FHIR' }).click();
      const dialog = page.getByRole('dialog', { name: 'Send a test message through “FHIR”' });
      // Prefilled for the channel: a path its pattern takes, and a FHIR Patient; the person edits before sending.
      await expect(dialog.getByLabel(/^Path/)).toHaveValue('/fhir/Patient');
      await expect(dialog.getByLabel('Content type')).toHaveValue('application/fhir+json');
      const body = dialog.getByLabel('Body');
      await expect(body).toHaveValue(/"resourceType": "Patient"/);
      const written = '{"resourceType":"Patient","name":[{"family":"Dlamini"}]}';
      await body.fill(written);
      await dialog.getByRole('button', { name: 'Send test message' }).click();
      await expect(dialog.getByRole('status')).toContainText('Sent: the transaction is Successful (the primary route answered 200).');
      // Only what the form held was sent.
      expect(up.received).toEqual([{ url: '/fhir/Patient', body: written }]);
      await shot(page, testInfo, 'test-message-sent');

      await dialog.getByRole('link', { name: 'Open the transaction' }).click();
      await expect(page).toHaveURL(/#\/transactions\/[0-9a-f]{24}$/);
      const id = /transactions\/([0-9a-f]{24})$/.exec(page.url())?.[1] ?? '';
      const tx = await junction.api('GET', `/transactions/${id}`);
      expect(tx.json).toMatchObject({ properties: { test: 'true' }, status: 'Successful', request: { path: '/fhir/Patient' } });
      // The transaction's page shows the mark among its properties.
      await page.getByRole('tab', { name: 'Properties (1)' }).click();
      await expect(page.getByRole('tabpanel', { name: 'Properties (1)' })).toContainText('test');

      await page.goto(`${junction.apiUrl}/#/channels`);
      await expect(page.getByRole('row', { name: /FHIR/ }).getByTestId('channel-today')).toContainText('1 received');
      await expect(page.getByRole('row', { name: /FHIR/ })).toContainText('just now');
      await expectNoHorizontalScroll(page);
      await shot(page, testInfo, 'list-today');
    } finally {
      await up.close();
    }
  });

  test('the editor takes a path prefix and shows it back, and gives an MLLP channel MLLP routes', async ({ console: page, junction }, testInfo) => {
    await page.goto(`${junction.apiUrl}/#/channels/new`);
    await page.getByLabel(/^Name/).fill('Radiology');
    await page.getByLabel('Path prefix').fill('/radiology');
    await expect(page.getByLabel(/^URL pattern/)).toHaveValue('^/radiology(/.*)?$');
    await page.getByRole('tab', { name: /^Routes/ }).click();
    const route = page.getByRole('group', { name: /^Route 1\b/ });
    await expect(route.getByLabel('Route type')).toHaveValue('http');
    await route.getByLabel(/^Route name/).fill('PACS');
    await route.getByLabel(/^Host/).fill('127.0.0.1');
    await route.getByLabel(/^Port/).fill('8042');
    await page.getByRole('button', { name: 'Save channel' }).click();
    await expect(page.getByRole('status')).toContainText('Channel “Radiology” was created.');
    expect((await channelNamed(junction, 'Radiology')).urlPattern).toBe('^/radiology(/.*)?$');
    await page.getByRole('row', { name: /Radiology/ }).getByRole('link', { name: 'Radiology' }).click();
    await expect(page.getByLabel('Path prefix')).toHaveValue('/radiology');
    await expect(page.getByLabel(/^URL pattern/)).toHaveAccessibleDescription(/the path prefix makes/);

    // An MLLP channel: its first route, not filled in yet, becomes an MLLP route, and so does one added.
    await page.goto(`${junction.apiUrl}/#/channels/new`);
    await page.getByLabel(/^Name/).fill('Lab analyser');
    await page.getByRole('radio', { name: 'TCP', exact: true }).check();
    await page.getByLabel(/^Listen on port/).fill(String(await freePort()));
    await page.getByRole('radio', { name: 'MLLP' }).check();
    await page.getByRole('tab', { name: /^Routes/ }).click();
    await expect(route.getByLabel('Route type')).toHaveValue('mllp');
    await page.getByRole('button', { name: 'Add route' }).click();
    await expect(page.getByRole('group', { name: /^Route 2\b/ }).getByLabel('Route type')).toHaveValue('mllp');
    await page.getByRole('button', { name: 'Remove route 2' }).click();
    await route.getByLabel(/^Route name/).fill('LIS');
    await route.getByLabel(/^Host/).fill('127.0.0.1');
    await route.getByLabel(/^Port/).fill('2576');
    await shot(page, testInfo, 'editor-mllp-route-default');
    await page.getByRole('button', { name: 'Save channel' }).click();
    await expect(page.getByRole('status')).toContainText('Channel “Lab analyser” was created.');
    expect((await channelNamed(junction, 'Lab analyser')).routes).toMatchObject([{ name: 'LIS', type: 'mllp' }]);
    await expect(page.getByRole('row', { name: /Lab analyser/ }).getByTestId('channel-address')).toHaveText(/^mllp:\/\/.+:\d+$/);

    // Alerts speak of failing, and store OpenHIM's 5xx.
    await page.getByRole('row', { name: /Lab analyser/ }).getByRole('link', { name: 'Lab analyser' }).click();
    await page.getByRole('tab', { name: /^Alerts/ }).click();
    await page.getByRole('button', { name: 'Add alert' }).click();
    await page.getByRole('group', { name: 'Alert 1' }).getByLabel(/^Alert when/).selectOption({ label: 'A transaction fails (an error answer, or no answer)' });
    await expect(page.getByRole('group', { name: 'Alert 1' }).getByLabel(/^Response status/)).toHaveCount(0);
    await page.getByRole('button', { name: 'Save channel' }).click();
    await expect(page.getByRole('status')).toContainText('Channel “Lab analyser” was saved.');
    const saved = (await junction.api('GET', '/channels')).json as { name: string; alerts: { condition: string; status?: string }[] }[];
    expect(saved.find((c) => c.name === 'Lab analyser')?.alerts).toMatchObject([{ condition: 'status', status: '5xx' }]);
  });
});
