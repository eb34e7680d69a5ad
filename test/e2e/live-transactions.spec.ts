/**
 * The transactions list follows the live feed on its plain first page: a new transaction appears without a click and
 * its row shows its final status; paused, filtered or with rows selected, new ones are announced instead.
 */
import type { Page } from '@playwright/test';
import { expect, expectNoHorizontalScroll, shot, test } from './fixtures.js';
import { setupLab } from './transactions-setup.js';

/** The path links of the rows on screen, top to bottom. */
function rowLinks(page: Page) {
  return page.getByRole('table', { name: 'Transactions' }).getByRole('link');
}

test.describe('live transactions list', () => {
  test('new transactions appear on the first page as they arrive, and not while paused, filtered or selected', async ({ console: page, junction }, testInfo) => {
    const lab = await setupLab(junction);
    try {
      await lab.send('/lab/json/first');
      await page.goto(`${junction.apiUrl}/#/transactions`);
      await expect(rowLinks(page)).toHaveText(['/lab/json/first']);
      await expect(page.getByLabel('Live updates on')).toBeVisible();

      // Anything that reloaded the page would drop this marker.
      await page.evaluate(() => {
        (window as unknown as { stayed: boolean }).stayed = true;
      });

      // Live: on top with its final status, client and response code, and counted, without a click.
      await lab.send('/lab/fail/second');
      await expect(rowLinks(page)).toHaveText(['/lab/fail/second', '/lab/json/first']);
      const top = page.getByRole('table', { name: 'Transactions' }).getByRole('row').nth(1);
      await expect(top).toContainText('Failed');
      await expect(top).toContainText('500');
      await expect(top).toContainText('Lab system');
      await expect(page.getByText('1–2 of 2 transactions')).toBeVisible();
      await expect(page.getByRole('button', { name: /new transaction/ })).toHaveCount(0);
      await expectNoHorizontalScroll(page);
      await shot(page, testInfo, 'live-transactions');

      // Paused: announced, not inserted; resuming shows it.
      await page.getByRole('button', { name: 'Pause live updates' }).click();
      await expect(page.getByLabel('Live updates paused')).toBeVisible();
      await lab.send('/lab/json/third');
      await expect(page.getByRole('button', { name: '1 new transaction: show' })).toBeVisible();
      await expect(rowLinks(page)).toHaveText(['/lab/fail/second', '/lab/json/first']);
      await page.getByRole('button', { name: 'Resume live updates' }).click();
      await expect(rowLinks(page)).toHaveText(['/lab/json/third', '/lab/fail/second', '/lab/json/first']);
      await expect(page.getByRole('button', { name: /new transaction/ })).toHaveCount(0);

      // A selected row holds the list still.
      await page.getByRole('checkbox', { name: /^Select GET \/lab\/json\/first/ }).check();
      await expect(page.getByLabel('Live updates off while rows are selected')).toBeVisible();
      await lab.send('/lab/json/fourth');
      await expect(page.getByRole('button', { name: '1 new transaction: show' })).toBeVisible();
      await expect(rowLinks(page)).toHaveCount(3);
      await page.getByRole('button', { name: 'Clear selection' }).click();
      await expect(rowLinks(page).first()).toHaveText('/lab/json/fourth');

      // Filtered: the filtered view does not take rows it cannot check against its filters.
      await page.goto(`${junction.apiUrl}/#/transactions?status=Failed`);
      await expect(rowLinks(page)).toHaveText(['/lab/fail/second']);
      await expect(page.getByLabel('Live updates off while filters are set')).toBeVisible();
      await lab.send('/lab/fail/fifth');
      await expect(page.getByRole('button', { name: '1 new transaction: show' })).toBeVisible();
      await expect(rowLinks(page)).toHaveText(['/lab/fail/second']);
      await page.getByRole('button', { name: '1 new transaction: show' }).click();
      await expect(rowLinks(page)).toHaveText(['/lab/fail/fifth', '/lab/fail/second']);

      expect(await page.evaluate(() => (window as unknown as { stayed?: boolean }).stayed)).toBe(true);
    } finally {
      await lab.close();
    }
  });
});
