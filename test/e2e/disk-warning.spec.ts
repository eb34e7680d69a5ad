/** Issue 33: while the data folder is low on space, admins see it on every page (here the warning threshold is above any disk). */
import { expect, test } from './fixtures.js';

test.use({ env: { JUNCTION_STORAGE_DISK_WARNING_MB: '10485760' } });

test('admins see the low disk space banner on every page', async ({ console: page }) => {
  const banner = page.getByRole('alert').filter({ hasText: 'Junction needs attention' });
  await expect(banner).toBeVisible();
  await expect(banner).toContainText(/free in the data folder, below the warning threshold/);
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Channels' }).click();
  await expect(page.getByRole('heading', { name: 'Channels', level: 1 })).toBeVisible();
  await expect(banner).toBeVisible();
});
