/** What only the SQLite transaction log does: background checkpoints, and refusing a damaged file by name. */
import { rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { StoreOpenError } from '../../service/storage/store.js';
import { createSqliteTransactionLog } from '../../service/storage/sqlite/transaction-log.js';
import type { TransactionLog } from '../../service/storage/transactions.js';
import { tempDir } from '../helpers/junction.js';
import { tx } from './transaction-log-contract.js';

const silent = pino({ level: 'silent' });

describe('SQLite transaction log', () => {
  const dirs: string[] = [];
  const logs: TransactionLog[] = [];

  afterEach(async () => {
    for (const log of logs.splice(0)) await log.close();
    for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
  });

  async function open(file: string, checkpointIntervalMs?: number): Promise<TransactionLog> {
    const log = createSqliteTransactionLog({ file, logger: silent, checkpointIntervalMs });
    logs.push(log);
    await log.open();
    return log;
  }

  it('moves committed pages from the write-ahead log into the database file in the background', async () => {
    const dir = await tempDir('junction-sqlite-');
    dirs.push(dir);
    const file = join(dir, 'transactions.sqlite');
    const log = await open(file, 50);
    const before = (await stat(file)).size;
    const base = Date.parse('2024-05-01T00:00:00Z');
    await Promise.all(Array.from({ length: 2000 }, (_, i) => log.insert(tx(new Date(base + i * 1000).toISOString()))));
    // The service's own connection never checkpoints, so only the worker can have grown the main file.
    let after = before;
    for (let i = 0; i < 100 && after <= before + 500_000; i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      after = (await stat(file)).size;
    }
    expect(after).toBeGreaterThan(before + 500_000);
    expect(await log.count({})).toBe(2000);
  });

  it('runs filters that read inside the documents window by window, with the same answers as in one statement', async () => {
    const dir = await tempDir('junction-sqlite-');
    dirs.push(dir);
    const log = createSqliteTransactionLog({ file: join(dir, 'transactions.sqlite'), logger: silent, scanWindowRows: 7 });
    logs.push(log);
    await log.open();
    const base = Date.parse('2024-05-01T00:00:00Z');
    const docs = Array.from({ length: 40 }, (_, i) => {
      const at = new Date(base + Math.floor(i / 2) * 1000);
      // Two per second, so windows end between rows of the same time; every third has a failing route.
      const route = { name: 'r', request: { path: '/r', querystring: '', method: 'GET', headers: {}, timestamp: at }, response: { status: i % 3 === 0 ? 502 : 200, headers: {}, timestamp: at } };
      return tx(at.toISOString(), { channelID: i % 2 === 0 ? 'even' : 'odd', routes: [route] });
    });
    for (const doc of docs) await log.insert(doc);
    const newest = [...docs].sort((a, b) => b.request.timestamp.getTime() - a.request.timestamp.getTime() || b._id.localeCompare(a._id));
    const failing = newest.filter((d) => d.routes[0]?.response?.status === 502).map((d) => d._id);
    const filter = { routes: { statusCode: '5xx' } };
    expect(await log.count(filter)).toBe(failing.length);
    expect((await log.page(filter, { limit: 5, skip: 3 })).map((d) => d._id)).toEqual(failing.slice(3, 8));
    expect((await log.page(filter, { limit: 100 })).map((d) => d._id)).toEqual(failing);
    const streamed: string[] = [];
    for await (const doc of log.stream(filter, { limit: 4, skip: 2 })) streamed.push(doc._id);
    expect(streamed).toEqual(failing.slice(2, 6));
    const evenFailing = newest.filter((d) => d.channelID === 'even' && d.routes[0]?.response?.status === 502).map((d) => d._id);
    expect((await log.page({ ...filter, channelID: ['even'] }, { limit: 100 })).map((d) => d._id)).toEqual(evenFailing);
    expect(await log.count({ ...filter, channelID: ['even'] })).toBe(evenFailing.length);
  });

  it('upgrades a file whose finished entries predate `changed` in place, and names changed transactions again', async () => {
    const dir = await tempDir('junction-sqlite-');
    dirs.push(dir);
    const file = join(dir, 'transactions.sqlite');
    const first = await open(file);
    const done = await first.insert(tx('2024-05-01T10:00:00Z'));
    await first.close();
    logs.splice(0);
    const raw = new Database(file);
    raw.exec('ALTER TABLE finished DROP COLUMN changed');
    raw.close();
    const log = await open(file);
    await log.update(done._id, { set: { request: { ...done.request, body: { path: `2024-05-01/ch-a/b1`, size: 1, receivedBytes: 1, truncated: false } } } });
    expect((await log.finishedAfter(0, 10)).map((e) => [e.id, e.changed === true])).toEqual([
      [done._id, false],
      [done._id, true],
    ]);
  });

  it('refuses to open a file that is not a SQLite database, naming it, and leaves it untouched', async () => {
    const dir = await tempDir('junction-sqlite-');
    dirs.push(dir);
    const file = join(dir, 'transactions.sqlite');
    await writeFile(file, 'this is not a database, but someone else’s notes\n'.repeat(200));
    const log = createSqliteTransactionLog({ file, logger: silent });
    const error = await log.open().then(
      () => null,
      (err: unknown) => err,
    );
    expect(error).toBeInstanceOf(StoreOpenError);
    expect((error as StoreOpenError).message).toContain(file);
    expect((await stat(file)).size).toBe(Buffer.byteLength('this is not a database, but someone else’s notes\n') * 200);
  });
});
