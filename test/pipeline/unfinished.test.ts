/**
 * Transactions whose outcome could not be written because the store was away: tried again until it takes the write,
 * then finished by the start-up recovery rule, without a restart.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { UnfinishedTransactions } from '../../service/pipeline/unfinished.js';
import { processingRecord } from '../../service/pipeline/store-request.js';
import { createSqliteTransactionLog } from '../../service/storage/sqlite/transaction-log.js';
import { StoreError } from '../../service/storage/store.js';
import { newTransactionId } from '../../service/storage/transaction-ids.js';
import type { TransactionLog } from '../../service/storage/transactions.js';
import { memoryLogger } from '../helpers/logger.js';
import { until } from '../helpers/wait.js';

describe('transactions whose outcome could not be written', () => {
  let dir: string | undefined;
  let log: TransactionLog | undefined;
  afterEach(async () => {
    await log?.close();
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  });

  it('are written again until the store is back, then Failed with the reason or given the status their answer implied', async () => {
    dir = await mkdtemp(join(tmpdir(), 'junction-unfinished-'));
    const real = createSqliteTransactionLog({ file: join(dir, 'transactions.sqlite'), logger: memoryLogger().logger });
    log = real;
    await real.open();
    const record = (id: string) => processingRecord({ id, channel: { _id: 'c1' }, client: null, clientIp: '127.0.0.1', request: { path: '/', querystring: '', method: 'POST', headers: {}, timestamp: new Date() } });
    const refused = newTransactionId(new Date());
    const answered = newTransactionId(new Date());
    await real.insert(record(refused));
    await real.insert({ ...record(answered), statusIfInterrupted: 'Successful' });

    // The store as the pipeline sees it during an outage: every call fails until `down` is false.
    let down = true;
    let tries = 0;
    const away = <T>(call: () => Promise<T>): Promise<T> => {
      if (!down) return call();
      tries += 1;
      return Promise.reject(new StoreError('transactions: connect ECONNREFUSED'));
    };
    const flaky: Pick<TransactionLog, 'get' | 'update'> = { get: (id) => away(() => real.get(id)), update: (id, changes) => away(() => real.update(id, changes)) };
    const unfinished = new UnfinishedTransactions({ log: flaky, logger: memoryLogger().logger, firstRetryMs: 5, maxRetryMs: 20 });
    unfinished.add(refused, 'the transaction could not be updated: connect ECONNREFUSED');
    unfinished.add(answered, 'the transaction could not be updated: connect ECONNREFUSED');

    await until('several tries while the store is away', () => (tries >= 6 ? true : undefined));
    expect((await real.get(refused))?.status).toBe('Processing');
    down = false;
    await until('both finished', () => (unfinished.size === 0 ? true : undefined));
    expect(await real.get(refused)).toMatchObject({ status: 'Failed', error: { message: 'the transaction could not be updated: connect ECONNREFUSED' } });
    const done = await real.get(answered);
    expect(done?.status).toBe('Successful');
    expect(done?.statusIfInterrupted).toBeUndefined();
    unfinished.stop();
  });
});
