/**
 * Issue 35 as a clinic meets it: a lab's MLLP feed on a channel saved private with nobody allowed is refused with an
 * AR (sent by node-hl7-client, as a lab system would), and the administrator sees it counted on the dashboard and
 * listed, with its reason, on the Refused page beside Transactions, then narrows the list by reason.
 */
import { expect, expectNoHorizontalScroll, shot, test } from './fixtures.js';
import { freePort } from '../helpers/process.js';
import { oru } from '../messages/hl7-peers.js';
import { hl7Send, msaOf } from '../transports/fixtures.js';

test('a refused MLLP message is counted on the dashboard and shown with its reason on the Refused page', async ({ console: page, junction }, testInfo) => {
  const tcpPort = await freePort();
  const res = await junction.api('POST', '/channels', {
    name: 'Lab analyser',
    type: 'tcp',
    tcpHost: '127.0.0.1',
    tcpPort,
    tcpFraming: 'mllp',
    authType: 'private',
    allow: [],
    routes: [{ name: 'LIS', type: 'mllp', host: '127.0.0.1', port: 9, primary: true }],
  });
  expect(res.status, res.text).toBe(201);

  const [ack = ''] = await hl7Send(tcpPort, [oru('ORU-9001', 0)]);
  expect(msaOf(ack)).toMatchObject({ code: 'AR', controlId: 'ORU-9001' });

  // The dashboard counts it when opened (the sign-in opened it before the message came: it is opened again).
  const nav = page.getByRole('navigation', { name: 'Main' });
  await nav.getByRole('link', { name: 'Transactions' }).click();
  await expect(page.getByRole('heading', { name: 'Transactions', level: 1 })).toBeVisible();
  await nav.getByRole('link', { name: 'Dashboard' }).click();
  const card = page.getByRole('link', { name: /Refused today/ });
  await expect(card).toContainText('1');
  await shot(page, testInfo, 'dashboard-refused');

  // Following it opens the Refused list, beside Transactions in the navigation.
  await card.click();
  await expect(page.getByRole('heading', { name: 'Refused', level: 1 })).toBeVisible();
  const table = page.getByRole('table', { name: 'Refused requests and messages' });
  const row = table.getByRole('row').nth(1);
  await expect(row).toContainText('Not allowed on the channel');
  await expect(row).toContainText('Lab analyser');
  await expect(row).toContainText(`Channel listener port ${String(tcpPort)}`);
  await expect(row).toContainText('127.0.0.1');
  await expect(row).toContainText('may not use channel Lab analyser');
  await expect(row.getByRole('cell').nth(6)).toHaveText('1');
  await expectNoHorizontalScroll(page);
  await shot(page, testInfo, 'refused-list');

  // Narrowed to another reason, the row goes; back to this one, it returns.
  await page.getByRole('combobox', { name: 'Reason' }).click();
  await page.getByRole('option', { name: 'No channel matched' }).click();
  await expect(page.getByText('No refusals match these filters.')).toBeVisible();
  await page.getByRole('combobox', { name: 'Reason' }).click();
  await page.getByRole('option', { name: 'Not allowed on the channel' }).click();
  await expect(table.getByRole('row').nth(1)).toContainText('Lab analyser');
  expect(new URL(page.url().replace('/#/', '/')).searchParams.get('reason')).toBe('not_allowed');
});
