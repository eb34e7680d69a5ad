import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { BodyFiles, dayOf } from '../../service/storage/bodies/body-files.js';
import { SqliteBodyBlobs } from '../../service/storage/sqlite/body-blobs.js';
import { tempDir } from '../helpers/junction.js';

const dirs: string[] = [];
async function bodies(): Promise<{ files: BodyFiles; root: string }> {
  const root = join(await tempDir('junction-bodies-'), 'bodies');
  dirs.push(root);
  return { files: new BodyFiles(root), root };
}
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

async function store(files: BodyFiles, body: Buffer | Readable, capBytes: number, bodyId = 'b1', day = '2026-11-20', channelId = 'ch1') {
  const sink = files.sink({ day, channelId, bodyId, capBytes });
  await pipeline(Buffer.isBuffer(body) ? Readable.from([body]) : body, sink.stream);
  return sink.done;
}

describe('body files', () => {
  it('stores a body and reads it back unchanged', async () => {
    const { files } = await bodies();
    const body = Buffer.from('{"resourceType":"Patient","name":"Thandi"}');
    const ref = await store(files, body, 1024);
    expect(ref).toEqual({ path: '2026-11-20/ch1/b1', size: body.length, receivedBytes: body.length, truncated: false });
    expect(await files.readText(ref)).toBe(body.toString());
  });

  it('keeps only the first capBytes of a longer body and marks it truncated', async () => {
    const { files } = await bodies();
    const ref = await store(files, Readable.from([Buffer.from('abcdef'), Buffer.from('ghij'), Buffer.from('klm')]), 8);
    expect(ref).toMatchObject({ size: 8, receivedBytes: 13, truncated: true });
    expect(await files.readText(ref)).toBe('abcdefgh');
  });

  it('writes an empty body as an empty file', async () => {
    const { files } = await bodies();
    const ref = await store(files, Buffer.alloc(0), 10);
    expect(ref).toMatchObject({ size: 0, truncated: false });
    expect(await files.readText(ref)).toBe('');
  });

  it('streams a 50 MB body without holding it in memory', async () => {
    const { files } = await bodies();
    const chunk = Buffer.alloc(64 * 1024, 0x61);
    const chunks = (50 * 1024 * 1024) / chunk.length;
    let peak = 0;
    const before = process.memoryUsage();
    async function* source() {
      for (let i = 0; i < chunks; i++) {
        if (i % 64 === 0) {
          const now = process.memoryUsage();
          peak = Math.max(peak, now.heapUsed + now.arrayBuffers - before.heapUsed - before.arrayBuffers);
        }
        yield chunk;
      }
    }
    const ref = await store(files, Readable.from(source()), 100 * 1024 * 1024);
    expect(ref).toMatchObject({ size: 50 * 1024 * 1024, truncated: false });
    expect(peak).toBeLessThan(24 * 1024 * 1024);
  });

  it('never writes outside its folder', async () => {
    const { files } = await bodies();
    expect(() => files.sink({ day: '../etc', channelId: 'ch1', bodyId: 'x', capBytes: 1 })).toThrow(RangeError);
    expect(() => files.sink({ day: '2026-11-20', channelId: '../../x', bodyId: 'x', capBytes: 1 })).toThrow(RangeError);
    expect(() => files.read({ path: '2026-11-20/ch1/../../../etc/passwd' })).toThrow(RangeError);
  });

  it('removes whole days for global retention and one channel\'s older days for maxBodyAgeDays', async () => {
    const { files, root } = await bodies();
    for (const day of ['2026-11-01', '2026-11-10', '2026-11-20']) {
      await store(files, Buffer.from('x'), 10, 'b', day, 'keep');
      await store(files, Buffer.from('y'), 10, 'b', day, 'short');
    }
    expect(await files.removeChannelBodiesBefore('short', '2026-11-15')).toEqual(['2026-11-01', '2026-11-10']);
    expect(existsSync(join(root, '2026-11-10', 'short'))).toBe(false);
    expect(existsSync(join(root, '2026-11-10', 'keep', 'b'))).toBe(true);
    expect(existsSync(join(root, '2026-11-20', 'short', 'b'))).toBe(true);
    expect(await files.removeDaysBefore('2026-11-10')).toEqual(['2026-11-01']);
    expect(await files.days()).toEqual(['2026-11-10', '2026-11-20']);
    expect(dayOf(new Date('2026-11-21T23:59:59Z'))).toBe('2026-11-21');
  });
});

describe('body files with the SQLite small-body store', () => {
  const opened: BodyFiles[] = [];
  afterEach(async () => {
    for (const files of opened.splice(0)) await files.close();
  });

  async function withStore(root?: string): Promise<{ files: BodyFiles; root: string }> {
    const at = root ?? join(await tempDir('junction-bodies-'), 'bodies');
    if (root === undefined) dirs.push(at);
    const files = new BodyFiles(at, new SqliteBodyBlobs({ file: join(at, '..', 'bodies.sqlite'), logger: pino({ level: 'silent' }) }));
    await files.open();
    opened.push(files);
    return { files, root: at };
  }

  it('keeps bodies up to 64 KB in the store and longer ones as files, and reads both back after a reopen', async () => {
    const { files, root } = await withStore();
    const small = Buffer.from('MSH|^~\\&|LAB|CLINIC|||20261120||ORU^R01|1|P|2.5\r');
    const large = Buffer.alloc(100 * 1024, 0x62);
    const smallRef = await store(files, small, 1024 * 1024, 'small');
    const largeRef = await store(files, large, 1024 * 1024, 'large');
    expect(existsSync(join(root, '2026-11-20', 'ch1', 'small'))).toBe(false);
    expect(existsSync(join(root, '2026-11-20', 'ch1', 'large'))).toBe(true);
    await files.close();
    opened.splice(0);
    const { files: again } = await withStore(root);
    expect(await again.readText(smallRef)).toBe(small.toString());
    expect((await again.readText(largeRef)).length).toBe(large.length);
    expect(await again.readText(smallRef, 3)).toBe('MSH');
  });

  it('applies global and per-channel retention to stored small bodies too', async () => {
    const { files } = await withStore();
    const refs: Record<string, Awaited<ReturnType<typeof store>>> = {};
    for (const day of ['2026-11-01', '2026-11-10', '2026-11-20']) {
      refs[`keep-${day}`] = await store(files, Buffer.from('x'), 10, 'b', day, 'keep');
      refs[`short-${day}`] = await store(files, Buffer.from('y'), 10, 'b', day, 'short');
    }
    expect(await files.days()).toEqual(['2026-11-01', '2026-11-10', '2026-11-20']);
    expect(await files.removeChannelBodiesBefore('short', '2026-11-15')).toEqual(['2026-11-01', '2026-11-10']);
    await expect(files.readText(refs['short-2026-11-10']!)).rejects.toThrow(/ENOENT/);
    expect(await files.readText(refs['keep-2026-11-10']!)).toBe('x');
    expect(await files.readText(refs['short-2026-11-20']!)).toBe('y');
    expect(await files.removeDaysBefore('2026-11-10')).toEqual(['2026-11-01']);
    expect(await files.days()).toEqual(['2026-11-10', '2026-11-20']);
    await expect(files.readText(refs['keep-2026-11-01']!)).rejects.toThrow(/ENOENT/);
  });
});
