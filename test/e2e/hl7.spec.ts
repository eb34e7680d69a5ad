/**
 * HL7 v2 over MLLP as the console shows it: a tcp channel (made through the API) with two mllp routes to
 * node-hl7-server upstreams, an ORU^R01 sent by node-hl7-client, and the transaction read in the list and in its
 * detail, where the channel's transport, the message's segments, the ACK's outcome and each route's host and port
 * take the place of the placeholder POST /.
 */
import { expect, expectNoHorizontalScroll, shot, test } from './fixtures.js';
import type { E2EJunction } from './fixtures.js';
import { freePort } from '../helpers/process.js';
import { hl7Upstream, oru } from '../messages/hl7-peers.js';
import type { Hl7Upstream } from '../messages/hl7-peers.js';
import { hl7Send, msaOf } from '../transports/fixtures.js';

interface ApiChannel {
  _id: string;
  listener?: { state: string; port: number };
}

/** The id of the channel's one transaction once it has completed (the secondary route finishes after the ACK). */
async function completedTransactionOf(junction: E2EJunction, channelId: string): Promise<string> {
  let id = '';
  await expect
    .poll(
      async () => {
        const filters = encodeURIComponent(JSON.stringify({ channelID: channelId }));
        const res = await junction.api('GET', `/transactions?filters=${filters}`);
        expect(res.status, res.text).toBe(200);
        const list = res.json as { _id: string; status: string }[];
        id = list[0]?._id ?? '';
        return list[0]?.status;
      },
      { message: 'the transaction of the ORU^R01 completes', intervals: [50, 100, 200] },
    )
    .toBe('Successful');
  return id;
}

test.describe('HL7 v2 transactions', () => {
  test('an ORU^R01 over MLLP shows its transport, segments, ACK and mllp routes instead of POST /', async ({ console: page, junction }, testInfo) => {
    const upstreams: Hl7Upstream[] = [];
    try {
      const lis = await hl7Upstream();
      upstreams.push(lis);
      const archive = await hl7Upstream();
      upstreams.push(archive);
      const tcpPort = await freePort();
      const res = await junction.api('POST', '/channels', {
        name: 'Lab analyser',
        type: 'tcp',
        tcpHost: '127.0.0.1',
        tcpPort,
        tcpFraming: 'mllp',
        authType: 'public',
        routes: [
          { name: 'LIS', type: 'mllp', host: '127.0.0.1', port: lis.port, primary: true },
          { name: 'Archive', type: 'mllp', host: '127.0.0.1', port: archive.port, primary: false },
        ],
      });
      expect(res.status, res.text).toBe(201);
      const channel = res.json as ApiChannel;
      expect(channel.listener).toMatchObject({ state: 'listening', port: tcpPort });

      const message = oru('ORU-7001', 0);
      const [ack = ''] = await hl7Send(tcpPort, [message]);
      expect(msaOf(ack)).toEqual({ code: 'AA', controlId: 'ORU-7001' });
      const txId = await completedTransactionOf(junction, channel._id);

      // The list: the channel's transport where an HTTP transaction has its method and path.
      await page.goto(`${junction.apiUrl}/#/transactions`);
      const table = page.getByRole('table', { name: 'Transactions' });
      const row = table.getByRole('row').nth(1);
      await expect(row).toContainText('Lab analyser');
      const link = row.getByRole('link', { name: `MLLP over TCP, port ${tcpPort}` });
      await expect(link).toHaveAttribute('href', `#/transactions/${txId}`);
      await expect(row.getByRole('cell').nth(3)).toHaveText('MLLP');
      await expect(row).not.toContainText('POST');
      await expect(row.getByRole('checkbox', { name: new RegExp(`^Select MLLP over TCP, port ${tcpPort} at `) })).toBeVisible();
      await expectNoHorizontalScroll(page);
      await shot(page, testInfo, 'transactions-list-mllp');

      // The detail's header: transport and message type, not a method and path.
      await link.click();
      await expect(page).toHaveURL(new RegExp(`#/transactions/${txId}$`));
      // MSH-9 as the analyser wrote it (oru() sends ORU^R01^ORU_R01, the message structure included).
      await expect(page.getByText('MLLP over TCP · ORU^R01^ORU_R01', { exact: true })).toBeVisible();
      await expect(page.getByText(/^POST \//)).toHaveCount(0);
      await expect(page.getByText(`Received by MLLP over TCP on 127.0.0.1:${tcpPort} from 127.0.0.1 at `)).toBeVisible();

      // The request: the message as segments, one per line, each segment id set apart.
      const request = page.getByRole('region', { name: 'Request body' });
      await expect(request).toContainText('HL7 v2');
      const segments = message.split('\r').filter((s) => s !== '');
      expect((await request.locator('pre').innerText()).split('\n')).toEqual(segments);
      await expect(request.locator('[data-segment]')).toHaveCount(4);
      for (const [i, id] of ['MSH', 'PID', 'OBR', 'OBX'].entries()) {
        await expect(request.locator('[data-segment]').nth(i).locator('span').first()).toHaveText(id);
      }
      await expect(request).toContainText('control ID ORU-7001');
      await expectNoHorizontalScroll(page);
      await shot(page, testInfo, 'transaction-detail-mllp-request');

      // The response: the upstream's ACK, its MSA-1 in words.
      await page.getByRole('tab', { name: 'Response' }).click();
      const response = page.getByRole('region', { name: 'Response body' });
      await expect(response).toContainText('MSA-1 AA: accepted');
      await expect(response.locator('[data-segment="MSA"]')).toContainText('MSA|AA|ORU-7001');
      await shot(page, testInfo, 'transaction-detail-mllp-response');

      // The secondary route: its type and where it went, not POST /.
      await page.getByRole('tab', { name: 'Routes (1)' }).click();
      const control = page.getByRole('button', { name: /^Route Archive/ });
      await expect(control).toContainText(`MLLP to 127.0.0.1:${archive.port}`);
      await expect(control).not.toContainText('POST');
      await expect(page.getByText(new RegExp(`^Request: MLLP to 127\\.0\\.0\\.1:${archive.port} at `))).toBeVisible();
      await expect(page.getByRole('region', { name: 'Route Archive response body' })).toContainText('MSA-1 AA: accepted');
      await expectNoHorizontalScroll(page);
      await shot(page, testInfo, 'transaction-detail-mllp-routes');
      expect(archive.received).toHaveLength(1);
    } finally {
      for (const upstream of upstreams) await upstream.close();
    }
  });
});
