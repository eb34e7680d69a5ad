/**
 * Finding a patient's messages (issue 37) as support staff do: HL7 v2 sent by a real MLLP client (Debian's mllp_send,
 * python3-hl7) through a tcp channel and a FHIR Bundle over HTTP, then found in the console's one search box by
 * patient ID, order number, control ID and a word; the matching key shown in the row, highlighted in the message,
 * the words of a text search marked in the message opened from it, and the message's patient ID linking to every
 * message with it; the results at 390 px.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, expectNoHorizontalScroll, shot, test } from './fixtures.js';
import type { E2EJunction } from './fixtures.js';
import { freePort } from '../helpers/process.js';
import { httpUpstream } from '../helpers/upstream.js';
import { hl7Upstream } from '../messages/hl7-peers.js';

const ADT = ['MSH|^~\\&|ADT|SMH|LIS|LAB|20260115083000||ADT^A01^ADT_A01|E2E-ADT-1|P|2.5.1', 'PID|1||MRN-4711^^^SMH^MR~555-12^^^SSA^SS||Rivera^Ana', 'PV1|1|I|W2'].join('\r');
const ORM = ['MSH|^~\\&|CPOE|SMH|LIS|LAB|20260115090000||ORM^O01^ORM_O01|E2E-ORM-2|P|2.5.1', 'PID|1||MRN-4711^^^SMH^MR||Rivera^Ana', 'ORC|NW|ACC-88001^CPOE', 'OBR|1|ACC-88001^CPOE||CBC^Complete blood count'].join('\r');
const BUNDLE = JSON.stringify({
  resourceType: 'Bundle',
  type: 'transaction',
  entry: [{ resource: { resourceType: 'Patient', identifier: [{ system: 'urn:mrn', value: 'MRN-4711' }], name: [{ family: 'Rivera', given: ['Ana'] }] } }, { resource: { resourceType: 'Observation', valueString: 'wheezing noted' } }],
});

/** Sends the messages with mllp_send, which reads a file of messages each ended by 0x1C. */
async function mllpSend(port: number, messages: string[]): Promise<string> {
  const file = join(await mkdtemp(join(tmpdir(), 'junction-e2e-search-')), 'messages.hl7');
  await writeFile(file, messages.map((m) => `${m}\r\x1c`).join(''), 'latin1');
  return new Promise((resolve, reject) => {
    execFile('mllp_send', ['-p', String(port), '-f', file, '127.0.0.1'], { encoding: 'latin1', timeout: 20_000 }, (err, stdout, stderr) => (err === null ? resolve(stdout) : reject(new Error(`${err.message} ${stderr}`))));
  });
}

/** Waits until a search by the API finds `n` transactions: the indexer runs after each transaction completes. */
async function indexed(junction: E2EJunction, query: string, n: number): Promise<void> {
  await expect
    .poll(async () => ((await junction.api('GET', `/transactions?${query}`)).json as unknown[]).length, { message: `${query} is indexed`, intervals: [100, 250, 500] })
    .toBe(n);
}

