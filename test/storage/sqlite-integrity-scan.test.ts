/** The paced background read of every page of the transaction log: clean, damaged, stopped, and started by the log. */
import { open as openFile, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { IntegrityScan } from '../../service/storage/sqlite/integrity-scan.js';
import { createSqliteTransactionLog } from '../../service/storage/sqlite/transaction-log.js';
import { tempDir } from '../helpers/junction.js';
import { memoryLogger } from '../helpers/logger.js';
import { tx } from './transaction-log-contract.js';

const silent = pino({ level: 'silent' });
const ROWS = 400;
const CLIENTS = 3;

/** A closed log file holding ROWS transactions of about 1.5 KB each (so many table and index pages). */
async function filledLog(dir: string): Promise<string> {
  const file = join(dir, 'transactions.sqlite');
  const log = createSqliteTransactionLog({ file, logger: silent, integrityScanAfterMs: null });
  await log.open();
  const base = Date.parse('2024-05-01T00:00:00Z');
  await Promise.all(
    Array.from({ length: ROWS }, (_, i) =>
      log.insert(tx(new Date(base + i * 1000).toISOString(), { clientID: `client-${i % CLIENTS}`, properties: { note: 'x'.repeat(1500) } })),
    ),
  );
  await log.close();
  return file;
}

describe('IntegrityScan', () => {
  const dirs: string[] = [];
  afterEach(async () => {
    for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
  });
  async function dir(): Promise<string> {
    const d = await tempDir('junction-scan-');
    dirs.push(d);
    return d;
  }

  it('reads every row and index entry of a sound file, window by window, and logs that it found no damage', async () => {
    const file = await filledLog(await dir());
    const { logger, lines } = memoryLogger();
    const outcome = await new IntegrityScan({ file, logger, window: 7, pauseMs: 0 }).outcome;
    // The table and five indexes hold every transaction; days, metric buckets and finished entries come on top.
    expect(outcome).toMatchObject({ ok: true });
    if (!('ok' in outcome)) throw new Error('the scan stopped');
    expect(outcome.entries).toBeGreaterThan(ROWS * 6);
    expect(lines.find((l) => String(l.msg).includes('integrity scan read every page'))).toMatchObject({ level: 30, entries: outcome.entries });
  });

  it('reports a damaged page by name, as an error a clinic can act on', async () => {
    const file = await filledLog(await dir());
    const { size } = await stat(file);
    const pageSize = 4096;
    const handle = await openFile(file, 'r+');
    // Pages in the middle of the file (past page 1 and the first pointer-map page) overwritten, as a failing disk would.
    const middle = Math.floor(size / pageSize / 2);
    for (const page of [middle, middle + 1, middle + 2]) await handle.write(Buffer.alloc(pageSize, 0xff), 0, pageSize, page * pageSize);
    await handle.close();
    const { logger, lines } = memoryLogger();
    const outcome = await new IntegrityScan({ file, logger, window: 50, pauseMs: 0 }).outcome;
    expect(outcome).toMatchObject({ ok: false, code: 'SQLITE_CORRUPT' });
    const logged = lines.find((l) => String(l.msg).includes('found a damaged page'));
    expect(logged).toMatchObject({ level: 50, code: 'SQLITE_CORRUPT', file });
  });

  it('stops at its next pause when told, however long the pause', async () => {
    const file = await filledLog(await dir());
    const scan = new IntegrityScan({ file, logger: silent, window: 5, pauseMs: 3_600_000 });
    await scan.stop();
    expect(await scan.outcome).toEqual({ stopped: true });
  });

  it('is started by the transaction log after the delay it is given, and stopped by close', async () => {
    const file = await filledLog(await dir());
    const logged: Record<string, unknown>[] = [];
    let seen: (line: Record<string, unknown>) => void = () => undefined;
    const finished = new Promise<Record<string, unknown>>((resolve) => {
      seen = (line) => {
        if (String(line.msg).includes('integrity scan')) resolve(line);
      };
    });
    const stream = new Writable({
      write(chunk: Buffer, _enc, done) {
        for (const text of chunk.toString('utf8').split('\n')) {
          if (text.trim() === '') continue;
          const line = JSON.parse(text) as Record<string, unknown>;
          logged.push(line);
          seen(line);
        }
        done();
      },
    });
    const log = createSqliteTransactionLog({ file, logger: pino({ level: 'info' }, stream), integrityScanAfterMs: 0 });
    await log.open();
    try {
      expect(await finished).toMatchObject({ level: 30, entries: expect.any(Number) as number });
      expect(await log.count({})).toBe(ROWS);
    } finally {
      await log.close();
    }
    // A log closed before its delay ends starts no scan at all.
    const later = createSqliteTransactionLog({ file, logger: pino({ level: 'info' }, stream), integrityScanAfterMs: 60_000 });
    await later.open();
    await later.close();
    expect(logged.filter((l) => String(l.msg).includes('integrity scan'))).toHaveLength(1);
  });
});
