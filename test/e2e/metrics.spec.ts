/**
 * The metrics charts on the dashboard and on a channel's page. The first test holds the console to the metrics API's
 * documented answer (OpenHIM's item shape) by answering the metrics routes in the browser, so it can check the
 * requests (bucket size, range, browser zone), the zero-filled buckets and the tables exactly. The second sends real
 * transactions and reads the real API.
 */
import type { Page, Route } from '@playwright/test';
import { expect, expectNoHorizontalScroll, shot, test } from './fixtures.js';
import { LAB_CHANNEL, PHARMACY_CHANNEL, setupLab } from './transactions-setup.js';

const ZONE = 'Asia/Kolkata';
test.use({ timezoneId: ZONE });

interface Seen {
  path: string;
  query: URLSearchParams;
}

function item(total: number, avgResp: number, extra: Record<string, unknown>) {
  return { total, avgResp, minResp: avgResp, maxResp: avgResp, failed: 0, successful: total, processing: 0, completed: 0, completedWErrors: 0, ...extra };
}

/** Answers the metrics routes as the API would for a range with two busy buckets: the first and the current. */
async function answerMetrics(page: Page, channelId: string, browserZone: string): Promise<Seen[]> {
  const seen: Seen[] = [];
  await page.route(
    (url) => url.pathname.startsWith('/metrics/'),
    async (route: Route) => {
      const url = new URL(route.request().url());
      seen.push({ path: url.pathname, query: url.searchParams });
      const start = url.searchParams.get('startDate') ?? '';
      const end = url.searchParams.get('endDate') ?? '';
      let body: unknown;
      if (url.pathname === '/metrics/timeseries/day' && url.searchParams.get('timeZone') === browserZone) {
        // As the API refuses a zone whose days do not line up with its stored buckets.
        const details = [{ path: 'query.timeZone', message: 'day buckets in this zone do not line up with the stored ones' }];
        await route.fulfill({ status: 400, contentType: 'application/json', body: JSON.stringify({ error: { code: 'VALIDATION_FAILED', message: 'Invalid query', details } }) });
        return;
      }
      if (url.pathname.startsWith('/metrics/timeseries/')) {
        body = [
          item(2, 40, { timestamp: start, _id: {} }),
          item(3, 10, { timestamp: end, failed: 1, successful: 2, _id: {} }),
        ];
      } else {
        // `/metrics/channels` and `/metrics/channels/<id>` alike: only the lab channel has transactions.
        body = [item(5, 22, { failed: 1, successful: 4, _id: { channelID: channelId } })];
      }
      await route.fulfill({ status: 200, contentType: 'application/json', body: JSON.stringify(body) });
    },
  );
  return seen;
}

/** The rows of a chart's table, shown through its toggle. */
async function showTable(page: Page, region: string) {
  const section = page.getByRole('region', { name: region, exact: true });
  await section.getByRole('button', { name: 'Show table' }).click();
  return section.getByRole('table');
}

