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
});
