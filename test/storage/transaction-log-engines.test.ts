/** The transaction log contract, run against every engine. */
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { pino } from 'pino';
import { createSqliteTransactionLog } from '../../service/storage/sqlite/transaction-log.js';
import { tempDir } from '../helpers/junction.js';
import { describeTransactionLogContract } from './transaction-log-contract.js';

const silent = pino({ level: 'silent' });

describeTransactionLogContract('SQLite', async (location, options = {}) => {
  const dir = location ?? (await tempDir('junction-txcontract-'));
  return {
    log: createSqliteTransactionLog({ file: join(dir, 'transactions.sqlite'), logger: silent, ...options }),
    location: dir,
    cleanup: () => rm(dir, { recursive: true, force: true }),
  };
});
