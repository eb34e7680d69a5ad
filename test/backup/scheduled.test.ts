/**
 * Backups without load: a download through the API restores (its archive verified whole), scheduled backups land in
 * `backup.folder` under dated names with only the newest `backup.keep` kept, the status lists them, and a user who is
 * not an admin is refused both routes.
 */
import { readdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyArchive } from '../../service/backup/restore.js';
import type { BackupStatus } from '../../service/contracts/backup.js';
import { basic, startJunction, tempDir, unlockRoot } from '../helpers/junction.js';
import type { TestJunction } from '../helpers/junction.js';

describe('backups', () => {
  let t: TestJunction;
  let folder: string;
  let admin: { authorization: string };

  beforeAll(async () => {
    folder = await tempDir('junction-backups-');
    // A file of someone else's in the folder is never deleted by the retention.
    await writeFile(join(folder, 'notes.txt'), 'mine');
    t = await startJunction({ backup: { folder, keep: 2, schedule: '0 3 * * *' } });
    admin = { authorization: await unlockRoot(t) };
  });

  afterAll(async () => {
    await t.destroy();
    await rm(folder, { recursive: true, force: true });
  });

  it('downloads an archive that verifies whole', async () => {
    const res = await t.junction.inject({ method: 'GET', url: '/backup', headers: admin });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-disposition']).toMatch(/^attachment; filename="junction-backup-.*\.tar\.gz"$/);
    const file = join(folder, 'download.bin');
    await writeFile(file, res.rawPayload);
    const manifest = await verifyArchive(file);
    expect(manifest.entries.map((e) => e.name)).toEqual(expect.arrayContaining(['users.db', 'transactions.sqlite', 'keystore/keystore.json', 'keystore.secret']));
    await rm(file);
  });

  it('keeps the newest backup.keep scheduled backups and lists them', async () => {
    for (let i = 0; i < 3; i++) await t.junction.runJob('backup');
    const names = (await readdir(folder)).sort();
    const backups = names.filter((n) => n.startsWith('junction-backup-'));
    expect(backups).toHaveLength(2);
    expect(names).toContain('notes.txt');
    for (const name of backups) await verifyArchive(join(folder, name));
    const status = (await t.inject('/backup/status', { headers: admin })).body as BackupStatus;
    expect(status.schedule).toEqual({ enabled: true, folder, schedule: '0 3 * * *', keep: 2 });
    expect(status.recent.map((f) => f.name)).toEqual([...backups].reverse());
    expect(status.last).toMatchObject({ trigger: 'schedule', outcome: 'succeeded' });
  });

  it('is for admins only', async () => {
    const created = await t.inject('/users', {
      method: 'POST',
      headers: admin,
      json: { email: 'clerk@clinic.example', firstname: 'C', surname: 'Lerk', groups: ['clerks'], password: 'a-long-enough-password-1' },
    });
    expect(created.status).toBe(201);
    const clerk = { authorization: basic('clerk@clinic.example', 'a-long-enough-password-1') };
    expect((await t.inject('/backup', { headers: clerk })).status).toBe(403);
    expect((await t.inject('/backup/status', { headers: clerk })).status).toBe(403);
  });
});

describe('a scheduled backup into a folder that cannot be made', () => {
  it('ends as failed, saying why, and the next backup may start', async () => {
    const dir = await tempDir('junction-backups-');
    // A file where a folder of the path should be: the folder cannot be made, nor its partial file removed.
    const blocker = join(dir, 'not-a-folder');
    await writeFile(blocker, 'x');
    const t = await startJunction({ backup: { folder: join(blocker, 'backups') } });
    try {
      const admin = { authorization: await unlockRoot(t) };
      await t.junction.runJob('backup');
      const status = (await t.inject('/backup/status', { headers: admin })).body as BackupStatus;
      expect(status.state).toBe('idle');
      expect(status.last).toMatchObject({ trigger: 'schedule', outcome: 'failed', error: expect.stringContaining('ENOTDIR') as unknown });
      // Not held by the first run: a download starts.
      expect((await t.junction.inject({ method: 'GET', url: '/backup', headers: admin })).statusCode).toBe(200);
    } finally {
      await t.destroy();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
