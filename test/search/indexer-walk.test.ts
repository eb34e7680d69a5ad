/**
 * The indexer's walk back on each engine (issue 37, session 17): it begins below the newest transaction stored when
 * the feed position was taken, so what the feed indexes is never indexed a second time by the walk.
 */
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { SearchIndexer } from '../../service/search/indexer.js';
import type { IndexedTransaction, SearchIndex, SearchIndexState } from '../../service/storage/search-index.js';
import { createPostgresTransactionLog, PostgresDatabase } from '../../service/storage/postgres/index.js';
import { createSqliteTransactionLog } from '../../service/storage/sqlite/transaction-log.js';
import type { TransactionLog } from '../../service/storage/transactions.js';
import { tempDir } from '../helpers/junction.js';
import { createTestDatabase, newSchemaName, runSql, settingsFor } from '../helpers/postgres.js';
import type { TestDatabase } from '../helpers/postgres.js';
import { tx } from '../storage/transaction-log-contract.js';

const silent = pino({ level: 'silent' });
let database: Promise<TestDatabase> | undefined;
afterAll(async () => {
  await (await database)?.drop();
});

const engines: { name: string; open: () => Promise<{ log: TransactionLog & { searchIndex: SearchIndex }; cleanup: () => Promise<void> }> }[] = [
  {
    name: 'SQLite',
    open: async () => {
      const dir = await tempDir('junction-walk-');
      const log = createSqliteTransactionLog({ file: join(dir, 'transactions.sqlite'), logger: silent, integrityScanAfterMs: null });
      return { log, cleanup: () => rm(dir, { recursive: true, force: true }) };
    },
  },
  {
    name: 'PostgreSQL',
    open: async () => {
      database ??= createTestDatabase();
      const { url } = await database;
      const schema = newSchemaName();
      const log = createPostgresTransactionLog({ database: new PostgresDatabase({ settings: settingsFor(url), logger: silent, schema }), logger: silent, instanceId: 'walk' });
      return { log, cleanup: () => runSql(url, `DROP SCHEMA IF EXISTS ${schema} CASCADE`).then(() => undefined) };
    },
  },
];

// The stored body every transaction points at (the body store is not what this test is about).
const HL7 = 'MSH|^~\\&|LAB|CLINIC|EMR|HOSP|20261203||ORU^R01|C1|P|2.5\rPID|||MRN-1^^^HOSP\r';
const body = { path: '2026-12-03/ch-a/b', size: HL7.length, receivedBytes: HL7.length, truncated: false };

for (const engine of engines) {
  describe(`indexer walk back on ${engine.name}`, () => {
    it('indexes each transaction once: the walk begins below what the feed covers', async () => {
      const { log, cleanup } = await engine.open();
      await log.open();
      try {
        const older = Array.from({ length: 3 }, (_v, i) => tx(`2026-12-03T10:00:0${i}.000Z`, { request: { path: '/', querystring: '', method: 'POST', headers: {}, timestamp: new Date(`2026-12-03T10:00:0${i}.000Z`), body } }));
        for (const record of older) await log.insert(record);
        const later = tx('2026-12-03T11:00:00.000Z', { request: { path: '/', querystring: '', method: 'POST', headers: {}, timestamp: new Date('2026-12-03T11:00:00.000Z'), body } });
        const written: string[] = [];
        const index: SearchIndex = {
          write: (entries: readonly IndexedTransaction[], state?: Partial<SearchIndexState>) => {
            written.push(...entries.map((e) => e.id));
            return log.searchIndex.write(entries, state);
          },
          keysOf: (ids) => log.searchIndex.keysOf(ids),
          state: () => log.searchIndex.state(),
          removeChannelTextBefore: (channelID, day) => log.searchIndex.removeChannelTextBefore(channelID, day),
          stats: () => log.searchIndex.stats(),
        };
        // A transaction that completes once the indexer has taken the feed's position: the feed brings it.
        let arrived = false;
        const racing: ConstructorParameters<typeof SearchIndexer>[0]['log'] = {
          finishedAfter: async (seq, limit) => {
            if (!arrived) {
              arrived = true;
              await log.insert(later);
            }
            return log.finishedAfter(seq, limit);
          },
          lastFinishedSeq: () => log.lastFinishedSeq(),
          get: (id) => log.get(id),
          page: (filter, options) => log.page(filter, options),
          estimatedCount: () => log.estimatedCount(),
        };
        const indexer = new SearchIndexer({ log: racing, bodies: { readText: () => Promise.resolve(HL7) }, index, maxTextBytes: 65_536, logger: silent, batchSize: 2 });
        for (let i = 0; i < 4 && !(await log.searchIndex.state()).backfillDone; i++) await indexer.run();
        expect(indexer.health().lastError).toBeUndefined();
        expect(await log.searchIndex.state()).toMatchObject({ backfillDone: true, backfillTotal: 3, backfillCovered: 3 });
        expect([...written].sort()).toEqual([...older, later].map((r) => r._id).sort());
        expect((await log.page({ keys: [{ name: 'patientId', value: 'mrn-1' }] }, { limit: 10 })).map((r) => r._id)).toEqual([later, ...older.reverse()].map((r) => r._id));
      } finally {
        await log.close();
        await cleanup();
      }
    });
  });
}