test.describe('metrics charts', () => {
  test('the dashboard and a channel page chart the metrics answer, with empty buckets as zero and a table of the numbers', async ({ console: page, junction }, testInfo) => {
    const lab = await setupLab(junction);
    try {
      const zone = await page.evaluate(() => Intl.DateTimeFormat().resolvedOptions().timeZone);
      // Chromium names the zone by its older ICU name (Asia/Calcutta).
      expect(['Asia/Kolkata', 'Asia/Calcutta']).toContain(zone);
      const about = await junction.api('GET', '/about');
      const serverZone = (about.json as { serverTimezone: string }).serverTimezone;
      expect(serverZone).not.toBe(zone);
      const seen = await answerMetrics(page, lab.labChannelId, zone);
      // Signing in opened the dashboard before the routes were answered here: load it again.
      await page.reload();
      const metrics = page.getByRole('region', { name: 'Metrics', exact: true });
      await expect(metrics.getByRole('radio', { name: '1 day' })).toBeChecked();

      // A day is 24 hour buckets: two with data, the rest zero; the total row adds them up.
      const load = await showTable(page, 'Load');
      await expect(load.locator('tbody tr')).toHaveCount(24);
      await expect(load.locator('tfoot')).toHaveText(/Total\s*5/);
      await expect(load.locator('tbody tr').first().locator('td').nth(1)).toHaveText('2');
      await expect(load.locator('tbody tr').nth(1).locator('td').nth(1)).toHaveText('0');
      await expect(load.locator('tbody tr').last().locator('td').nth(1)).toHaveText('3');
      const response = await showTable(page, 'Response time');
      await expect(response.locator('tbody tr').first().locator('td').nth(1)).toHaveText('40');
      await expect(response.locator('tbody tr').nth(1).locator('td').nth(1)).toHaveText('–');
      await expect(page.getByRole('region', { name: 'Load' }).getByRole('img')).toHaveAttribute('aria-label', /5 in all/);

      // Status by channel: named from the channel list.
      const byChannel = await showTable(page, 'Status by channel');
      const row = byChannel.getByRole('row', { name: new RegExp(LAB_CHANNEL) });
      await expect(row.locator('td')).toHaveText(['4', '0', '0', '1', '0', '5']);
      await expect(byChannel).not.toContainText(PHARMACY_CHANNEL);

      const day = seen.find((s) => s.path === '/metrics/timeseries/hour');
      expect(day, 'the day view asks for hour buckets').toBeDefined();
      expect(day?.query.get('timeZone')).toBe(zone);
      const span = new Date(day?.query.get('endDate') ?? '').getTime() - new Date(day?.query.get('startDate') ?? '').getTime();
      expect(span).toBeGreaterThan(23 * 3_600_000);
      expect(span).toBeLessThanOrEqual(24 * 3_600_000);
      expect(seen.some((s) => s.path === '/metrics/channels' && s.query.get('timeZone') === zone)).toBe(true);
      await expectNoHorizontalScroll(page);
      await shot(page, testInfo, 'dashboard-metrics');

      // A zone the server refuses: the series is asked again in the server's zone (from /about), and the page says so.
      const zoneNote = metrics.getByRole('alert').filter({ hasText: "Times grouped in the server's time zone" });
      await expect(zoneNote).toHaveCount(0);
      await metrics.getByText('1 week', { exact: true }).click();
      await expect(zoneNote).toBeVisible();
      await expect(load.locator('tbody tr')).toHaveCount(7);
      await expect(load.locator('tfoot')).toHaveText(/Total\s*5/);
      expect(seen.some((s) => s.path === '/metrics/timeseries/day' && s.query.get('timeZone') === serverZone)).toBe(true);
      await metrics.getByText('1 day', { exact: true }).click();
      await expect(zoneNote).toHaveCount(0);

      // Each period asks for its bucket size; an hour is 60 minute buckets.
      for (const [label, series] of [
        ['1 week', 'day'],
        ['1 month', 'day'],
        ['1 year', 'month'],
        ['1 hour', 'minute'],
      ] as const) {
        const before = seen.length;
        await metrics.getByText(label, { exact: true }).click();
        await expect.poll(() => seen.slice(before).some((s) => s.path === `/metrics/timeseries/${series}`), { message: label }).toBe(true);
      }
      await expect(load.locator('tbody tr')).toHaveCount(60);
      await expect(load.locator('tfoot')).toHaveText(/Total\s*5/);

      // A transaction completing reads the charts again by itself, a few seconds later (once per burst).
      const beforeLive = seen.length;
      await lab.send('/lab/json/live');
      await expect.poll(() => seen.slice(beforeLive).some((s) => s.path === '/metrics/timeseries/minute'), { timeout: 20_000 }).toBe(true);

      // A channel's metrics: from its row in the channel list.
      await page.goto(`${junction.apiUrl}/#/channels`);
      await page.getByRole('row', { name: new RegExp(LAB_CHANNEL) }).getByRole('link', { name: 'Metrics', exact: true }).click();
      await expect(page.getByRole('heading', { name: `${LAB_CHANNEL}: metrics` })).toBeVisible();
      await expect.poll(() => seen.some((s) => s.path === `/metrics/timeseries/hour/channels/${lab.labChannelId}`)).toBe(true);
      expect(seen.some((s) => s.path === `/metrics/channels/${lab.labChannelId}`)).toBe(true);
      const status = await showTable(page, 'Status');
      await expect(status.getByRole('row', { name: /Successful/ }).locator('td')).toHaveText('4');
      await expect(status.getByRole('row', { name: /Failed/ }).locator('td')).toHaveText('1');
      await expect(status.locator('tfoot')).toHaveText(/Total\s*5/);
      const channelLoad = await showTable(page, 'Load');
      await expect(channelLoad.locator('tfoot')).toHaveText(/Total\s*5/);
      await expectNoHorizontalScroll(page);
      await shot(page, testInfo, 'channel-metrics');
    } finally {
      await lab.close();
    }
  });

  test('after real transactions the charts count them, and follow new ones without a click', async ({ console: page, junction }) => {
    const lab = await setupLab(junction);
    try {
      await lab.send('/lab/json/one');
      await lab.send('/lab/json/two');
      await lab.send('/lab/fail');
      await page.goto(`${junction.apiUrl}/#/`);
      await page.getByRole('region', { name: 'Metrics', exact: true }).getByText('1 hour', { exact: true }).click();
      const load = await showTable(page, 'Load');
      await expect(load.locator('tbody tr')).toHaveCount(60);
      await expect(load.locator('tfoot')).toHaveText(/Total\s*3/);
      const byChannel = await showTable(page, 'Status by channel');
      await expect(byChannel.getByRole('row', { name: new RegExp(LAB_CHANNEL) }).locator('td')).toHaveText(['2', '0', '0', '1', '0', '3']);

      // The charts follow new transactions without a click.
      await lab.send('/lab/json/three');
      await expect(load.locator('tfoot')).toHaveText(/Total\s*4/, { timeout: 20_000 });

      // The channel's page: its own series and status counts.
      await page.goto(`${junction.apiUrl}/#/channels/${lab.labChannelId}/metrics`);
      await page.getByText('1 hour', { exact: true }).click();
      const status = await showTable(page, 'Status');
      await expect(status.getByRole('row', { name: /Successful/ }).locator('td')).toHaveText('3');
      await expect(status.getByRole('row', { name: /Failed/ }).locator('td')).toHaveText('1');
      const channelLoad = await showTable(page, 'Load');
      await expect(channelLoad.locator('tbody tr')).toHaveCount(60);
      await expect(channelLoad.locator('tfoot')).toHaveText(/Total\s*4/);
    } finally {
      await lab.close();
    }
  });
});
