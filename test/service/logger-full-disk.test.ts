/**
 * Issue 33: a log file on a full disk must not end the process. pino's file transport runs in a worker that exits on
 * ENOSPC and then errors on every write; unheard, that error ended Junction. Here the failure is reported once (to
 * stderr, and as a problem for /health), lines are dropped meanwhile, and the file writer starts again by itself
 * once there is space.
 */
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createLogger } from '../../service/logger.js';
import { fillDisk, mountSmallDisk } from '../helpers/small-disk.js';
import type { SmallDisk } from '../helpers/small-disk.js';
import { until } from '../helpers/wait.js';

describe('a log file on a full disk', () => {
  let disk: SmallDisk;

  beforeAll(() => {
    disk = mountSmallDisk(2);
  });
  afterAll(() => disk.remove());

  it('is reported once, never ends the process, and writes again once space is back', async () => {
    const stderr = vi.spyOn(process.stderr, 'write');
    const logsDir = join(disk.dir, 'logs');
    const log = createLogger({ level: 'info', fileDir: logsDir, maxSizeMB: 100, maxFiles: 3, stdout: false, retry: { firstMs: 50, maxMs: 200, healthyAfterMs: 100 } });
    try {
      log.logger.info('before the disk filled');
      // The file exists before the worker has written its first line: wait for the line itself, or the disk could fill first.
      const written = (): string => (existsSync(logsDir) ? readdirSync(logsDir).filter((f) => f.endsWith('.log')).map((f) => readFileSync(join(logsDir, f), 'utf8')).join('') : '');
      await until('the first line in the log file', () => written().includes('before the disk filled') || undefined);
      const filler = fillDisk(disk.dir);
      // Enough lines to be sure the worker has tried to write after the disk filled, over several retries.
      for (let round = 0; round < 20; round++) {
        for (let i = 0; i < 50; i++) log.logger.info({ pad: 'x'.repeat(500), round, i }, 'while the disk is full');
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      await until('the problem reported', () => log.problems().length > 0 || undefined);
      expect(log.problems()[0]).toMatch(/log file .*ENOSPC/);
      const reports = stderr.mock.calls.filter(([text]) => String(text).includes('log lines are dropped'));
      expect(reports).toHaveLength(1);

      rmSync(filler);
      await until('the log file writing again', () => log.problems().length === 0 || undefined);
      log.logger.info('after space came back');
      await log.close();
      const file = written();
      expect(file).toContain('before the disk filled');
      expect(file).toContain('after space came back');
    } finally {
      stderr.mockRestore();
      await log.close();
    }
  });
});
