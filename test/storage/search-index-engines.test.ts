/** The search index contract (issue 37) on each engine: SQLite (in transactions.sqlite) and PostgreSQL (each run in its own schema). */
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { pino } from 'pino';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createPostgresTransactionLog, PostgresDatabase } from '../../service/storage/postgres/index.js';
import { IntegrityScan } from '../../service/storage/sqlite/integrity-scan.js';
import { snapshotSqlite } from '../../service/storage/sqlite/snapshot.js';
import type { TransactionRecord } from '../../service/storage/transactions.js';
import { createSqliteTransactionLog } from '../../service/storage/sqlite/transaction-log.js';
import { tempDir } from '../helpers/junction.js';
import { createTestDatabase, newSchemaName, runSql, settingsFor } from '../helpers/postgres.js';
import type { TestDatabase } from '../helpers/postgres.js';
import { describeSearchIndexContract } from './search-index-contract.js';
import { tx } from './transaction-log-contract.js';

const silent = pino({ level: 'silent' });

describeSearchIndexContract('SQLite', async (location) => {
  const dir = location ?? (await tempDir('junction-search-'));
  // Windows of 3 rows, so the contract's pages cross many windows of the index-driven scan.
  const log = createSqliteTransactionLog({ file: join(dir, 'transactions.sqlite'), logger: silent, scanWindowRows: 3, integrityScanAfterMs: null });
  return { log, index: log.searchIndex, location: dir, cleanup: () => rm(dir, { recursive: true, force: true }) };
});

