/**
 * The hand-over of finished records to the search indexer (storage/recent-finished.ts, issue 37 session 18): what the
 * log's writes return in a final status is kept, slim, until the indexer takes it once; anything else is read from
 * the log. On the real SQLite log (the wrapper stores nothing itself: it only notes what the log's writes return).
 */
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { SearchIndexer } from '../../service/search/indexer.js';
import { RecentFinished } from '../../service/storage/recent-finished.js';
import { createSqliteTransactionLog } from '../../service/storage/sqlite/transaction-log.js';
import type { TransactionRecord } from '../../service/storage/transactions.js';
import { tempDir } from '../helpers/junction.js';
import { tx } from '../storage/transaction-log-contract.js';

const silent = pino({ level: 'silent' });
const HL7 = 'MSH|^~\\&|LAB|CLINIC|EMR|HOSP|20261203||ORU^R01|C1|P|2.5\rPID|||MRN-HANDED^^^HOSP\r';
const body = { path: '2026-12-03/ch-a/b', size: HL7.length, receivedBytes: HL7.length, truncated: false };

function processing(at: string): TransactionRecord {
  const timestamp = new Date(at);
  return tx(at, { status: 'Processing', request: { path: '/', querystring: '', method: 'POST', headers: { 'content-type': 'x-application/hl7-v2+er7', 'x-secret': 's' }, timestamp, body } });
}

async function openLog(): Promise<{ log: ReturnType<typeof createSqliteTransactionLog>; cleanup: () => Promise<void> }> {
  const dir = await tempDir('junction-recent-');
  const log = createSqliteTransactionLog({ file: join(dir, 'transactions.sqlite'), logger: silent, integrityScanAfterMs: null });
  await log.open();
  return { log, cleanup: async () => { await log.close(); await rm(dir, { recursive: true, force: true }); } };
}

describe('recent finished records', () => {
  it('keeps a record once it is final, slim and as last written, gives it once, and forgets it on removal and retention', async () => {
    const { log, cleanup } = await openLog();
    try {
      const recent = new RecentFinished(2);
      const noting = recent.wrap(log);
      const a = await noting.insert(processing('2026-12-03T10:00:00.000Z'));
      expect(recent.take(a._id)).toBeUndefined();
      await noting.update(a._id, { set: { status: 'Successful', response: { status: 200, headers: { 'content-type': 'text/plain' }, timestamp: new Date('2026-12-03T10:00:00.040Z'), body } } });
      await noting.update(a._id, { set: { canRerun: false } });
      const taken = recent.take(a._id);
      expect(taken).toEqual({
        _id: a._id,
        channelID: 'ch-a',
        request: { timestamp: new Date('2026-12-03T10:00:00.000Z'), headers: { 'content-type': 'x-application/hl7-v2+er7' }, body },
        response: { headers: { 'content-type': 'text/plain' }, body },
      });
      expect(recent.take(a._id)).toBeUndefined();
      // Removed, or its day dropped by retention: not handed over (the indexer's write would skip it anyway).
      const b = await noting.insert({ ...processing('2026-12-03T10:00:01.000Z'), status: 'Successful' });
      await noting.remove(b._id);
      expect(recent.take(b._id)).toBeUndefined();
      const c = await noting.insert({ ...processing('2026-12-02T10:00:00.000Z'), status: 'Failed' });
      await noting.dropDaysBefore('2026-12-03');
      expect(recent.take(c._id)).toBeUndefined();
      // Bounded: the oldest goes first.
      const kept = [];
      for (const at of ['11:00:00', '11:00:01', '11:00:02']) kept.push(await noting.insert({ ...processing(`2026-12-03T${at}.000Z`), status: 'Successful' }));
      expect(kept.map((r) => recent.take(r._id) !== undefined)).toEqual([false, true, true]);
    } finally {
      await cleanup();
    }
  });

  it('the indexer takes the records written through the log from memory and reads only the others', async () => {
    const { log, cleanup } = await openLog();
    try {
      const recent = new RecentFinished();
      const noting = recent.wrap(log);
      // Stored before the wrapper saw them (another instance, or before a restart): read back.
      const before = await log.insert({ ...processing('2026-12-03T09:00:00.000Z'), status: 'Successful' });
      const indexer = new SearchIndexer({ log: noting, recent, bodies: { readText: () => Promise.resolve(HL7) }, index: log.searchIndex, maxTextBytes: 65_536, logger: silent });
      await indexer.run();
      expect((await log.searchIndex.state()).backfillTotal).toBe(1);
      const written: TransactionRecord[] = [];
      for (const at of ['10:00:00', '10:00:01', '10:00:02']) {
        const record = await noting.insert(processing(`2026-12-03T${at}.000Z`));
        written.push((await noting.update(record._id, { set: { status: 'Successful' } })) as TransactionRecord);
      }
      let gets = 0;
      const counting = { get: (id: string) => ((gets += 1), noting.get(id)), finishedAfter: noting.finishedAfter.bind(noting), lastFinishedSeq: noting.lastFinishedSeq.bind(noting), page: noting.page.bind(noting), estimatedCount: noting.estimatedCount.bind(noting) };
      const following = new SearchIndexer({ log: counting, recent, bodies: { readText: () => Promise.resolve(HL7) }, index: log.searchIndex, maxTextBytes: 65_536, logger: silent });
      await following.run();
      expect(following.health().lastError).toBeUndefined();
      expect(gets).toBe(0);
      expect(recent.counts.taken).toBe(3);
      const found = (await log.page({ keys: [{ name: 'patientId', value: 'mrn-handed' }] }, { limit: 10 })).map((r) => r._id);
      expect(found).toEqual([...written.map((r) => r._id).reverse(), before._id]);
    } finally {
      await cleanup();
    }
  });
});
