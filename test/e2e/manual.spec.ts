/**
 * The manual at /docs (issue 39), as a person reaches it: the channel editor's Help link opens the channel guide at
 * its section in a new tab, the pages render under their Content-Security-Policy with nothing refused, and axe finds
 * no WCAG 2.1 AA violation on them in the light or the dark scheme. The front page is read signed out.
 */
import AxeBuilder from '@axe-core/playwright';
import type { Page } from '@playwright/test';
import { expect, test } from './fixtures.js';

const WCAG_21_AA = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'];

async function violations(page: Page): Promise<string[]> {
  const result = await new AxeBuilder({ page }).withTags(WCAG_21_AA).analyze();
  return result.violations.map((v) => `${page.url()}: ${v.id} (${v.nodes.map((n) => n.target.join(' ')).join(', ')})`);
}

/** Collects what the browser refused under the page's CSP, as it reports it on the console. */
function refusals(page: Page): string[] {
  const seen: string[] = [];
  page.on('console', (message) => {
    if (message.text().includes('Content Security Policy')) seen.push(message.text());
  });
  return seen;
}

test('the channel editor\'s Help opens the channel guide; the manual renders under its CSP and passes axe', async ({ console: page, browser, junction }) => {
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Channels', exact: true }).click();
  await page.getByRole('link', { name: 'New channel' }).click();
  await expect(page.getByRole('heading', { name: 'New channel', level: 1 })).toBeVisible();

  const [guide] = await Promise.all([page.context().waitForEvent('page'), page.getByRole('link', { name: 'Help' }).click()]);
  const refused = refusals(guide);
  await guide.waitForLoadState();
  expect(new URL(guide.url()).pathname + new URL(guide.url()).hash).toBe('/docs/admin/channels.md#what-a-channel-holds');
  await expect(guide.getByRole('heading', { name: 'Channels', level: 1 })).toBeVisible();
  await expect(guide.getByRole('heading', { name: 'What a channel holds', level: 2 })).toBeInViewport();
  // The stylesheet is a file, and applied: the bar in the console's teal.
  await expect(guide.getByRole('banner')).toHaveCSS('background-color', 'rgb(8, 127, 91)');
  expect(await violations(guide)).toEqual([]);

  // Signed out (a fresh context), the front page reads the same, in the dark scheme too; its links lead into the guides.
  const reader = await browser.newContext({ ignoreHTTPSErrors: true, colorScheme: 'dark' });
  const front = await reader.newPage();
  refused.push(...refusals(front));
  await front.goto(`${junction.apiUrl}/docs`);
  await expect(front.getByRole('heading', { name: 'Junction manual', level: 1 })).toBeVisible();
  expect(await violations(front)).toEqual([]);
  await front.getByRole('main').getByRole('link', { name: 'Channels', exact: true }).first().click();
  await expect(front).toHaveURL(/\/docs\/admin\/channels\.md/);
  expect(await violations(front)).toEqual([]);
  await reader.close();
  expect(refused).toEqual([]);
});
