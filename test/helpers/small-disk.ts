/**
 * A small filesystem of its own for tests of a full disk: a tmpfs of the given size, or (where tmpfs cannot be
 * mounted) an ext4 image on a loop device. Neither possible is a clear failure, never a silent skip: the tests that
 * use it are the only proof that a full disk loses nothing.
 */
import { execFileSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface SmallDisk {
  dir: string;
  /** Unmounts and removes it. */
  remove(): void;
}

function run(command: string, args: string[]): void {
  execFileSync(command, args, { stdio: ['ignore', 'ignore', 'pipe'] });
}

export function mountSmallDisk(sizeMiB: number): SmallDisk {
  const dir = mkdtempSync(join(tmpdir(), 'junction-small-disk-'));
  const problems: string[] = [];
  try {
    run('mount', ['-t', 'tmpfs', '-o', `size=${sizeMiB}m,mode=0700`, 'tmpfs', dir]);
    return { dir, remove: () => unmount(dir) };
  } catch (err) {
    problems.push(`mount -t tmpfs: ${(err as Error).message}`);
  }
  const image = `${dir}.img`;
  try {
    run('truncate', ['-s', `${sizeMiB}M`, image]);
    run('mkfs.ext4', ['-q', '-F', image]);
    run('mount', ['-o', 'loop', image, dir]);
    return {
      dir,
      remove: () => {
        unmount(dir);
        rmSync(image, { force: true });
      },
    };
  } catch (err) {
    problems.push(`a loop-mounted ext4 image: ${(err as Error).message}`);
  }
  rmSync(image, { force: true });
  rmSync(dir, { recursive: true, force: true });
  throw new Error(`this test needs a small filesystem of its own and could mount none (run it as root, as CI does):\n${problems.join('\n')}`);
}

function unmount(dir: string): void {
  try {
    run('umount', [dir]);
  } catch {
    run('umount', ['-l', dir]);
  }
  rmSync(dir, { recursive: true, force: true });
}

/** Fills the filesystem of `dir` with a file `name` until a write fails with ENOSPC; returns the file's path. */
export function fillDisk(dir: string, name = 'filler'): string {
  const path = join(dir, name);
  const fd = openSync(path, 'a');
  const chunk = Buffer.alloc(64 * 1024, 1);
  try {
    for (let size = chunk.length; size >= 512; ) {
      try {
        writeSync(fd, chunk, 0, size);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOSPC') throw err;
        size /= 2;
      }
    }
  } finally {
    closeSync(fd);
  }
  return path;
}
