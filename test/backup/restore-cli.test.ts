/**
 * `junction restore`: the built entry point restores an archive into a new folder and exits 0; it refuses a folder
 * that is not empty (exit 1, nothing written), a damaged archive (exit 1) and wrong arguments (exit 64).
 */
import { createWriteStream } from 'node:fs';
import { mkdir, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeArchive } from '../../service/backup/archive-writer.js';
import { tempDir } from '../helpers/junction.js';
import { runService } from '../helpers/process.js';

async function restore(args: string[]): Promise<{ code: number | null; out: string; err: string }> {
  const run = runService(['restore', ...args], {});
  run.ready.catch(() => undefined);
  const { code } = await run.exited;
  return { code, out: run.stdout(), err: run.stderr() };
}

describe('junction restore', () => {
  let dir: string;
  let archive: string;

  beforeAll(async () => {
    dir = await tempDir('junction-restore-cli-');
    await writeFile(join(dir, 'users.db'), '{"_id":"u"}\n');
    archive = join(dir, 'backup.tar.gz');
    await writeArchive({ sources: [{ name: 'users.db', path: join(dir, 'users.db') }], out: createWriteStream(archive), junctionVersion: '9.9.9-test', created: new Date() });
  });

  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('restores into a new folder', async () => {
    const target = join(dir, 'new');
    const { code, out } = await restore([archive, '--data-dir', target]);
    expect(code).toBe(0);
    expect(out).toMatch(/Restored 1 files/);
    expect(await readFile(join(target, 'users.db'), 'utf8')).toBe('{"_id":"u"}\n');
  });

  it('refuses a folder that is not empty, and a damaged archive', async () => {
    const full = join(dir, 'full');
    await mkdir(full);
    await writeFile(join(full, 'x'), 'x');
    const refused = await restore([archive, '--data-dir', full]);
    expect(refused.code).toBe(1);
    expect(refused.err).toMatch(/Restore refused: the data folder .* is not empty/);
    expect(await readdir(full)).toEqual(['x']);

    const damaged = join(dir, 'damaged.tar.gz');
    const bytes = await readFile(archive);
    await writeFile(damaged, bytes.subarray(0, bytes.length - 20));
    const result = await restore([damaged, '--data-dir', join(dir, 'other')]);
    expect(result.code).toBe(1);
    expect(result.err).toMatch(/Restore refused: the archive is (truncated|damaged)/);
  });

  it('explains its arguments', async () => {
    const { code, err } = await restore([]);
    expect(code).toBe(64);
    expect(err).toMatch(/usage: junction restore <archive.tar.gz>/);
  });
});
