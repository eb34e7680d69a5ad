import { readFile } from 'node:fs/promises';
import type { Page } from '@playwright/test';
import { expect, expectNoHorizontalScroll, shot, test } from './fixtures.js';
import type { E2EJunction } from './fixtures.js';
import { HL7_BODY, JSON_BODY, LAB_CHANNEL, PHARMACY_CHANNEL, setupLab } from './transactions-setup.js';

interface Task {
  _id: string;
  status: string;
  totalTransactions: number;
}

async function tasks(junction: E2EJunction): Promise<Task[]> {
  const res = await junction.api('GET', '/tasks');
  expect(res.status, res.text).toBe(200);
  return res.json as Task[];
}

/** The path links of the rows on screen, top to bottom. */
function rowLinks(page: Page) {
  return page.getByRole('table', { name: 'Transactions' }).getByRole('link');
}

/** Picks an option of a Mantine Select or MultiSelect by its label. */
async function choose(page: Page, label: string, option: string): Promise<void> {
  await page.getByRole('combobox', { name: label, exact: true }).click();
  await page.getByRole('option', { name: option, exact: true }).click();
  await page.keyboard.press('Escape');
}

/** The text of a body as laid out on screen (line breaks kept). */
function bodyText(page: Page, region: string): Promise<string> {
  return page.getByRole('region', { name: region }).locator('pre').innerText();
}

