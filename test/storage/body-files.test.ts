/**
 * What only the embedded engine's body store does: where it puts each body on disk. What every engine does is in
 * bodies-contract.ts, run by bodies-engines.test.ts.
 */
import { existsSync } from 'node:fs';
import { readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { dayOf } from '../../service/storage/bodies/bodies.js';
import { BodyFiles } from '../../service/storage/bodies/body-files.js';
import { SqliteBodyBlobs } from '../../service/storage/sqlite/body-blobs.js';
import { tempDir } from '../helpers/junction.js';

const dirs: string[] = [];
const opened: BodyFiles[] = [];
afterEach(async () => {
  for (const files of opened.splice(0)) await files.close();
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

async function bodies(withSmallStore: boolean): Promise<{ files: BodyFiles; root: string }> {
  const dir = await tempDir('junction-bodies-');
  dirs.push(dir);
  const root = join(dir, 'bodies');
  const files = new BodyFiles(root, withSmallStore ? new SqliteBodyBlobs({ file: join(dir, 'bodies.sqlite'), logger: pino({ level: 'silent' }) }) : undefined);
  await files.open();
  opened.push(files);
  return { files, root };
}

async function store(files: BodyFiles, body: Buffer, capBytes: number, bodyId = 'b1', day = '2026-11-20', channelId = 'ch1') {
  const sink = files.sink({ day, channelId, bodyId, capBytes });
  await pipeline(Readable.from([body]), sink.stream);
  return sink.done;
}

describe('body files', () => {
  it('keeps bodies up to 64 KB in the SQLite store and longer ones as files named by their path', async () => {
    const { files, root } = await bodies(true);
    await store(files, Buffer.from('MSH|^~\\&|LAB|CLINIC|||20261120||ORU^R01|1|P|2.5\r'), 1024 * 1024, 'small');
    await store(files, Buffer.alloc(100 * 1024, 0x62), 1024 * 1024, 'large');
    expect(existsSync(join(root, '2026-11-20', 'ch1', 'small'))).toBe(false);
    expect(existsSync(join(root, '2026-11-20', 'ch1', 'large'))).toBe(true);
  });

  it('writes every body as a file without a small-body store, an empty one too', async () => {
    const { files, root } = await bodies(false);
    await store(files, Buffer.alloc(0), 10, 'empty');
    await store(files, Buffer.from('x'), 10, 'tiny');
    expect(await readdir(join(root, '2026-11-20', 'ch1'))).toEqual(['empty', 'tiny']);
  });

  it('removes the half-written file of an aborted large body, leaving nothing in its folder', async () => {
    const { files, root } = await bodies(true);
    const sink = files.sink({ day: '2026-11-20', channelId: 'ch1', bodyId: 'cut', capBytes: 1024 * 1024 });
    for (let i = 0; i < 3; i++) await new Promise<void>((resolve, reject) => sink.stream.write(Buffer.alloc(64 * 1024, 0x63), (err) => (err ? reject(err) : resolve())));
    expect(await readdir(join(root, '2026-11-20', 'ch1'))).toEqual(['cut.part']);
    sink.stream.destroy(new Error('cut short'));
    await new Promise((resolve) => sink.stream.once('close', resolve));
    await expect(sink.done).rejects.toThrow('cut short');
    expect(await readdir(join(root, '2026-11-20', 'ch1'))).toEqual([]);
  });

  it('removes whole day folders for global retention and one channel\'s folders for maxBodyAgeDays', async () => {
    const { files, root } = await bodies(false);
    for (const day of ['2026-11-01', '2026-11-10', '2026-11-20']) {
      await store(files, Buffer.from('x'), 10, 'b', day, 'keep');
      await store(files, Buffer.from('y'), 10, 'b', day, 'short');
    }
    expect(await files.removeChannelBodiesBefore('short', '2026-11-15')).toEqual(['2026-11-01', '2026-11-10']);
    expect(existsSync(join(root, '2026-11-10', 'short'))).toBe(false);
    expect(existsSync(join(root, '2026-11-10', 'keep', 'b'))).toBe(true);
    expect(existsSync(join(root, '2026-11-20', 'short', 'b'))).toBe(true);
    expect(await files.removeDaysBefore('2026-11-10')).toEqual(['2026-11-01']);
    expect(existsSync(join(root, '2026-11-01'))).toBe(false);
  });

  it('finds a channel\'s small bodies by path prefix alone, not those of a channel whose id starts the same', async () => {
    const { files } = await bodies(true);
    for (const channelId of ['ch', 'ch-2', 'ch0', 'chx']) {
      await store(files, Buffer.from(channelId), 10, 'b', '2026-11-01', channelId);
      await store(files, Buffer.from(channelId), 10, 'b', '2026-11-02', channelId);
    }
    expect(await files.removeChannelBodiesBefore('ch', '2026-11-02')).toEqual(['2026-11-01']);
    await expect(files.readText({ path: '2026-11-01/ch/b' })).rejects.toMatchObject({ code: 'ENOENT' });
    for (const channelId of ['ch-2', 'ch0', 'chx']) expect(await files.readText({ path: `2026-11-01/${channelId}/b` })).toBe(channelId);
    expect(await files.readText({ path: '2026-11-02/ch/b' })).toBe('ch');
    expect(await files.days()).toEqual(['2026-11-01', '2026-11-02']);
  });

  it('reads a bodies.sqlite written before, dropping its (day, channel) index, and still applies retention to it', async () => {
    const dir = await tempDir('junction-bodies-');
    dirs.push(dir);
    const file = join(dir, 'bodies.sqlite');
    // The layout Junction wrote before issue 19's second pass, with its rows.
    const old = new Database(file);
    old.pragma('auto_vacuum = INCREMENTAL');
    old.pragma('journal_mode = WAL');
    old.exec(`CREATE TABLE bodies (path TEXT NOT NULL UNIQUE, day TEXT NOT NULL, channel TEXT NOT NULL, data BLOB NOT NULL);
      CREATE INDEX bodies_day_channel ON bodies (day, channel);`);
    const put = old.prepare('INSERT INTO bodies (path, day, channel, data) VALUES (?, ?, ?, ?)');
    for (const day of ['2026-10-30', '2026-10-31']) for (const channel of ['a', 'b']) put.run(`${day}/${channel}/x`, day, channel, Buffer.from(`${day} ${channel}`));
    old.close();

    const files = new BodyFiles(join(dir, 'bodies'), new SqliteBodyBlobs({ file, logger: pino({ level: 'silent' }) }));
    await files.open();
    opened.push(files);
    expect(await files.readText({ path: '2026-10-31/b/x' })).toBe('2026-10-31 b');
    expect(await files.days()).toEqual(['2026-10-30', '2026-10-31']);
    expect(await files.removeChannelBodiesBefore('a', '2026-10-31')).toEqual(['2026-10-30']);
    expect(await files.removeDaysBefore('2026-10-31')).toEqual(['2026-10-30']);
    expect(await files.days()).toEqual(['2026-10-31']);
    expect(await files.readText({ path: '2026-10-31/a/x' })).toBe('2026-10-31 a');
    await expect(files.readText({ path: '2026-10-30/b/x' })).rejects.toMatchObject({ code: 'ENOENT' });

    const check = new Database(file, { readonly: true });
    try {
      expect(check.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND name = 'bodies_day_channel'").all()).toEqual([]);
    } finally {
      check.close();
    }
  });

  it('names a moment\'s UTC day', () => {
    expect(dayOf(new Date('2026-11-21T23:59:59Z'))).toBe('2026-11-21');
    expect(dayOf(new Date('2026-11-22T01:30:00+02:00'))).toBe('2026-11-21');
  });
});
