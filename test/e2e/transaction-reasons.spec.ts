/**
 * "Why, at a glance" (issue 36), walked as a support person would: yesterday's failed transactions found with the
 * Yesterday quick range and their reasons read from the list; the list's total still right after looking at a
 * transaction while more failed; an HL7 lab's AE named as its refusal on the summary, with the ACK's fields by name;
 * and the list at 390 px wide, a phone held upright, showing status, reason and channel.
 */
import type { Page } from '@playwright/test';
import { expect, shot, signIn, test } from './fixtures.js';
import type { E2EJunction } from './fixtures.js';
import { LAB_CHANNEL, setupLab } from './transactions-setup.js';

/** Yesterday at `hour` o'clock in this machine's zone, which the browser shares. */
function yesterdayAt(hour: number): Date {
  const at = new Date();
  at.setDate(at.getDate() - 1);
  at.setHours(hour, 15, 0, 0);
  return at;
}

/** Records a finished transaction through the API, as a mediator reporting later would; returns its id. */
async function recorded(junction: E2EJunction, channelID: string, at: Date, path: string, response: { status: number; body: string; type: string }, status: string): Promise<string> {
  const res = await junction.api('POST', '/transactions', {
    channelID,
    status,
    request: { method: 'POST', path, timestamp: at.toISOString() },
    response: { status: response.status, headers: { 'content-type': response.type }, body: response.body, timestamp: new Date(at.getTime() + 120).toISOString() },
  });
  expect(res.status, res.text).toBe(201);
  return (res.json as { _id: string })._id;
}

function table(page: Page) {
  return page.getByRole('table', { name: 'Transactions' });
}

async function choose(page: Page, label: string, option: string): Promise<void> {
  await page.getByRole('combobox', { name: label, exact: true }).click();
  await page.getByRole('option', { name: option, exact: true }).click();
  await page.keyboard.press('Escape');
}

/** An HL7 ACK refusing message MSG-7 because the lab does not know the patient. */
const LAB_AE = 'MSH|^~\\&|LIS|LAB|EHR|CLINIC|20240501101501||ACK^R01^ACK|ACK-7|P|2.5\rMSA|AE|MSG-7|Unknown patient 123\rERR|||204^Unknown key identifier^HL70357|E\r';

