/**
 * The archive on its own: what is written restores byte for byte, and restore refuses (writing nothing) a truncated
 * archive, a corrupted byte, an entry that would land outside the folder, and a folder that is not empty.
 */
import { createWriteStream } from 'node:fs';
import { mkdir, readFile, readdir, rm, stat, truncate, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import tar from 'tar-stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { writeArchive } from '../../service/backup/archive-writer.js';
import { restoreArchive, verifyArchive } from '../../service/backup/restore.js';
import { MANIFEST_NAME } from '../../service/domain/operations/backup.js';
import { tempDir } from '../helpers/junction.js';

let dir: string;
let archive: string;

beforeEach(async () => {
  dir = await tempDir('junction-archive-');
  archive = join(dir, 'backup.tar.gz');
  await mkdir(join(dir, 'src', 'bodies', 'day'), { recursive: true });
  await writeFile(join(dir, 'src', 'users.db'), '{"_id":"a"}\n');
  // Large enough to span many chunks, and not compressible to nothing.
  const big = Buffer.alloc(3 * 1024 * 1024);
  for (let i = 0; i < big.length; i++) big[i] = (i * 2654435761) >>> 24;
  await writeFile(join(dir, 'src', 'bodies', 'day', 'big'), big);
  await writeFile(join(dir, 'src', 'bodies', 'day', 'empty'), '');
  await writeArchive({
    sources: [
      { name: 'users.db', path: join(dir, 'src', 'users.db') },
      { name: 'bodies/day/big', path: join(dir, 'src', 'bodies', 'day', 'big') },
      { name: 'bodies/day/empty', path: join(dir, 'src', 'bodies', 'day', 'empty') },
      { name: 'bodies/day/gone', path: join(dir, 'src', 'bodies', 'day', 'gone') },
    ],
    out: createWriteStream(archive),
    junctionVersion: '9.9.9-test',
    created: new Date('2026-11-24T10:00:00Z'),
  });
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('a backup archive', () => {
  it('restores every file byte for byte, leaving out a file that was gone', async () => {
    const manifest = await verifyArchive(archive);
    expect(manifest.entries.map((e) => e.name)).toEqual(['users.db', 'bodies/day/big', 'bodies/day/empty']);
    const target = join(dir, 'restored');
    await restoreArchive(archive, target);
    expect(await readFile(join(target, 'users.db'), 'utf8')).toBe('{"_id":"a"}\n');
    expect((await readFile(join(target, 'bodies', 'day', 'big'))).equals(await readFile(join(dir, 'src', 'bodies', 'day', 'big')))).toBe(true);
    expect((await stat(join(target, 'bodies', 'day', 'empty'))).size).toBe(0);
    expect((await readdir(target)).sort()).toEqual(['bodies', 'users.db']);
  });

  it('is refused when truncated, and nothing is written', async () => {
    const { size } = await stat(archive);
    for (const keep of [size - 1, Math.floor(size / 2), 100]) {
      await truncate(archive, keep);
      const target = join(dir, `restored-${keep}`);
      await expect(restoreArchive(archive, target)).rejects.toThrow(/truncated|damaged/);
      await expect(stat(target)).rejects.toThrow(/ENOENT/);
    }
  });

  it('is refused when one byte is changed, and an existing empty folder stays empty', async () => {
    const original = await readFile(archive);
    const target = join(dir, 'empty-target');
    await mkdir(target);
    for (const at of [20, Math.floor(original.length / 3), original.length - 12, original.length - 3]) {
      const damaged = Buffer.from(original);
      damaged[at] = (damaged[at] ?? 0) ^ 0x5a;
      await writeFile(archive, damaged);
      await expect(restoreArchive(archive, target), `byte ${at}`).rejects.toThrow(/damaged|truncated|manifest/);
      expect(await readdir(target)).toEqual([]);
    }
  });

  it('is never restored into a folder that holds anything', async () => {
    const target = join(dir, 'full');
    await mkdir(target);
    await writeFile(join(target, 'keep-me'), 'x');
    await expect(restoreArchive(archive, target)).rejects.toThrow(/not empty/);
    expect(await readdir(target)).toEqual(['keep-me']);
  });

  it('refuses an entry that would be written outside the folder', async () => {
    const pack = tar.pack();
    const crafted = join(dir, 'crafted.tar.gz');
    const done = pipeline(pack, createGzip(), createWriteStream(crafted));
    pack.entry({ name: '../escape', size: 1 }, 'x');
    pack.entry({ name: MANIFEST_NAME, size: 2 }, '{}');
    pack.finalize();
    await done;
    const target = join(dir, 'target');
    await expect(restoreArchive(crafted, target)).rejects.toThrow(/not a plain relative path/);
    await expect(stat(join(dir, 'escape'))).rejects.toThrow(/ENOENT/);
    await expect(stat(target)).rejects.toThrow(/ENOENT/);
  });

  it('refuses a file that is not an archive', async () => {
    await writeFile(archive, 'hello, this is not gzip');
    await expect(verifyArchive(archive)).rejects.toThrow(/damaged/);
  });
});
