/**
 * Re-runs a clinic can trust (issue 36), walked as a support person would: a bulk re-run over the failed list that
 * shows, before it starts, what was re-run already and skips the earlier attempts; a task whose re-runs all failed
 * shown as failed, in words and colour; a single re-run that asks first and then shows its outcome, linked both ways.
 */
import type { Locator } from '@playwright/test';
import type { TaskDetail, TaskView } from '../../service/contracts/tasks.js';
import { expect, expectNoHorizontalScroll, shot, test } from './fixtures.js';
import type { E2EJunction } from './fixtures.js';
import { LAB_CHANNEL, setupLab } from './transactions-setup.js';

async function tasks(junction: E2EJunction): Promise<TaskView[]> {
  const res = await junction.api('GET', '/tasks?filterLimit=0');
  expect(res.status, res.text).toBe(200);
  return res.json as TaskView[];
}

async function task(junction: E2EJunction, id: string): Promise<TaskDetail> {
  return (await junction.api('GET', `/tasks/${id}?filterLimit=0`)).json as TaskDetail;
}

/** Re-runs transactions as one task through the API and waits until it has completed. */
async function rerunByApi(junction: E2EJunction, tids: string[]): Promise<TaskDetail> {
  const res = await junction.api('POST', '/tasks', { tids });
  expect(res.status, res.text).toBe(201);
  const id = (res.json as TaskView)._id;
  await expect.poll(async () => (await task(junction, id)).status).toBe('Completed');
  return task(junction, id);
}

/** The colour a badge is drawn in. */
function colourOf(badge: Locator): Promise<string> {
  return badge.evaluate((el) => getComputedStyle(el).color);
}

