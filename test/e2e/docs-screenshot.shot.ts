/**
 * Takes the README's picture of the dashboard (docs/images/dashboard.png): a real Junction on a fresh data folder,
 * the lab client and channels of the console tests with a real upstream, and a few requests sent through the HTTP
 * transaction port, some of them failing, as a clinic's first day looks. Run by `npm run docs:screenshot`
 * (test/e2e/screenshot.config.ts), never by `npm test`: it writes a file in the repository. Debian's pngquant, when
 * installed, brings the picture to about a third of its size with no visible change.
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { expect, test } from './fixtures.js';
import { setupLab } from './transactions-setup.js';

const PICTURE = join(import.meta.dirname, '../../docs/images/dashboard.png');

test('the dashboard, for the README', async ({ console: page, junction }) => {
  const lab = await setupLab(junction);
  try {
    for (const path of ['/lab/json/1', '/lab/xml/2', '/lab/json/3', '/lab/hl7/4', '/lab/json/5', '/lab/mediated/6']) await lab.send(path);
    await lab.send('/lab/json/7', { method: 'POST', body: '{"patient":"123"}', contentType: 'application/json' });
    await lab.send('/lab/fail/8');
    await lab.send('/pharmacy/orders/9');
    // A fresh page load, so the Get started guide reads the channel and client that now exist and stands aside.
    await page.goto(`${junction.apiUrl}/#/`);
    await page.reload();
    await expect(page.getByRole('heading', { name: 'Dashboard' })).toBeVisible();
    await expect(page.getByRole('heading', { name: 'Get started' })).toBeHidden({ timeout: 30_000 });
    await expect(page.getByRole('link', { name: 'Successful 8', exact: true })).toBeVisible();
    await expect(page.getByRole('region', { name: 'Live feed' }).getByRole('listitem')).toHaveCount(9);
    await expect(page.getByLabel('Live feed: Live')).toBeVisible();
    // The charts draw once their figures arrive; the page is still when nothing is loading any more.
    await page.waitForLoadState('networkidle');
    await page.screenshot({ path: PICTURE, fullPage: true });
    compress(PICTURE);
  } finally {
    await lab.close();
  }
});

/** Quantizes the picture in place with pngquant; says so when pngquant is missing rather than committing a larger file quietly. */
function compress(file: string): void {
  try {
    execFileSync('pngquant', ['--quality', '70-95', '--speed', '1', '--strip', '--force', '--output', file, file]);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    console.warn(`pngquant is not installed (apt-get install pngquant): ${file} is left uncompressed`);
  }
}
