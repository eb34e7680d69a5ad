/**
 * The Import/Export page: an admin downloads the export (plain, then with secrets under a passphrase), then imports a
 * file into the same Junction: the check shows what is new and what already exists, a conflict is kept, overwritten
 * or imported as a copy under a new name, and the results say what happened to each record.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { expect, expectNoHorizontalScroll, shot, test } from './fixtures.js';

test('an admin exports the configuration and imports a file with the validate-then-choose flow', async ({ console: page, junction }, testInfo) => {
  const created = async (path: string, body: unknown) => {
    const res = await junction.api('POST', path, body);
    expect(res.status, res.text).toBe(201);
  };
  await created('/groups', { group: 'Lab on-call', users: [{ user: 'ops@clinic.example', method: 'email' }] });
  await created('/channels', { name: 'Lab results', urlPattern: '^/lab$', routes: [{ name: 'lab', host: '127.0.0.1', port: 9876, primary: true, password: 'route-secret-1' }] });

  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Import/Export' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Import/Export' })).toBeVisible();

  // A plain export: the file holds the channel, but not its route password.
  const plainDownload = page.waitForEvent('download');
  await page.getByRole('button', { name: 'Download export' }).click();
  const plain = await plainDownload;
  expect(plain.suggestedFilename()).toMatch(/^junction-export-\d{4}-\d{2}-\d{2}\.json$/);
  const plainText = await readFile(await plain.path(), 'utf8');
  expect(plainText).toContain('Lab results');
  expect(plainText).not.toContain('route-secret-1');

  // With secrets: the passphrase must be long enough and typed twice alike before anything is sent.
  await page.getByLabel('Include secrets, encrypted with a passphrase').check();
  await page.getByLabel('Passphrase', { exact: true }).fill('short');
  await expect(page.getByText('Use at least 10 characters')).toBeVisible();
  await expect(page.getByRole('button', { name: 'Download export' })).toBeDisabled();
  await page.getByLabel('Passphrase', { exact: true }).fill('clinic export passphrase');
  await page.getByLabel('Repeat the passphrase').fill('clinic export passphrase');
  const sealedDownload = page.waitForEvent('download');
  await page.getByRole('button', { name: 'Download export' }).click();
  const sealedText = await readFile(await (await sealedDownload).path(), 'utf8');
  expect(sealedText).toContain('encryptedSecrets');
  expect(sealedText).not.toContain('route-secret-1');

  // Import a file holding the existing channel twice over (kept and copied), a changed group, and a new client.
  const file = JSON.parse(sealedText) as [Record<string, Record<string, unknown>[]>];
  const [channel] = file[0].Channels ?? [];
  const [group] = file[0].ContactGroups ?? [];
  const body = {
    Channels: [channel],
    ContactGroups: [{ ...group, users: [{ user: 'night@clinic.example', method: 'email', maxAlerts: 'no max' }] }],
    Clients: [{ clientID: 'radiology', name: 'Radiology system', roles: ['imaging'] }],
  };
  const path = testInfo.outputPath('import.json');
  await writeFile(path, JSON.stringify([body]));
  await page.getByLabel('Export file').setInputFiles(path);
  // The channel carries sealed secrets: the passphrase is asked for.
  await page.getByLabel('Passphrase of the export').fill('clinic export passphrase');
  await page.getByRole('button', { name: 'Check file' }).click();

  const records = page.getByRole('table', { name: 'Records in the file' });
  await expect(records.getByRole('row').filter({ hasText: 'radiology' })).toContainText('New');
  await expect(records.getByRole('row').filter({ hasText: 'Lab results' })).toContainText('Already exists');
  await expect(page.getByLabel('What to do with Channel Lab results')).toHaveValue('ignore');
  await page.getByLabel('What to do with Channel Lab results').selectOption('duplicate');
  await page.getByLabel('New name for the copy of Channel Lab results').fill('Lab results');
  await expect(page.getByText('This name is already used; choose another')).toBeVisible();
  await page.getByLabel('New name for the copy of Channel Lab results').fill('Lab results (copy)');
  await page.getByLabel('What to do with Contact group Lab on-call').selectOption('overwrite');
  await expectNoHorizontalScroll(page);
  await shot(page, testInfo, 'import-choices');
  await page.getByRole('button', { name: 'Import 3 records' }).click();

  const results = page.getByRole('table', { name: 'Import results' });
  await expect(page.getByRole('status').filter({ hasText: '3 imported' })).toBeVisible();
  await expect(results.getByRole('row').filter({ hasText: 'Lab on-call' })).toContainText('Overwritten');
  await expect(results.getByRole('row').filter({ hasText: 'Lab results (copy)' })).toContainText('Added');
  await expect(results.getByRole('row').filter({ hasText: 'radiology' })).toContainText('Added');
  await shot(page, testInfo, 'import-results');

  // What the service now holds: the copy has the original's route password (opened with the passphrase).
  const channels = (await junction.api('GET', '/channels')).json as { name: string; routes: { password?: string }[] }[];
  expect(channels.map((c) => c.name).sort()).toEqual(['Lab results', 'Lab results (copy)']);
  expect(channels.find((c) => c.name === 'Lab results (copy)')?.routes[0]?.password).toBe('********');
  const groups = (await junction.api('GET', '/groups')).json as { group: string; users: { user: string }[] }[];
  expect(groups).toEqual([expect.objectContaining({ group: 'Lab on-call', users: [expect.objectContaining({ user: 'night@clinic.example' })] })]);
  expect((await junction.api('GET', '/clients/radiology?byNamedClientID=true')).status).toBe(200);
});
