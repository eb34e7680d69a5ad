/**
 * Backup: an admin opens the Backup page from the navigation, sees the schedule and the backups it keeps, downloads a
 * backup now, and the downloaded archive verifies whole (every entry against its manifest); the page then shows that
 * the last backup succeeded.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { verifyArchive } from '../../service/backup/restore.js';
import { test as base, expect, expectNoHorizontalScroll, shot } from './fixtures.js';

const KEPT = 'junction-backup-2026-01-02T02-00-00-000Z.tar.gz';

const test = base.extend<{ backupFolder: string }>({
  // eslint-disable-next-line no-empty-pattern
  backupFolder: async ({}, use) => {
    const folder = await mkdtemp(join(tmpdir(), 'junction-e2e-backups-'));
    // A backup the schedule wrote earlier, so the list has something to show.
    await writeFile(join(folder, KEPT), 'x'.repeat(2048));
    try {
      await use(folder);
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  },
  env: async ({ backupFolder }, use) => {
    await use({ JUNCTION_BACKUP_FOLDER: backupFolder, JUNCTION_BACKUP_SCHEDULE: '0 3 * * *', JUNCTION_BACKUP_KEEP: '5' });
  },
});

test('an admin downloads a backup that verifies, and sees the schedule', async ({ console: page, backupFolder }, testInfo) => {
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Backup' }).click();
  await expect(page.getByRole('heading', { name: 'Backup', level: 1 })).toBeVisible();
  await expect(page.getByLabel('Backup schedule')).toContainText('0 3 * * *');
  await expect(page.getByLabel('Backup schedule')).toContainText(backupFolder);
  await expect(page.getByLabel('Backup schedule')).toContainText('keeping the newest 5');
  await expect(page.getByRole('table', { name: 'Recent backups' })).toContainText(KEPT);
  await expect(page.getByRole('table', { name: 'Recent backups' })).toContainText('2.0 KB');

  const downloading = page.waitForEvent('download');
  await page.getByRole('link', { name: 'Download backup now' }).click();
  const download = await downloading;
  expect(download.suggestedFilename()).toMatch(/^junction-backup-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-\d{3}Z\.tar\.gz$/);
  const saved = testInfo.outputPath(download.suggestedFilename());
  await download.saveAs(saved);
  const manifest = await verifyArchive(saved);
  expect(manifest.entries.map((e) => e.name)).toEqual(expect.arrayContaining(['users.db', 'channels.db', 'transactions.sqlite', 'audits.sqlite']));

  await expect(page.getByLabel('Last backup')).toContainText('Last backup succeeded');
  await expectNoHorizontalScroll(page);
  await shot(page, testInfo, 'backup');
});
