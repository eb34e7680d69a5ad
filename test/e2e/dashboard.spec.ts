import type { Page } from '@playwright/test';
import { expect, expectNoHorizontalScroll, shot, test } from './fixtures.js';
import { LAB_CHANNEL, setupLab } from './transactions-setup.js';

/** The count on a status card of the dashboard. */
function card(page: Page, status: string, count: number) {
  return page.getByRole('link', { name: `${status} ${count}`, exact: true });
}

test.describe('dashboard', () => {
  test('counts, the live feed and mediator health follow the live events without a reload', async ({ console: page, junction }, testInfo) => {
    const lab = await setupLab(junction);
    try {
      const before = await lab.send('/lab/json/before');
      await page.goto(`${junction.apiUrl}/#/`);
      await expect(page.getByRole('heading', { name: 'Dashboard' })).toBeVisible();
      await expect(card(page, 'Successful', 1)).toBeVisible();
      await expect(card(page, 'Failed', 0)).toBeVisible();
      const feed = page.getByRole('region', { name: 'Live feed' });
      await expect(feed.getByRole('link', { name: 'GET /lab/json/before' })).toBeVisible();
      await expect(page.getByRole('region', { name: 'Mediators' })).toContainText('No mediators are registered');
      await expect(page.getByLabel('Live feed: Live')).toBeVisible();

      // Anything that reloaded the page would drop this marker.
      await page.evaluate(() => {
        (window as unknown as { stayed: boolean }).stayed = true;
      });

      await lab.send('/lab/json/second', { method: 'POST', body: '{"a":1}', contentType: 'application/json' });
      await lab.send('/lab/fail');
      await expect(card(page, 'Successful', 2)).toBeVisible();
      await expect(card(page, 'Failed', 1)).toBeVisible();
      await expect(card(page, 'Processing', 0)).toBeVisible();

      // Newest on top, with status, method, path and channel name.
      const items = feed.getByRole('listitem');
      await expect(items).toHaveCount(3);
      await expect(items.nth(0)).toContainText('Failed');
      await expect(items.nth(0).getByRole('link')).toHaveText('GET /lab/fail');
      await expect(items.nth(0)).toContainText(LAB_CHANNEL);
      await expect(items.nth(1).getByRole('link')).toHaveText('POST /lab/json/second');
      await expect(items.nth(1)).toContainText('Successful');
      await expect(items.nth(2).getByRole('link')).toHaveText('GET /lab/json/before');

      // A mediator that registers and sends a heartbeat shows up online.
      const registered = await junction.api('POST', '/mediators', {
        urn: 'urn:mediator:lab-adapter',
        version: '1.0.0',
        name: 'Lab adapter',
        endpoints: [{ name: 'Lab adapter', host: '127.0.0.1', port: 9, primary: true }],
      });
      expect(registered.status, registered.text).toBe(201);
      const beat = await junction.api('POST', '/mediators/urn:mediator:lab-adapter/heartbeat', { uptime: 125 });
      expect(beat.status, beat.text).toBe(200);
      const mediators = page.getByRole('region', { name: 'Mediators' });
      const row = mediators.getByRole('row', { name: /Lab adapter/ });
      await expect(row).toContainText('Online');
      await expect(row).toContainText('2 min');

      expect(await page.evaluate(() => (window as unknown as { stayed?: boolean }).stayed)).toBe(true);
      await expectNoHorizontalScroll(page);
      await shot(page, testInfo, 'dashboard');

      // A status card leads to the list filtered by that status; a feed entry to its transaction.
      await card(page, 'Failed', 1).click();
      await expect(page).toHaveURL(/#\/transactions\?status=Failed/);
      await expect(page.getByRole('table', { name: 'Transactions' }).getByRole('link')).toHaveText(['/lab/fail']);
      await page.goBack();
      await page.getByRole('region', { name: 'Live feed' }).getByRole('link', { name: 'GET /lab/json/before' }).click();
      await expect(page).toHaveURL(new RegExp(`#/transactions/${before}$`));
      await expect(page.getByText('GET /lab/json/before').first()).toBeVisible();
    } finally {
      await lab.close();
    }
  });
});
