/**
 * What only the embedded engine's body store does: where it puts each body on disk. What every engine does is in
 * bodies-contract.ts, run by bodies-engines.test.ts.
 */
import { existsSync } from 'node:fs';
import { readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
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

  it('names a moment\'s UTC day', () => {
    expect(dayOf(new Date('2026-11-21T23:59:59Z'))).toBe('2026-11-21');
    expect(dayOf(new Date('2026-11-22T01:30:00+02:00'))).toBe('2026-11-21');
  });
});