test.describe('transactions', () => {
  test('the list pages on the server and keeps its filters and page in the URL across a reload', async ({ console: page, junction }, testInfo) => {
    const lab = await setupLab(junction);
    try {
      for (let i = 0; i < 21; i++) await lab.send(`/lab/json/${i}`);
      await lab.send('/lab/fail');
      await lab.send('/pharmacy/order', { method: 'POST', body: '{"drug":"amoxicillin"}', contentType: 'application/json' });

      await page.goto(`${junction.apiUrl}/#/transactions`);
      await expect(page.getByText('1–20 of 23 transactions')).toBeVisible();
      await expect(rowLinks(page)).toHaveCount(20);
      // Newest first, with status, method, channel, client and response status on each row.
      await expect(rowLinks(page).first()).toHaveText('/pharmacy/order');
      const firstRow = page.getByRole('table', { name: 'Transactions' }).getByRole('row').nth(1);
      await expect(firstRow).toContainText('Successful');
      await expect(firstRow).toContainText('POST');
      await expect(firstRow).toContainText(PHARMACY_CHANNEL);
      await expect(firstRow).toContainText('Lab system');
      await expect(firstRow).toContainText('200');
      await expectNoHorizontalScroll(page);
      await shot(page, testInfo, 'transactions-list');

      // Paging: the second page holds the three oldest, and the page number is in the URL.
      await page.getByRole('button', { name: 'Next page' }).click();
      await expect(page).toHaveURL(/[?&]page=2/);
      await expect(page.getByText('21–23 of 23 transactions')).toBeVisible();
      await expect(rowLinks(page)).toHaveText(['/lab/json/2', '/lab/json/1', '/lab/json/0']);
      await page.reload();
      await expect(rowLinks(page)).toHaveText(['/lab/json/2', '/lab/json/1', '/lab/json/0']);

      // Status: a filter goes back to the first page.
      await choose(page, 'Status', 'Failed');
      await expect(page).toHaveURL(/[?&]status=Failed/);
      await expect(page).not.toHaveURL(/page=2/);
      await expect(rowLinks(page)).toHaveText(['/lab/fail']);
      // Backspace in the box removes the last chosen status.
      await page.getByRole('combobox', { name: 'Status', exact: true }).press('Backspace');
      await expect(page.getByText('1–20 of 23 transactions')).toBeVisible();
      await expect(page).not.toHaveURL(/status=/);

      // Channel, by name.
      await choose(page, 'Channel', PHARMACY_CHANNEL);
      await expect(page).toHaveURL(new RegExp(`[?&]channel=${lab.pharmacyChannelId}`));
      await expect(rowLinks(page)).toHaveText(['/pharmacy/order']);
      await page.getByRole('button', { name: 'Clear filters' }).click();
      await expect(page.getByText('1–20 of 23 transactions')).toBeVisible();

      // Path, a regular expression; with a status too. A broken pattern is explained, not sent.
      await page.getByRole('textbox', { name: 'Path' }).fill('^/lab/json/1(');
      await expect(page.getByText('This is not a valid regular expression')).toBeVisible();
      await page.getByRole('textbox', { name: 'Path' }).fill('^/lab/json/1');
      await expect(page).toHaveURL(/[?&]path=%5E%2Flab%2Fjson%2F1/);
      await expect(page.getByText('1–11 of 11 transactions')).toBeVisible();
      await choose(page, 'Status', 'Successful');
      await expect(page).toHaveURL(/[?&]status=Successful/);
      await expect(rowLinks(page)).toHaveCount(11);
      await expect(rowLinks(page).first()).toHaveText('/lab/json/19');

      // The URL alone brings the filtered view back.
      await page.reload();
      await expect(page.getByRole('textbox', { name: 'Path' })).toHaveValue('^/lab/json/1');
      await expect(page.getByRole('form', { name: 'Filters' })).toContainText('Successful');
      await expect(page.getByText('1–11 of 11 transactions')).toBeVisible();
      await expect(rowLinks(page).first()).toHaveText('/lab/json/19');

      // Properties, as name=value.
      await page.getByRole('button', { name: 'Clear filters' }).click();
      const mediated = await lab.send('/lab/mediated/result');
      await page.getByRole('button', { name: 'Refresh' }).click();
      await page.getByRole('combobox', { name: 'Properties' }).fill('patient=123');
      await page.getByRole('combobox', { name: 'Properties' }).press('Enter');
      await expect(page).toHaveURL(/[?&]prop=patient%3D123/);
      await expect(rowLinks(page)).toHaveText(['/lab/mediated/result']);
      await expect(rowLinks(page)).toHaveAttribute('href', `#/transactions/${mediated}`);

      // A filter that matches nothing says so.
      await page.getByRole('textbox', { name: 'Path' }).fill('^/nothing-here');
      await expect(page.getByText('No transactions match these filters.')).toBeVisible();
      await page.getByRole('button', { name: 'Clear filters' }).click();
      await expect(page.getByText('1–20 of 24 transactions')).toBeVisible();
      await expect(page).toHaveURL(/#\/transactions$/);
    } finally {
      await lab.close();
    }
  });

  test('the detail shows request, response and routes with JSON, XML and HL7 bodies laid out', async ({ console: page, junction }, testInfo) => {
    const lab = await setupLab(junction);
    try {
      const jsonId = await lab.send('/lab/json/result', { method: 'POST', body: JSON_BODY, contentType: 'application/json' });
      const xmlId = await lab.send('/lab/xml/order');
      const hl7Id = await lab.send('/lab/hl7/message', { method: 'POST', body: HL7_BODY, contentType: 'x-application/hl7-v2+er7' });
      const prettyJson = JSON.stringify(JSON.parse(JSON_BODY), null, 2);

      // Opened from the list with the keyboard.
      await page.goto(`${junction.apiUrl}/#/transactions`);
      await rowLinks(page).filter({ hasText: '/lab/json/result' }).focus();
      await page.keyboard.press('Enter');
      await expect(page).toHaveURL(new RegExp(`#/transactions/${jsonId}$`));
      await expect(page.getByRole('heading', { name: 'Transaction', exact: true })).toBeVisible();
      await expect(page.getByText('POST /lab/json/result').first()).toBeVisible();
      await expect(page.getByText(LAB_CHANNEL)).toBeVisible();
      await expect(page.getByRole('table', { name: 'Request headers' })).toContainText('content-type');
      expect(await bodyText(page, 'Request body')).toBe(prettyJson);
      await expectNoHorizontalScroll(page);
      await shot(page, testInfo, 'transaction-detail');

      // "As sent" shows the body exactly as it came.
      await page.getByText('As sent').first().click();
      expect(await bodyText(page, 'Request body')).toBe(JSON_BODY);

      await page.getByRole('tab', { name: 'Response' }).click();
      await expect(page.getByText('Status 200')).toBeVisible();
      await expect(page.getByRole('table', { name: 'Response headers' })).toContainText('application/json');
      expect(await bodyText(page, 'Response body')).toBe(prettyJson);

      // The secondary route, with its own request and response.
      await page.getByRole('tab', { name: 'Routes (1)' }).click();
      await expect(page.getByText('Route Archive').first()).toBeVisible();
      expect(await bodyText(page, 'Route Archive response body')).toBe(prettyJson);
      await expect(page.getByRole('region', { name: 'Route Archive request body' })).toContainText("same body as the transaction's request");
      await page.getByRole('tab', { name: 'Orchestrations (0)' }).click();
      await expect(page.getByText('No orchestrations')).toBeVisible();

      // What a mediator reported: its orchestration (with headers and an XML body) and properties.
      const mediatedId = await lab.send('/lab/mediated/result');
      await page.goto(`${junction.apiUrl}/#/transactions/${mediatedId}`);
      await page.getByRole('tab', { name: 'Orchestrations (1)' }).click();
      await expect(page.getByText('Orchestration Fetch patient').first()).toBeVisible();
      await expect(page.getByRole('table', { name: 'Orchestration Fetch patient request headers' })).toContainText('application/xml');
      expect(await bodyText(page, 'Orchestration Fetch patient response body')).toContain('\n  <patient id="123">Thandi</patient>\n');
      await page.getByRole('tab', { name: 'Properties (2)' }).click();
      await expect(page.getByRole('table', { name: 'Properties' }).getByRole('row', { name: 'patient 123' })).toBeVisible();
      await expect(page.getByRole('table', { name: 'Properties' }).getByRole('row', { name: 'lab central' })).toBeVisible();

      // XML, indented.
      await page.goto(`${junction.apiUrl}/#/transactions/${xmlId}`);
      await page.getByRole('tab', { name: 'Response' }).click();
      await expect(page.getByRole('region', { name: 'Response body' })).toContainText('XML');
      expect(await bodyText(page, 'Response body')).toBe(
        ['<?xml version="1.0" encoding="UTF-8"?>', '<order kind="lab">', '  <patient id="123">Thandi</patient>', '  <test code="HBA1C"/>', '</order>'].join('\n'),
      );
      await page.getByRole('tab', { name: 'Request' }).click();
      await expect(page.getByRole('region', { name: 'Request body' })).toContainText('No body stored.');

      // HL7 v2: one segment per line, in the request and in the response.
      const segments = HL7_BODY.split('\r').filter((s) => s !== '');
      await page.goto(`${junction.apiUrl}/#/transactions/${hl7Id}`);
      await expect(page.getByRole('region', { name: 'Request body' })).toContainText('HL7 v2');
      expect((await bodyText(page, 'Request body')).split('\n')).toEqual(segments);
      await page.getByRole('tab', { name: 'Response' }).click();
      expect((await bodyText(page, 'Response body')).split('\n')).toEqual(segments);
      await expectNoHorizontalScroll(page);
      await shot(page, testInfo, 'transaction-detail-hl7');

      // An unknown id is explained.
      await page.goto(`${junction.apiUrl}/#/transactions/0123456789abcdef01234567`);
      await expect(page.getByRole('alert')).toContainText('Could not load the transaction');
    } finally {
      await lab.close();
    }
  });

  test('re-run from the detail creates a task, and a second re-run warns that it was re-run before', async ({ console: page, junction }) => {
    const lab = await setupLab(junction);
    const confirm = () => page.getByRole('dialog', { name: 'Re-run this transaction?' }).getByRole('button', { name: 'Re-run now' }).click();
    try {
      const id = await lab.send('/lab/json/rerun-me');
      await page.goto(`${junction.apiUrl}/#/transactions/${id}`);
      await expect(page.getByText('Not re-run')).toBeVisible();
      await page.getByRole('button', { name: 'Re-run', exact: true }).click();
      await confirm();
      await expect(page.getByRole('status').filter({ hasText: 'Re-run finished' })).toContainText('Successful');
      const first = await tasks(junction);
      expect(first).toHaveLength(1);
      expect(first[0]?.totalTransactions).toBe(1);
      const taskId = first[0]?._id ?? '';
      await expect.poll(async () => ((await junction.api('GET', `/tasks/${taskId}`)).json as Task).status).toBe('Completed');

      await page.reload();
      await expect(page.getByText('Re-run as')).toBeVisible();
      await page.getByRole('button', { name: 'Re-run', exact: true }).click();
      await confirm();
      await expect(page.getByRole('alert').filter({ hasText: 'already re-run' })).toContainText(id);
      expect(await tasks(junction)).toHaveLength(2);

      await page.getByRole('link', { name: 'Open its task' }).click();
      await expect(page).toHaveURL(/#\/tasks\/[0-9a-f]{24}$/);
    } finally {
      await lab.close();
    }
  });

  test('bulk re-run of everything matching the filter, and of the selected rows', async ({ console: page, junction }) => {
    const lab = await setupLab(junction);
    try {
      await lab.send('/lab/fail/1');
      await lab.send('/lab/fail/2');
      await lab.send('/lab/json/ok');

      await page.goto(`${junction.apiUrl}/#/transactions?status=Failed`);
      await expect(rowLinks(page)).toHaveText(['/lab/fail/2', '/lab/fail/1']);
      await page.getByRole('button', { name: 'Re-run all matching' }).click();
      const dialog = page.getByRole('dialog', { name: 'Re-run all matching transactions' });
      await expect(dialog).toContainText('all 2 transactions that match the current filters');
      await dialog.getByRole('button', { name: 'Start re-run' }).click();
      await expect(page.getByRole('status').filter({ hasText: 'Re-run task created' })).toContainText('2 transactions are queued');
      await expect.poll(async () => (await tasks(junction)).map((t) => t.totalTransactions)).toEqual([2]);

      // One row chosen with its checkbox.
      // The list now holds the re-runs too; the original is the older one.
      await page.getByRole('checkbox', { name: /^Select GET \/lab\/fail\/1 at / }).last().check();
      await expect(page.getByText('1 selected')).toBeVisible();
      await page.getByRole('button', { name: 'Re-run selected' }).click();
      // It asks first, saying what a re-run does.
      const confirm = page.getByRole('dialog', { name: 'Re-run the selected transactions?' });
      await expect(confirm).toContainText('The selected transaction is sent again');
      await confirm.getByRole('button', { name: 'Re-run now' }).click();
      await expect(page.getByRole('status').filter({ hasText: 'Re-run task created' })).toContainText('One transaction is queued');
      await expect.poll(async () => (await tasks(junction)).map((t) => t.totalTransactions).sort()).toEqual([1, 2]);
      await expect(page.getByText('0 selected')).toBeVisible();

      // A refusal is shown in words: a transaction of a disabled channel cannot be re-run.
      const disabled = await junction.api('PUT', `/channels/${lab.labChannelId}`, { status: 'disabled' });
      expect(disabled.status, disabled.text).toBe(200);
      await page.getByRole('checkbox', { name: /^Select GET \/lab\/fail\/2 at / }).last().check();
      await page.getByRole('button', { name: 'Re-run selected' }).click();
      await page.getByRole('dialog', { name: 'Re-run the selected transactions?' }).getByRole('button', { name: 'Re-run now' }).click();
      await expect(page.getByRole('alert').filter({ hasText: 'Could not re-run the selected transactions' })).toContainText('disabled');
    } finally {
      await lab.close();
    }
  });

  test('export of the filtered list to CSV and NDJSON, with progress', async ({ console: page, junction }, testInfo) => {
    const lab = await setupLab(junction);
    try {
      const labIds = [await lab.send('/lab/json/a'), await lab.send('/lab/json/b'), await lab.send('/lab/fail')];
      await lab.send('/pharmacy/one');
      await lab.send('/pharmacy/two');

      await page.goto(`${junction.apiUrl}/#/transactions`);
      await choose(page, 'Channel', LAB_CHANNEL);
      await expect(rowLinks(page)).toHaveCount(3);
      await page.getByRole('button', { name: 'Export' }).click();
      const dialog = page.getByRole('dialog', { name: 'Export transactions' });
      await expect(dialog).toContainText('3 transactions match the current filters');

      const csvDownload = page.waitForEvent('download');
      await dialog.getByRole('button', { name: 'Start export' }).click();
      const csv = await csvDownload;
      expect(csv.suggestedFilename()).toMatch(/^transactions-.*\.csv$/);
      await expect(dialog.getByRole('progressbar', { name: 'Export progress' })).toBeVisible();
      await expect(dialog).toContainText('3 of 3 transactions');
      await expect(dialog.getByRole('status')).toContainText('Export complete');
      await shot(page, testInfo, 'transactions-export');
      const csvLines = (await readFile(await csv.path(), 'utf8')).trimEnd().split('\r\n');
      expect(csvLines[0]).toMatch(/^_id,timestamp,status,channelID/);
      expect(csvLines.slice(1).map((line) => line.split(',')[0]).sort()).toEqual([...labIds].sort());
      for (const line of csvLines.slice(1)) expect(line.split(',')[3]).toBe(lab.labChannelId);

      await dialog.getByRole('radio', { name: 'NDJSON' }).check();
      await dialog.getByRole('switch', { name: 'Include bodies' }).check();
      const ndjsonDownload = page.waitForEvent('download');
      await dialog.getByRole('button', { name: 'Start export' }).click();
      const ndjson = await ndjsonDownload;
      expect(ndjson.suggestedFilename()).toMatch(/^transactions-.*\.ndjson$/);
      await expect(dialog).toContainText('3 of 3 transactions');
      const records = (await readFile(await ndjson.path(), 'utf8'))
        .trimEnd()
        .split('\n')
        .map((line) => JSON.parse(line) as { _id: string; channelID: string; request: { path: string }; response?: { body?: string } });
      expect(records.map((r) => r._id).sort()).toEqual([...labIds].sort());
      expect(records.every((r) => r.channelID === lab.labChannelId)).toBe(true);
      expect(records.find((r) => r.request.path === '/lab/json/a')?.response?.body).toBe(JSON_BODY);

      await dialog.getByRole('button', { name: 'Close', exact: true }).click();
      await expect(dialog).toBeHidden();
    } finally {
      await lab.close();
    }
  });
});
