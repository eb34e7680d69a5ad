/**
 * Issue 33: a body the store could not keep is never passed off as stored. The embedded engine's body files on a
 * full tmpfs reject with BodyStoreError (a sender that broke off does not), the completion refuses to commit a
 * transaction whose request body was lost, a response body that was lost is marked `bodyNotStored` and logged, and
 * the API shows that mark.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BodyFiles } from '../../service/storage/bodies/body-files.js';
import { BodyStoreError } from '../../service/storage/bodies/bodies.js';
import type { BodyRef, BodySink } from '../../service/storage/bodies/bodies.js';
import { StoreWriteError } from '../../service/storage/store.js';
import type { TransactionLog } from '../../service/storage/transactions.js';
import { Completion } from '../../service/pipeline/complete.js';
import { storedBody } from '../../service/pipeline/respond.js';
import type { RouteRun } from '../../service/pipeline/route.js';
import type { ChannelRecord } from '../../service/storage/records.js';
import { newTransactionId } from '../../service/storage/transaction-ids.js';
import { memoryLogger } from '../helpers/logger.js';
import { startJunction, unlockRoot } from '../helpers/junction.js';
import { fillDisk, mountSmallDisk } from '../helpers/small-disk.js';
import type { SmallDisk } from '../helpers/small-disk.js';

const failed = (err: Error): BodySink => {
  const done = Promise.reject<BodyRef>(err);
  done.catch(() => undefined);
  return { stream: undefined as never, done };
};

describe('body files on a full disk', () => {
  let disk: SmallDisk;
  beforeAll(() => {
    disk = mountSmallDisk(2);
  });
  afterAll(() => disk.remove());

  it('reject with BodyStoreError when the disk is full, and with the sender\'s own error when it broke off', async () => {
    const files = new BodyFiles(join(disk.dir, 'bodies'));
    await files.open();
    const filler = fillDisk(disk.dir);
    try {
      const sink = files.sink({ day: '2026-12-02', channelId: 'ch1', bodyId: 'big', capBytes: 10_000_000 });
      sink.stream.on('error', () => undefined);
      sink.stream.end(Buffer.alloc(300_000, 7));
      const lost = await sink.done.catch((err: unknown) => err);
      expect(lost).toBeInstanceOf(BodyStoreError);
      expect((lost as BodyStoreError).code).toBe('ENOSPC');

      rmSync(filler);
      const cut = files.sink({ day: '2026-12-02', channelId: 'ch1', bodyId: 'cut', capBytes: 10_000_000 });
      cut.stream.write(Buffer.alloc(100_000, 1));
      cut.stream.destroy(new Error('the client closed the connection'));
      const brokeOff = await cut.done.catch((err: unknown) => err);
      expect(brokeOff).not.toBeInstanceOf(BodyStoreError);
    } finally {
      rmSync(filler, { force: true });
      await files.close();
    }
  });
});

describe('a body the store could not keep', () => {
  it('of a response: recorded as not stored, with the error logged; a body that broke off is only left out', async () => {
    const { logger, lines } = memoryLogger();
    expect(await storedBody(failed(new BodyStoreError(Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' }))), logger, 'tx1')).toEqual({ bodyNotStored: true });
    expect(lines.some((l) => l.level === 50 && String(l.msg).includes('could not be stored (the store failed)'))).toBe(true);
    expect(await storedBody(failed(new Error('the route reset the connection')), logger, 'tx2')).toEqual({});
  });

  it('of a request: the completion refuses to commit it (the sender gets 503 or an AR NAK), and writes nothing', async () => {
    const updates: unknown[] = [];
    const log = { update: (id: string, changes: unknown) => (updates.push({ id, changes }), Promise.resolve(null)) } as unknown as TransactionLog;
    const channel = { _id: 'c1', name: 'ch', routes: [] } as unknown as ChannelRecord;
    const request = { path: '/', querystring: '', method: 'POST', headers: { 'content-length': '10' }, timestamp: new Date() };
    const requestBody = Promise.reject(new BodyStoreError(new Error('ENOSPC: no space left on device, write')));
    const completion = new Completion({ log, id: 'tx', channel, request, others: [], requestBody, requestComplete: () => true });
    const primary = { route: { name: 'r', primary: true }, request } as unknown as RouteRun;
    const refused = await completion.answered(primary, { status: 200, headers: {}, timestamp: new Date() }).catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(StoreWriteError);
    expect((refused as Error).message).toMatch(/request body could not be stored in full.*ENOSPC/);
    expect(updates).toEqual([]);
  });

  it('is shown by the API as bodyNotStored on the response', async () => {
    const t = await startJunction();
    try {
      const admin = { authorization: await unlockRoot(t) };
      const at = new Date();
      const id = newTransactionId(at);
      await t.junction.transactions.insert({
        _id: id,
        channelID: 'aaaaaaaaaaaaaaaaaaaaaaaa',
        clientIP: '127.0.0.1',
        status: 'Successful',
        request: { path: '/x', querystring: '', method: 'GET', headers: {}, timestamp: at },
        response: { status: 200, headers: {}, timestamp: at, bodyNotStored: true },
        routes: [],
        orchestrations: [],
        canRerun: true,
        autoRetry: false,
        autoRetryAttempt: 0,
      });
      for (const representation of ['full', 'simpledetails']) {
        const res = await t.request(`/transactions/${id}?filterRepresentation=${representation}`, { headers: admin });
        expect(res.body, representation).toMatchObject({ response: { status: 200, bodyNotStored: true } });
      }
    } finally {
      await t.destroy();
    }
  });
});
