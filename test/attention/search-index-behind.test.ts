/**
 * The needs-attention item of a search index left behind (issue 37), on each engine's real log and index: the
 * indexer's job is not running here, so completed transactions pile up unindexed; the item shows once they are
 * more than five minutes old (or too many; both thresholds are settings), names the indexer's failure when it has one, and clears when the index
 * catches up. Nothing shows while search is off.
 */
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { SOURCES } from '../../service/attention/sources.js';
import type { AttentionDeps } from '../../service/attention/sources.js';
import { createPostgresTransactionLog, PostgresDatabase } from '../../service/storage/postgres/index.js';
import { createSqliteTransactionLog } from '../../service/storage/sqlite/transaction-log.js';
import type { SearchIndex } from '../../service/storage/search-index.js';
import type { TransactionLog } from '../../service/storage/transactions.js';
import { tempDir } from '../helpers/junction.js';
import { createTestDatabase, newSchemaName, settingsFor } from '../helpers/postgres.js';
import type { TestDatabase } from '../helpers/postgres.js';
import { tx } from '../storage/transaction-log-contract.js';

const silent = pino({ level: 'silent' });
let database: Promise<TestDatabase> | undefined;
afterAll(async () => {
  await (await database)?.drop();
});

type Opened = { log: TransactionLog; index: SearchIndex; close: () => Promise<void> };

const engines: Record<'SQLite' | 'PostgreSQL', () => Promise<Opened>> = {
  async SQLite() {
    const dir = await tempDir('junction-search-behind-');
    const log = createSqliteTransactionLog({ file: join(dir, 'transactions.sqlite'), logger: silent, integrityScanAfterMs: null });
    await log.open();
    return { log, index: log.searchIndex, close: async () => { await log.close(); await rm(dir, { recursive: true, force: true }); } };
  },
  async PostgreSQL() {
    database ??= createTestDatabase();
    const shared = new PostgresDatabase({ settings: settingsFor((await database).url), logger: silent, schema: newSchemaName() });
    const log = createPostgresTransactionLog({ database: shared, logger: silent, instanceId: 'behind' });
    await log.open();
    return { log, index: log.searchIndex, close: () => log.close() };
  },
};

describe.each(Object.keys(engines) as (keyof typeof engines)[])('the search index behind, on %s', (engine) => {
  it('shows past five minutes behind, with the indexer\'s failure when it has one, clears once caught up, and says nothing while search is off', async () => {
    const { log, index, close } = await engines[engine]();
    try {
      const health: { lastError?: string } = {};
      const search = { enabled: true, index, log, lastError: () => health.lastError };
      // The defaults of attention.searchBehindMinutes and attention.searchBehindTransactions.
      const settings = { searchBehindMinutes: 5, searchBehindTransactions: 10_000 };
      const items = (now: Date, deps = search, behind = settings) => SOURCES['search index']({ search: deps, settings: behind } as unknown as AttentionDeps, now);
      // Completed (stored finished) while no indexer ran: the feed moves on, the index's position does not.
      for (let i = 0; i < 3; i++) await log.insert(tx(new Date(Date.now() - 1000 + i).toISOString()));
      const soon = new Date(Date.now() + 60_000);
      const later = new Date(Date.now() + 5 * 60_000 + 60_000);
      expect(await items(soon)).toEqual([]);
      // Thresholds set lower: a minute behind, or more than two transactions, is behind.
      expect(await items(soon, search, { searchBehindMinutes: 1, searchBehindTransactions: 10_000 })).toHaveLength(1);
      expect(await items(new Date(), search, { searchBehindMinutes: 5, searchBehindTransactions: 2 })).toMatchObject([{ kind: 'search-index-behind', count: 3 }]);
      expect(await items(new Date(), search, { searchBehindMinutes: 5, searchBehindTransactions: 3 })).toEqual([]);
      const [behind] = await items(later);
      expect(behind).toMatchObject({ kind: 'search-index-behind', severity: 'warning', count: 3, fix: { setting: 'search.enabled' } });
      expect(behind?.message).toMatch(/^Search indexing is 3 transactions behind: searches .* do not find the messages completed since .* \(\d+ minutes ago\)/);
      health.lastError = 'search index: write failed: connection refused';
      const [failing] = await items(later);
      expect(failing).toMatchObject({ kind: 'search-index-behind', severity: 'error' });
      expect(failing?.message).toContain('Indexing fails: search index: write failed: connection refused.');
      expect(await items(later, { ...search, enabled: false })).toEqual([]);
      // The indexer catches up: its position is the feed's end.
      await index.write([], { finishedSeq: await log.lastFinishedSeq() });
      expect(await items(later)).toEqual([]);
    } finally {
      await close();
    }
  });
});