test.describe('re-runs', () => {
  test('a bulk re-run of the failed list shows what was re-run before and skips earlier attempts', async ({ console: page, junction }, testInfo) => {
    const lab = await setupLab(junction);
    try {
      // Two failed encounters; the first was re-run once already and failed again.
      const first = await lab.send('/lab/fail/encounter-1', { method: 'POST', body: 'ENC-1', contentType: 'text/plain' });
      const second = await lab.send('/lab/fail/encounter-2', { method: 'POST', body: 'ENC-2', contentType: 'text/plain' });
      const earlier = (await rerunByApi(junction, [first])).transactions[0]?.rerunID ?? '';
      expect(earlier).toMatch(/^[0-9a-f]{24}$/);

      await page.goto(`${junction.apiUrl}/#/transactions?status=Failed`);
      await expect(page.getByRole('table', { name: 'Transactions' }).locator('tbody tr')).toHaveCount(3);
      await page.getByRole('button', { name: 'Re-run all matching' }).click();
      const dialog = page.getByRole('dialog', { name: 'Re-run all matching transactions' });
      await expect(dialog).toContainText('This creates one re-run task for 2 of the 3 transactions that match the current filters.');
      const facts = dialog.getByRole('list', { name: 'Of the matching transactions' });
      await expect(facts).toContainText('1 was already re-run');
      await expect(facts).toContainText('1 is itself a re-run of an earlier transaction');
      const latestOnly = dialog.getByRole('checkbox', { name: /^Re-run only the latest attempt of each message/ });
      await expect(latestOnly).toBeChecked();
      await expect(dialog).toContainText('1 earlier attempt is skipped.');
      await expect(dialog).toContainText('2 transactions will be re-run.');
      await expectNoHorizontalScroll(page);
      await shot(page, testInfo, 'bulk-rerun-preview');

      // Unticked, it would be OpenHIM's re-run of everything matching: the original and its re-run both.
      await latestOnly.uncheck();
      await expect(dialog).toContainText('3 transactions will be re-run.');
      await expect(dialog).toContainText('for all 3 transactions that match the current filters');
      await latestOnly.check();
      await dialog.getByRole('button', { name: 'Start re-run' }).click();
      await expect(page.getByRole('status').filter({ hasText: 'Re-run task created' })).toContainText('2 transactions are queued');
      await expect(page.getByRole('alert').filter({ hasText: 'Please note' })).toContainText('a later attempt of the same message exists');

      // The task re-runs the latest attempt of each encounter: the earlier re-run and the second original, never the first original.
      const bulk = (await tasks(junction)).find((t) => t.totalTransactions === 2);
      expect(bulk).toBeDefined();
      const items = (await task(junction, bulk?._id ?? '')).transactions.map((i) => i.tid);
      expect(items.sort()).toEqual([earlier, second].sort());
      expect(items).not.toContain(first);
    } finally {
      await lab.close();
    }
  });

  test('a task whose re-runs all failed is shown as failed, never as a green success', async ({ console: page, junction }, testInfo) => {
    const lab = await setupLab(junction);
    try {
      const failedTids = [await lab.send('/lab/fail/a'), await lab.send('/lab/fail/b')];
      const failed = await rerunByApi(junction, failedTids);
      expect(failed).toMatchObject({ status: 'Completed', succeededTransactions: 0, failedTransactions: 2, outcome: 'failed' });
      const succeeded = await rerunByApi(junction, [await lab.send('/lab/json/fine')]);
      expect(succeeded).toMatchObject({ outcome: 'succeeded' });

      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Tasks' }).click();
      const rows = page.getByRole('table', { name: 'Re-run tasks' }).getByRole('row');
      const failedRow = rows.filter({ hasText: 'All 2 failed' });
      const succeededRow = rows.filter({ hasText: 'All 1 succeeded' });
      await expect(failedRow).toContainText('Completed');
      await expect(failedRow).toContainText('2 of 2 re-run');
      await expect(succeededRow).toContainText('Completed');
      // In colour too: the failed task's status is drawn like its "All 2 failed", not like the successful task's.
      const failedStatus = failedRow.getByText('Completed', { exact: true });
      const successStatus = succeededRow.getByText('Completed', { exact: true });
      expect(await colourOf(failedStatus)).toBe(await colourOf(failedRow.getByText('All 2 failed')));
      expect(await colourOf(failedStatus)).not.toBe(await colourOf(successStatus));
      await expectNoHorizontalScroll(page);
      await shot(page, testInfo, 'tasks-failed-outcome');

      await failedRow.getByRole('link', { name: /^Open the task created/ }).click();
      await expect(page.getByRole('heading', { name: 'Re-run task', level: 1 })).toBeVisible();
      await expect(page.getByRole('alert').filter({ hasText: 'Every re-run failed' })).toBeVisible();
      const summary = page.getByRole('table', { name: 'Task summary' });
      await expect(summary).toContainText('All 2 failed');
      await expect(summary).toContainText('Of 2 finished: 0 succeeded, 2 failed');
      const items = page.getByRole('table', { name: 'Transactions of the task' });
      for (const tid of failedTids) await expect(items.getByRole('row').filter({ hasText: tid })).toContainText('Failed');
      await shot(page, testInfo, 'task-failed-detail');
    } finally {
      await lab.close();
    }
  });

  test('a single re-run asks first, then shows the new transaction and its status, linked both ways', async ({ console: page, junction }, testInfo) => {
    const lab = await setupLab(junction);
    try {
      const id = await lab.send('/lab/json/rerun-me');
      await page.goto(`${junction.apiUrl}/#/transactions/${id}`);
      await expect(page.getByText('Not re-run')).toBeVisible();

      // Asked first, naming the transaction and its channel; cancelling sends nothing.
      await page.getByRole('button', { name: 'Re-run', exact: true }).click();
      const dialog = page.getByRole('dialog', { name: 'Re-run this transaction?' });
      await expect(dialog).toContainText(id);
      await expect(dialog).toContainText('GET /lab/json/rerun-me');
      await expect(dialog).toContainText(LAB_CHANNEL);
      await expect(dialog).toContainText('It has not been re-run before.');
      await shot(page, testInfo, 'single-rerun-confirm');
      await dialog.getByRole('button', { name: 'Cancel' }).click();
      await expect(dialog).toBeHidden();
      expect(await tasks(junction)).toHaveLength(0);

      await page.getByRole('button', { name: 'Re-run', exact: true }).click();
      await dialog.getByRole('button', { name: 'Re-run now' }).click();
      const outcome = page.getByRole('status').filter({ hasText: 'Re-run finished: Successful' });
      await expect(outcome).toBeVisible();
      const [only] = await tasks(junction);
      const child = (await task(junction, only?._id ?? '')).transactions[0]?.rerunID ?? '';
      expect(child).toMatch(/^[0-9a-f]{24}$/);
      await expect(outcome.getByRole('link', { name: child })).toHaveAttribute('href', `#/transactions/${child}`);
      await expect(page.getByText('Not re-run')).toHaveCount(0);
      await shot(page, testInfo, 'single-rerun-outcome');

      // The transaction links to its re-run, with its status, and the re-run links back.
      const reruns = page.getByRole('link', { name: `Re-run ${child}` });
      await expect(reruns).toBeVisible();
      await reruns.click();
      await expect(page).toHaveURL(new RegExp(`#/transactions/${child}$`));
      await page.getByRole('link', { name: `Original transaction ${id}` }).click();
      await expect(page).toHaveURL(new RegExp(`#/transactions/${id}$`));

      // A second re-run names the earlier one before anything is sent.
      await page.getByRole('button', { name: 'Re-run', exact: true }).click();
      await expect(dialog).toContainText('Already re-run once');
      await expect(dialog).toContainText(child);
      await dialog.getByRole('button', { name: 'Cancel' }).click();

      // A re-run that fails says so, in words, with the failed transaction linked.
      const failing = await lab.send('/lab/fail/rerun-me');
      await page.goto(`${junction.apiUrl}/#/transactions/${failing}`);
      await page.getByRole('button', { name: 'Re-run', exact: true }).click();
      await dialog.getByRole('button', { name: 'Re-run now' }).click();
      const failedOutcome = page.getByRole('status').filter({ hasText: 'Re-run failed' });
      await expect(failedOutcome).toContainText('Failed');
      await expect(failedOutcome.getByRole('link', { name: /^[0-9a-f]{24}$/ })).toBeVisible();
    } finally {
      await lab.close();
    }
  });
});