test('support staff find a patient by ID, order number, control ID and a word, and follow a patient ID to every message', async ({ console: page, junction }, testInfo) => {
  const lis = await hl7Upstream();
  const fhir = await httpUpstream((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(201, { 'content-type': 'application/fhir+json' });
      res.end('{"resourceType":"OperationOutcome"}');
    });
  });
  try {
    const tcpPort = await freePort();
    const hl7 = await junction.api('POST', '/channels', { name: 'Ward HL7', type: 'tcp', tcpHost: '127.0.0.1', tcpPort, tcpFraming: 'mllp', authType: 'public', routes: [{ name: 'LIS', type: 'mllp', host: '127.0.0.1', port: lis.port, primary: true }] });
    expect(hl7.status, hl7.text).toBe(201);
    const fhirChannel = await junction.api('POST', '/channels', { name: 'FHIR', urlPattern: '^/fhir$', authType: 'public', routes: [{ name: 'FHIR server', host: '127.0.0.1', port: fhir.port, primary: true }] });
    expect(fhirChannel.status, fhirChannel.text).toBe(201);
    await expect.poll(async () => ((await junction.api('GET', '/channels')).json as { listener?: { state: string } }[]).some((c) => c.listener?.state === 'listening')).toBe(true);

    expect(await mllpSend(tcpPort, [ADT, ORM])).toContain('MSA|AA|E2E-ORM-2');
    const posted = await fetch(`${junction.httpUrl}/fhir`, { method: 'POST', headers: { 'content-type': 'application/fhir+json' }, body: BUNDLE });
    expect(posted.status).toBe(201);
    await indexed(junction, 'patientId=MRN-4711', 3);

    // By patient ID: the two HL7 messages and the Bundle, each row naming the key that matched.
    await page.goto(`${junction.apiUrl}/#/transactions`);
    const search = page.getByRole('search', { name: 'Search transactions' });
    const box = search.getByRole('textbox', { name: 'Search messages' });
    await expect(box).toHaveAttribute('placeholder', 'Patient ID, order number, control ID or any text');
    await box.fill('mrn-4711');
    await search.getByRole('button', { name: 'Search', exact: true }).click();
    const table = page.getByRole('table', { name: 'Transactions' });
    await expect(table.locator('[data-match]')).toHaveCount(3);
    await expect(table.locator('[data-match]').first()).toHaveText('Patient ID MRN-4711 (urn:mrn) · Patient.identifier');
    await expect(table.locator('[data-match]').nth(1)).toHaveText('Patient ID MRN-4711 (SMH) · PID-3');
    await expect(search).toContainText('Messages with patient ID, order number or control ID mrn-4711.');

    // By order number and by control ID.
    await box.fill('ACC-88001');
    await search.getByRole('button', { name: 'Search', exact: true }).click();
    await expect(table.locator('[data-match]')).toHaveCount(1);
    await expect(table.locator('[data-match]')).toContainText('Order number ACC-88001 (CPOE)');
    await box.fill('E2E-ADT-1');
    await search.getByRole('button', { name: 'Search', exact: true }).click();
    await expect(table.locator('[data-match]')).toHaveText(['Control ID E2E-ADT-1 · MSH-10']);

    // A word is no key: the list says so and offers the message text, which finds the Bundle.
    await box.fill('wheezing');
    await search.getByRole('button', { name: 'Search', exact: true }).click();
    await expect(search).toContainText('No message has patient ID, order number or control ID wheezing.');
    await search.getByRole('button', { name: 'Search the message text for “wheezing”' }).click();
    await expect(page).toHaveURL(/text=wheezing/);
    await expect(table.getByRole('row')).toHaveCount(2);
    await expect(page.getByText(/^1–1 of 1 transaction$/)).toBeVisible();
    // Opened from its row, the Bundle shows the word marked in its JSON.
    await table.getByRole('row').nth(1).getByRole('link').first().click();
    await expect(page.getByRole('region', { name: 'Request body' }).locator('mark[data-search-word]')).toHaveText(['wheezing']);
    // Words of several are text at once; in an HL7 message each is marked in the field that holds it (OBR-4).
    await page.goBack();
    await box.fill('blood  COUNT');
    await search.getByRole('button', { name: 'Search', exact: true }).click();
    await expect(page.getByText(/^1–1 of 1 transaction$/)).toBeVisible();
    await table.getByRole('row').nth(1).getByRole('link').first().click();
    await expect(page.getByRole('region', { name: 'Request body' }).locator('mark[data-search-word]')).toHaveText(['blood', 'count']);
    await page.goBack();

    // The ADT found by its control ID, opened from its row: the key highlighted where it was read (MSH-10).
    await box.fill('555-12');
    await search.getByRole('button', { name: 'Search', exact: true }).click();
    await expect(table.locator('[data-match]')).toHaveText(['Patient ID 555-12 (SSA) · PID-3']);
    await table.getByRole('row').nth(1).getByRole('link').first().click();
    const request = page.getByRole('region', { name: 'Request body' });
    // Only the PID-3 repetition that matched is marked, not its neighbour.
    await expect(request.locator('mark[data-search-match]')).toHaveCount(1);
    await expect(request.locator('mark[data-search-match]')).toHaveText('555-12^^^SSA^SS');
    await shot(page, testInfo, 'search-highlight');

    // Its patient ID links to every message with it: the list filtered by that key and authority.
    await request.getByRole('link', { name: 'Patient ID MRN-4711 (SMH)' }).click();
    await expect(page).toHaveURL(/patientId=MRN-4711&authority=SMH/);
    await expect(page.getByRole('search', { name: 'Search transactions' })).toContainText('Messages with patient ID MRN-4711 (SMH).');
    await expect(table.locator('[data-match]')).toHaveCount(2);

    // On a phone: the search and its results fit the screen.
    await page.setViewportSize({ width: 390, height: 800 });
    await expect(table.locator('[data-match]')).toHaveCount(2);
    await expectNoHorizontalScroll(page);
    await shot(page, testInfo, 'search-results-390');
  } finally {
    await lis.close();
    await fhir.close();
  }
});