/** What only the SQLite file shows: a folder from before the index, the backup's copy, the integrity scan. */
describe('search index in transactions.sqlite', () => {
  const dirs: string[] = [];
  afterEach(async () => {
    for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
  });

  async function indexedLog(): Promise<{ file: string; records: TransactionRecord[] }> {
    const dir = await tempDir('junction-search-file-');
    dirs.push(dir);
    const file = join(dir, 'transactions.sqlite');
    const log = createSqliteTransactionLog({ file, logger: silent, integrityScanAfterMs: null });
    await log.open();
    const records = Array.from({ length: 60 }, (_v, i) => tx(new Date(Date.parse('2024-05-01T00:00:00Z') + i * 1000).toISOString()));
    for (const record of records) await log.insert(record);
    await log.searchIndex.write(
      records.map((record, i) => ({ id: record._id, requestTimestamp: record.request.timestamp, channelID: record.channelID, keys: [{ name: 'patientId', value: `P-${i % 4}`, field: 'PID-3', part: 'request' }], text: `OBX result ${'word '.repeat(200)} n${i}` })),
      { finishedSeq: 60 },
    );
    await log.close();
    return { file, records };
  }

  it('upgrades a file from before the index in place at open, keeping its transactions, with an empty index', async () => {
    const { file, records } = await indexedLog();
    // As an earlier version left it: the log's tables only.
    const raw = new Database(file);
    raw.exec('DROP TABLE search_docs; DROP TABLE search_terms; DROP TABLE search_text; DROP TABLE search_state;');
    raw.close();
    const log = createSqliteTransactionLog({ file, logger: silent, integrityScanAfterMs: null });
    await log.open();
    try {
      expect(await log.count({})).toBe(records.length);
      expect(await log.searchIndex.state()).toEqual({ finishedSeq: 0, backfillBefore: null, backfillDone: false, backfillTotal: 0, backfillCovered: 0 });
      expect(await log.page({ keys: [{ name: 'patientId', value: 'P-1' }] }, { limit: 5 })).toEqual([]);
      const first = records[0] as TransactionRecord;
      await log.searchIndex.write([{ id: first._id, requestTimestamp: first.request.timestamp, channelID: first.channelID, keys: [{ name: 'patientId', value: 'P-9', field: 'PID-3', part: 'request' }], text: '' }]);
      expect((await log.page({ keys: [{ name: 'patientId', value: 'p-9' }] }, { limit: 5 })).map((r) => r._id)).toEqual([first._id]);
    } finally {
      await log.close();
    }
  });

  it('drops an index of the first layout (keys in a B-tree, before session 17) at open, says so, and starts it afresh', async () => {
    const { file, records } = await indexedLog();
    // As the first layout left it: search_keys beside the others, and an indexer far along.
    const raw = new Database(file);
    raw.exec(`DROP TABLE search_terms;
      CREATE TABLE search_keys (kind INTEGER NOT NULL, value TEXT NOT NULL, ts INTEGER NOT NULL, docid INTEGER NOT NULL, authority TEXT NOT NULL, PRIMARY KEY (kind, value, ts, docid, authority)) WITHOUT ROWID;
      INSERT INTO search_keys VALUES (1, 'p-1', 0, 1, '');
      UPDATE search_state SET finished_seq = 60, backfill_done = 1, backfill_total = 60, backfill_covered = 60;`);
    raw.close();
    const lines: string[] = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(line) });
    const log = createSqliteTransactionLog({ file, logger, integrityScanAfterMs: null });
    await log.open();
    try {
      expect(await log.count({})).toBe(records.length);
      // Fresh: the indexer's next run begins again (the feed from its end, and a walk back over every transaction).
      expect(await log.searchIndex.state()).toEqual({ finishedSeq: 0, backfillBefore: null, backfillDone: false, backfillTotal: 0, backfillCovered: 0 });
      expect(await log.searchIndex.stats()).toMatchObject({ transactions: 0, keys: 0 });
      expect(await log.count({ text: 'obx' })).toBe(0);
      expect(lines.some((line) => line.includes('search index was of an earlier layout'))).toBe(true);
      const first = records[0] as TransactionRecord;
      await log.searchIndex.write([{ id: first._id, requestTimestamp: first.request.timestamp, channelID: first.channelID, keys: [{ name: 'patientId', value: 'P-1', field: 'PID-3', part: 'request' }], text: 'obx' }]);
      expect((await log.page({ keys: [{ name: 'patientId', value: 'p-1' }] }, { limit: 5 })).map((r) => r._id)).toEqual([first._id]);
    } finally {
      await log.close();
    }
    const raw2 = new Database(file);
    expect(raw2.prepare("SELECT name FROM sqlite_master WHERE name = 'search_keys'").all()).toEqual([]);
    raw2.close();
  });

  it("is in the backup's copy of the log, and the integrity scan reads its tables and finds no damage", async () => {
    const { file, records } = await indexedLog();
    const copy = join(dirs[0] as string, 'copy.sqlite');
    await snapshotSqlite(file, copy);
    const log = createSqliteTransactionLog({ file: copy, logger: silent, integrityScanAfterMs: null });
    await log.open();
    try {
      expect(await log.count({ keys: [{ name: 'patientId', value: 'p-1' }] })).toBe(15);
      expect(await log.countUpTo({ text: 'obx word' }, 1000)).toEqual({ count: records.length, exact: true });
      expect((await log.page({ text: 'n7' }, { limit: 5 })).map((r) => r._id)).toEqual([records[7]?._id]);
      expect(await log.searchIndex.state()).toMatchObject({ finishedSeq: 60 });
    } finally {
      await log.close();
    }
    const outcome = await new IntegrityScan({ file: copy, logger: silent, window: 7, pauseMs: 0 }).outcome;
    expect(outcome).toMatchObject({ ok: true });
  });
});

let database: Promise<TestDatabase> | undefined;
afterAll(async () => {
  await (await database)?.drop();
});

describeSearchIndexContract('PostgreSQL', async (location) => {
  database ??= createTestDatabase();
  const { url } = await database;
  const schema = location ?? newSchemaName();
  const log = createPostgresTransactionLog({ database: new PostgresDatabase({ settings: settingsFor(url), logger: silent, schema }), logger: silent, instanceId: 'contract' });
  return { log, index: log.searchIndex, location: schema, cleanup: () => runSql(url, `DROP SCHEMA IF EXISTS ${schema} CASCADE`).then(() => undefined) };
});