test.describe('why a transaction did not succeed', () => {
  test("yesterday's failed transactions are found with a quick range, and the list says why", async ({ console: page, junction }, testInfo) => {
    const lab = await setupLab(junction);
    try {
      await recorded(junction, lab.labChannelId, yesterdayAt(9), '/lab/overnight', { status: 503, body: 'the analyser is in maintenance until 07:00', type: 'text/plain' }, 'Failed');
      await recorded(junction, lab.labChannelId, yesterdayAt(14), '/lab/results', { status: 500, body: '{"error":"the results database is locked"}', type: 'application/json' }, 'Failed');
      await recorded(junction, lab.labChannelId, yesterdayAt(15), '/lab/ok', { status: 200, body: '{}', type: 'application/json' }, 'Successful');
      // Today's failure: not yesterday's.
      await lab.send('/lab/fail');

      await page.goto(`${junction.apiUrl}/#/transactions`);
      await expect(page.getByText('1–4 of 4 transactions')).toBeVisible();
      // Today's failure already says why in the list: the upstream's status and the start of its body.
      await expect(table(page).getByRole('row').filter({ hasText: '/lab/fail' })).toContainText('500: {"error":"the lab system is down"}');

      const range = page.getByRole('group', { name: 'Time range' });
      await range.getByRole('button', { name: 'Yesterday' }).click();
      await expect(range.getByRole('button', { name: 'Yesterday' })).toHaveAttribute('aria-pressed', 'true');
      // From and To show the range chosen, in local time.
      const day = yesterdayAt(0);
      const pad = (n: number) => String(n).padStart(2, '0');
      const date = `${day.getFullYear()}-${pad(day.getMonth() + 1)}-${pad(day.getDate())}`;
      await expect(page.getByRole('textbox', { name: 'From', exact: true })).toHaveValue(`${date}T00:00`);
      await expect(page.getByRole('textbox', { name: 'To', exact: true })).toHaveValue(`${date}T23:59`);
      await expect(page.getByText('1–3 of 3 transactions')).toBeVisible();

      await choose(page, 'Status', 'Failed');
      await expect(page.getByText('1–2 of 2 transactions')).toBeVisible();
      const rows = table(page).getByRole('row');
      await expect(rows.filter({ hasText: '/lab/results' })).toContainText('500: {"error":"the results database is locked"}');
      await expect(rows.filter({ hasText: '/lab/overnight' })).toContainText('503: the analyser is in maintenance until 07:00');
      await expect(rows.filter({ hasText: '/lab/fail' })).toHaveCount(0);
      await shot(page, testInfo, 'yesterday-failed-with-reasons');

      // The export dialog counts what the filters on screen match.
      await page.getByRole('button', { name: 'Export' }).click();
      await expect(page.getByRole('dialog', { name: 'Export transactions' })).toContainText('2 transactions match the current filters');
    } finally {
      await lab.close();
    }
  });

  test('the total stays that of the filter after looking at a transaction while more failed', async ({ console: page, junction }) => {
    const lab = await setupLab(junction);
    try {
      await lab.send('/lab/fail/1');
      await lab.send('/lab/json/1');
      await page.goto(`${junction.apiUrl}/#/transactions?status=Failed`);
      await expect(page.getByText('1–1 of 1 transaction')).toBeVisible();
      await table(page).getByRole('link', { name: '/lab/fail/1' }).click();
      await expect(page.getByRole('heading', { level: 1, name: 'Transaction' })).toBeVisible();

      // Two more fail while the transaction is open.
      await lab.send('/lab/fail/2');
      await lab.send('/lab/fail/3');
      await page.getByRole('link', { name: 'Back to transactions' }).click();
      await expect(table(page).getByRole('link')).toHaveCount(3);
      await expect(page.getByText('1–3 of 3 transactions')).toBeVisible();
      await page.getByRole('button', { name: 'Export' }).click();
      await expect(page.getByRole('dialog', { name: 'Export transactions' })).toContainText('3 transactions match the current filters');
    } finally {
      await lab.close();
    }
  });

  test("an HL7 lab's AE is named as its refusal, and the ACK's fields by their names", async ({ console: page, junction }, testInfo) => {
    const lab = await setupLab(junction);
    try {
      const id = await recorded(junction, lab.labChannelId, new Date(), '/lab/hl7/order', { status: 400, body: LAB_AE, type: 'application/hl7-v2' }, 'Completed');
      await page.goto(`${junction.apiUrl}/#/transactions`);
      await expect(table(page).getByRole('row').filter({ hasText: '/lab/hl7/order' })).toContainText('AE: Unknown patient 123');

      await page.goto(`${junction.apiUrl}/#/transactions/${id}`);
      const refusal = page.getByRole('alert').filter({ hasText: 'Refused by the receiving system' });
      await expect(refusal).toContainText('The receiving system (route Lab server) refused it: AE (application error) — Unknown patient 123');
      await expect(page.getByText('AE (application error), recorded as 400')).toBeVisible();

      await page.getByRole('tab', { name: 'Response' }).click();
      await page.getByRole('button', { name: 'Show field names' }).click();
      const fields = page.getByRole('table', { name: 'HL7 fields by name' });
      await expect(fields.getByRole('row').filter({ hasText: 'MSA-1' })).toContainText(/acknowledg(e)?ment code/i);
      await expect(fields.getByRole('row').filter({ hasText: 'MSA-3' })).toContainText('Unknown patient 123');
      await shot(page, testInfo, 'hl7-refusal');
    } finally {
      await lab.close();
    }
  });

  test('the list at 390 px wide shows status, reason and channel without scrolling sideways', async ({ browser, junction }, testInfo) => {
    const lab = await setupLab(junction);
    const context = await browser.newContext({ ignoreHTTPSErrors: true, viewport: { width: 390, height: 844 } });
    try {
      await lab.send('/lab/fail');
      await lab.send('/lab/json/1');
      const page = await context.newPage();
      await signIn(page, junction);
      await page.goto(`${junction.apiUrl}/#/transactions`);
      await expect(page.getByText('1–2 of 2 transactions')).toBeVisible();
      const failed = table(page).getByRole('row').filter({ hasText: 'Failed' });
      await expect(failed).toContainText(LAB_CHANNEL);
      await expect(failed).toContainText('500: {"error":"the lab system is down"}');
      await expect(table(page).getByRole('row').filter({ hasText: 'Successful' })).toContainText(LAB_CHANNEL);
      // The reason sits within the window's width, not in a column scrolled out of sight.
      const reason = failed.locator('[data-reason]');
      await reason.scrollIntoViewIfNeeded();
      await expect(reason).toBeInViewport();
      const box = await reason.boundingBox();
      expect(box !== null && box.x >= 0 && box.x + box.width <= 390, `reason at ${JSON.stringify(box)}`).toBe(true);
      // The page's own content fits the window. (The header above it is the layout's, made to fit 390 px apart.)
      const overflow = await page.locator('main').evaluate((main) => main.scrollWidth - main.clientWidth);
      expect(overflow, 'the transactions page is wider than the window').toBeLessThanOrEqual(0);
      await shot(page, testInfo, 'transactions-390px');
      // Each row still leads to its transaction.
      await failed.getByRole('link').click();
      await expect(page.getByRole('heading', { level: 1, name: 'Transaction' })).toBeVisible();
    } finally {
      await context.close();
      await lab.close();
    }
  });
});
