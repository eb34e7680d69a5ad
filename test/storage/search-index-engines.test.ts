/** The search index contract (issue 37) on each engine: SQLite (in transactions.sqlite); PostgreSQL is added by its branch. */
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { pino } from 'pino';
import { createSqliteTransactionLog } from '../../service/storage/sqlite/transaction-log.js';
import { tempDir } from '../helpers/junction.js';
import { describeSearchIndexContract } from './search-index-contract.js';

const silent = pino({ level: 'silent' });

describeSearchIndexContract('SQLite', async (location) => {
  const dir = location ?? (await tempDir('junction-search-'));
  // Windows of 3 rows, so the contract's pages cross many windows of the index-driven scan.
  const log = createSqliteTransactionLog({ file: join(dir, 'transactions.sqlite'), logger: silent, scanWindowRows: 3, integrityScanAfterMs: null });
  return { log, index: log.searchIndex, location: dir, cleanup: () => rm(dir, { recursive: true, force: true }) };
});
