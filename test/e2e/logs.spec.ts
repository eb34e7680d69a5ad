import { expect, expectNoHorizontalScroll, shot, test } from './fixtures.js';

test.describe('logs', () => {
  test('shows Junction\'s own log lines by level, with their details, and follows new lines', async ({ console: page, junction }, testInfo) => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Logs' }).click();
    await expect(page.getByRole('heading', { name: 'Logs', level: 1 })).toBeVisible();

    // The service's start-up lines are in the last five minutes, at info.
    const lines = page.getByRole('table', { name: 'Log lines' });
    const ready = lines.getByRole('row').filter({ hasText: 'Junction is ready' });
    await expect(ready).toHaveCount(1);
    await expect(ready.getByText('info', { exact: true })).toBeVisible();

    // Its details open as JSON.
    await ready.getByRole('button', { name: 'Details' }).click();
    await expect(ready.getByLabel('Line details')).toContainText('"apiUrl"');
    await ready.getByRole('button', { name: 'Hide details' }).click();

    // Errors only: the start-up lines go.
    await page.getByRole('combobox', { name: 'Level', exact: true }).click();
    await page.getByRole('option', { name: 'Errors only' }).click();
    await expect(page.getByText('Junction is ready')).toHaveCount(0);
    await page.getByRole('combobox', { name: 'Level', exact: true }).click();
    await page.getByRole('option', { name: 'Info and above' }).click();
    await expect(ready).toHaveCount(1);

    // Following: a line written now appears without a reload.
    await page.getByRole('switch', { name: 'Follow new lines' }).check();
    await expect(page.getByText(/^Following: /)).toBeVisible();
    const created = await junction.api('POST', '/channels', {
      name: 'Followed channel',
      urlPattern: '^/followed$',
      authType: 'public',
      routes: [{ name: 'up', host: '127.0.0.1', port: 9, primary: true }],
    });
    expect(created.status).toBe(201);
    const createdLine = lines.getByRole('row').filter({ hasText: 'channel created' }).filter({ hasText: 'Followed channel' });
    await expect(createdLine).toHaveCount(1);
    // The page's own polls are not logged at info, so following does not fill the page with itself.
    await expect(lines.getByRole('row').filter({ hasText: '/logs' })).toHaveCount(0);

    await expectNoHorizontalScroll(page);
    await shot(page, testInfo, 'logs');
  });

  test('shows the newest line first, finds lines by a word, and leaves out the console\'s own reads', async ({ console: page, junction }, testInfo) => {
    for (const [name, path] of [['Older channel', 'older'], ['Newer channel', 'newer']]) {
      const created = await junction.api('POST', '/channels', { name, urlPattern: `^/${path}$`, routes: [{ name: 'up', host: '127.0.0.1', port: 9, primary: true }] });
      expect(created.status).toBe(201);
    }
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Logs' }).click();
    await expect(page.getByRole('heading', { name: 'Logs', level: 1 })).toBeVisible();
    const lines = page.getByRole('table', { name: 'Log lines' });
    const created = lines.getByRole('row').filter({ hasText: 'channel created' });
    await expect(created).toHaveCount(2);
    // Newest first: the channel made last is on top, and the start-up lines are below both.
    await expect(created.nth(0)).toContainText('Newer channel');
    await expect(created.nth(1)).toContainText('Older channel');
    const rows = lines.getByRole('row');
    const texts = await rows.allTextContents();
    expect(texts.findIndex((t) => t.includes('Newer channel'))).toBeLessThan(texts.findIndex((t) => t.includes('Junction is ready')));
    await expect(page.getByText(/^Lines 1–\d+, newest first$/)).toBeVisible();
    // The console read the channels, users and more to show its pages: none of those successful reads is a line here.
    await expect(rows.filter({ hasText: 'method=GET' }).filter({ hasText: 'statusCode=200' })).toHaveCount(0);
    // The API's changes are.
    await expect(rows.filter({ hasText: 'method=POST' }).filter({ hasText: 'url=/channels' })).toHaveCount(2);

    // Search: a word in the message or its details, in any case.
    await page.getByRole('textbox', { name: /^Search/ }).fill('older CHANNEL');
    await expect(created).toHaveCount(1);
    await expect(created).toContainText('Older channel');
    await expect(lines.getByText('Junction is ready')).toHaveCount(0);
    await shot(page, testInfo, 'logs-search');
    await page.getByRole('textbox', { name: /^Search/ }).fill('no line says this');
    await expect(page.getByText('No log lines at this level in this time contain “no line says this”.', { exact: false })).toBeVisible();
    await page.getByRole('textbox', { name: /^Search/ }).fill('');
    await expect(created).toHaveCount(2);
    await expectNoHorizontalScroll(page);
  });
});
