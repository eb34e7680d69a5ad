/** The transaction log contract, run against every engine. */
import { join } from 'node:path';
import { pino } from 'pino';
import { createNedbTransactionLog } from '../../service/storage/nedb/transaction-log.js';
import { createSqliteTransactionLog } from '../../service/storage/sqlite/transaction-log.js';
import { describeTransactionLogContract } from './transaction-log-contract.js';

const silent = pino({ level: 'silent' });

describeTransactionLogContract('NeDB day partitions', async (dir) => {
  const log = createNedbTransactionLog({ dir, logger: silent, maxOpenPartitions: 2 });
  await log.open();
  return log;
});

describeTransactionLogContract('SQLite', async (dir) => {
  const log = createSqliteTransactionLog({ file: join(dir, 'transactions.sqlite'), logger: silent });
  await log.open();
  return log;
});
