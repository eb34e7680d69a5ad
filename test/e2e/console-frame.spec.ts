/**
 * Issue 36, the console's frame: each browser tab titled after its page, the icon answering without a session, and
 * the header usable on a phone (390 px wide): nothing off the side, the account and sign-out in the folded menu.
 */
import { expect, expectNoHorizontalScroll, shot, test } from './fixtures.js';

test('each tab is titled after the page it shows', async ({ console: page }) => {
  await expect(page).toHaveTitle('Dashboard · Junction');
  const nav = page.getByRole('navigation', { name: 'Main' });
  for (const [link, title] of [
    ['Transactions', 'Transactions · Junction'],
    ['Channels', 'Channels · Junction'],
    ['Logs', 'Logs · Junction'],
    ['About', 'About · Junction'],
  ] as const) {
    await nav.getByRole('link', { name: link, exact: true }).click();
    await expect(page.getByRole('heading', { level: 1, name: link })).toBeVisible();
    await expect(page).toHaveTitle(title);
  }
  // A page within an area is titled after itself, not its area.
  await nav.getByRole('link', { name: 'Channels', exact: true }).click();
  await page.getByRole('link', { name: 'New channel' }).click();
  await expect(page).toHaveTitle('New channel · Junction');
  await page.getByRole('button', { name: 'Sign out' }).click();
  await expect(page.getByRole('button', { name: 'Sign in' })).toBeVisible();
  await expect(page).toHaveTitle('Sign in · Junction');
});

test('the icon the browser asks for, and the one the page names, answer without a session', async ({ page, junction }) => {
  await page.goto(`${junction.apiUrl}/`);
  await expect(page.getByRole('button', { name: 'Sign in' })).toBeVisible();
  const named = await page.locator('link[rel="icon"]').evaluateAll((links) => links.map((link) => (link as HTMLLinkElement).href));
  expect(named.map((href) => new URL(href).pathname).sort()).toEqual(['/favicon.ico', '/favicon.svg']);
  for (const href of named) {
    const answer = await page.request.get(href);
    expect(answer.status(), href).toBe(200);
    expect(answer.headers()['content-type'], href).toMatch(/^image\//);
  }
  // The file the browser asks for on its own holds a real icon: an ICO header.
  const ico = await (await page.request.get(`${junction.apiUrl}/favicon.ico`)).body();
  expect([...ico.subarray(0, 4)]).toEqual([0, 0, 1, 0]);
});

test('at 390 px wide the header fits, and the menu holds the navigation, the account and signing out', async ({ console: page }, testInfo) => {
  await page.setViewportSize({ width: 390, height: 844 });
  await expect(page.getByRole('heading', { level: 1, name: 'Dashboard' })).toBeVisible();
  await expectNoHorizontalScroll(page);
  const header = page.getByRole('banner');
  // Everything shown in the header is inside the window.
  const outside = await header.evaluate((el) =>
    Array.from(el.querySelectorAll('*'))
      .filter((child) => child.getClientRects().length > 0 && getComputedStyle(child).visibility !== 'hidden')
      .map((child) => child.getBoundingClientRect())
      .filter((box) => box.width > 0 && (box.left < 0 || box.right > window.innerWidth)).length,
  );
  expect(outside, 'header elements off the side of the window').toBe(0);
  await expect(header.getByRole('button', { name: 'Sign out' })).toHaveCount(0);
  await expect(header.getByLabel('Live feed: Live')).toBeVisible();
  await shot(page, testInfo, 'header-390');

  // The menu: its links, the account and signing out, all reachable.
  const nav = page.getByRole('navigation', { name: 'Main' });
  await expect(nav.getByRole('link', { name: 'Logs' })).not.toBeInViewport();
  await page.getByRole('button', { name: 'Toggle navigation' }).click();
  await expect(nav.getByRole('link', { name: 'Dashboard' })).toBeInViewport();
  const account = nav.getByRole('link', { name: /^My account/ });
  await account.scrollIntoViewIfNeeded();
  await expect(account).toBeInViewport();
  await expectNoHorizontalScroll(page);
  await shot(page, testInfo, 'header-390-menu');
  await account.click();
  await expect(page.getByRole('heading', { level: 1, name: 'My account' })).toBeVisible();
  // Choosing a page folds the menu again.
  await expect(nav.getByRole('link', { name: 'Dashboard' })).not.toBeInViewport();
  await page.getByRole('button', { name: 'Toggle navigation' }).click();
  const signOut = nav.getByRole('button', { name: 'Sign out' });
  await signOut.scrollIntoViewIfNeeded();
  await signOut.click();
  await expect(page.getByRole('button', { name: 'Sign in' })).toBeVisible();
});
