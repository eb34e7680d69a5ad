/**
 * Shared work claimed once across instances (storage/claims.ts): two stores, each with its own pool, on one
 * PostgreSQL schema stand for two instances. Each races the other for the same re-run task, the same messages and
 * the same auto retry, through the real task runner, delivery and auto-retry scan; what they send is counted by
 * recording transports and replays, since the claim, not the sending, is under test. Claim expiry is moved on with
 * an injected clock.
 */
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LiveEvents } from '../../service/events/live.js';
import type { TaskProgressEvent } from '../../service/events/live.js';
import { Delivery } from '../../service/notify/delivery.js';
import type { Transport } from '../../service/notify/transport.js';
import type { NewTransaction } from '../../service/pipeline/replay.js';
import { scanAutoRetries } from '../../service/schedulers/auto-retry.js';
import { TaskRunner } from '../../service/schedulers/task-runner.js';
import { newObjectId } from '../../service/storage/object-ids.js';
import { createPostgresStore, PostgresDatabase } from '../../service/storage/postgres/index.js';
import type { ChannelRecord, NotificationRecord } from '../../service/storage/records.js';
import type { Collection, Store } from '../../service/storage/store.js';
import { newTransactionId } from '../../service/storage/transaction-ids.js';
import type { TransactionRecord } from '../../service/storage/transactions.js';
import { createTestDatabase, newSchemaName, settingsFor } from '../helpers/postgres.js';
import type { TestDatabase } from '../helpers/postgres.js';
import { finishedTransaction } from '../helpers/transactions.js';

const silent = pino({ level: 'silent' });
const CLAIM_MS = 30_000;

/** Lets every other ready callback and I/O completion run, so a racing instance gets in between (no real wait). */
const yieldTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** A transaction log holding `records`, and replays that count re-runs per original and store each child. */
function fakeReplays(records: Map<string, TransactionRecord>) {
  const reruns = new Map<string, number>();
  const replays = {
    newTransaction: (): NewTransaction => {
      const receivedAt = new Date();
      return { id: newTransactionId(receivedAt), receivedAt };
    },
    rerun: async (original: TransactionRecord, child: NewTransaction): Promise<TransactionRecord> => {
      reruns.set(original._id, (reruns.get(original._id) ?? 0) + 1);
      await yieldTurn();
      const stored = { ...original, _id: child.id, status: 'Successful' as const, parentID: original._id };
      records.set(child.id, stored);
      await yieldTurn();
      return stored;
    },
    link: (): Promise<boolean> => Promise.resolve(true),
  };
  const log = { get: (id: string): Promise<TransactionRecord | null> => Promise.resolve(records.get(id) ?? null) };
  return { replays, log, reruns };
}

describe('claims on shared work across instances on PostgreSQL', () => {
  let db: TestDatabase;
  const stores: Store[] = [];
  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(async () => {
    for (const store of stores) await store.close();
    await db.drop();
  });

  /** Two stores on one fresh schema: two instances sharing a database. */
  async function twoInstances(): Promise<[Store, Store]> {
    const schema = newSchemaName();
    const open = async (): Promise<Store> => {
      const store = createPostgresStore(new PostgresDatabase({ settings: settingsFor(db.url), logger: silent, schema }));
      await store.open();
      stores.push(store);
      return store;
    };
    const a = await open();
    return [a, await open()];
  }

  describe('re-run tasks', () => {
    async function seedTask(store: Store, count: number, records: Map<string, TransactionRecord>, task: Partial<{ status: 'Queued' | 'Processing'; claimedBy: string; claimedUntil: Date }> = {}): Promise<{ id: string; tids: string[] }> {
      const id = newObjectId();
      const tids: string[] = [];
      for (let index = 0; index < count; index++) {
        const tx = finishedTransaction({ channelID: 'c1', at: new Date(Date.now() - 60_000 + index).toISOString(), status: 'Failed', responseMs: 5, method: 'GET' });
        records.set(tx._id, tx);
        tids.push(tx._id);
        await store.taskTransactions.insert({ _id: `${id}-${index}`, taskID: id, index, tid: tx._id, tstatus: 'Queued' });
      }
      await store.tasks.insert({ _id: id, status: 'Processing', batchSize: 3, totalTransactions: count, remainingTransactions: count, user: 'root@openhim.org', created: new Date(), ...task });
      return { id, tids };
    }

    function runner(store: Store, instance: string, fakes: ReturnType<typeof fakeReplays>, events: LiveEvents, now: () => Date = () => new Date()): TaskRunner {
      return new TaskRunner({ tasks: store.tasks, items: store.taskTransactions, log: fakes.log, replays: fakes.replays, events, concurrency: 2, logger: silent, instance, claimMs: CLAIM_MS, now });
    }

    function completed(events: LiveEvents, taskId: string): Promise<TaskProgressEvent> {
      return new Promise((resolve) => {
        const listener = (event: TaskProgressEvent): void => {
          if (event.taskId !== taskId || event.status !== 'Completed') return;
          events.off('task.progress', listener);
          resolve(event);
        };
        events.on('task.progress', listener);
      });
    }

    it('runs an interrupted task on one of two instances woken together, re-running each transaction once', async () => {
      const [a, b] = await twoInstances();
      const records = new Map<string, TransactionRecord>();
      const fakes = fakeReplays(records);
      const events = new LiveEvents();
      // Processing with no claim: what a stopped instance leaves, which every instance's tick picks up.
      const { id, tids } = await seedTask(a, 12, records);
      const done = completed(events, id);
      const runners = [runner(a, 'a', fakes, events), runner(b, 'b', fakes, events)];
      await Promise.all(runners.map((r) => r.job().run()));
      await done;
      await Promise.all(runners.map((r) => r.job().stop?.() ?? Promise.resolve()));

      expect(tids.map((tid) => fakes.reruns.get(tid))).toEqual(tids.map(() => 1));
      const items = await b.taskTransactions.find({ taskID: id });
      expect(items.every((item) => item.tstatus === 'Completed')).toBe(true);
      const task = await b.tasks.findById(id);
      expect(task).toMatchObject({ status: 'Completed', remainingTransactions: 0 });
      // The claim is given back with the run.
      expect(task?.claimedBy).toBeUndefined();
    });

    it("leaves a task another instance is running alone, its transactions included, and takes it over once that instance's claim runs out", async () => {
      const [a, b] = await twoInstances();
      const records = new Map<string, TransactionRecord>();
      const fakes = fakeReplays(records);
      const events = new LiveEvents();
      let now = Date.now();
      const { id, tids } = await seedTask(a, 4, records, { claimedBy: 'a', claimedUntil: new Date(now + CLAIM_MS) });
      // Instance a is mid-batch: two re-runs written Processing with their ids, one of them already stored.
      const [first, second] = await a.taskTransactions.find({ taskID: id }, { sort: { index: 1 } });
      const stored = { ...(records.get(tids[0] ?? '') as TransactionRecord), _id: newTransactionId(new Date()), status: 'Successful' as const };
      records.set(stored._id, stored);
      await a.taskTransactions.updateById(first?._id ?? '', { set: { tstatus: 'Processing', rerunID: stored._id } });
      await a.taskTransactions.updateById(second?._id ?? '', { set: { tstatus: 'Processing', rerunID: newTransactionId(new Date()) } });

      // Instance b starts: its start-up recovery and its tick leave a's task and a's transactions in flight as they are.
      const late = runner(b, 'b', fakes, events, () => new Date(now));
      await late.job().run();
      expect(fakes.reruns.size).toBe(0);
      expect((await b.taskTransactions.find({ taskID: id, tstatus: 'Processing' })).length).toBe(2);
      expect((await b.tasks.findById(id))?.claimedBy).toBe('a');

      // Instance a dies; once its claim has run out, b's next tick takes the task over and settles what a left.
      now += CLAIM_MS + 1;
      const done = completed(events, id);
      await late.job().run();
      await done;
      await late.job().stop?.();
      // The stored re-run is recorded, not sent again; the one never stored, and the two not started, are re-run once.
      expect(tids.map((tid) => fakes.reruns.get(tid) ?? 0)).toEqual([0, 1, 1, 1]);
      const items = await b.taskTransactions.find({ taskID: id }, { sort: { index: 1 } });
      expect(items[0]).toMatchObject({ tstatus: 'Completed', rerunID: stored._id });
      expect(items.every((item) => item.tstatus === 'Completed')).toBe(true);
    });

    it("keeps the transactions of a task another instance is creating at an instance's start, and removes those of a creation abandoned long ago", async () => {
      const [a, b] = await twoInstances();
      const fakes = fakeReplays(new Map());
      const creating = newObjectId();
      const abandoned = newObjectId(new Date(Date.now() - 2 * 60 * 60_000));
      for (const taskID of [creating, abandoned]) await a.taskTransactions.insert({ _id: `${taskID}-0`, taskID, index: 0, tid: newTransactionId(new Date()), tstatus: 'Queued' });
      const starting = runner(b, 'b', fakes, new LiveEvents());
      await starting.job().run();
      await starting.job().stop?.();
      expect((await b.taskTransactions.find({})).map((item) => item.taskID)).toEqual([creating]);
    });
  });

  describe('message delivery', () => {
    /** A transport recording each message it is given, answering after letting the other instance in. */
    function recordingTransport(sent: string[]): Transport {
      return {
        send: async (message) => {
          sent.push(message.to);
          await yieldTurn();
        },
        close: () => Promise.resolve(),
      };
    }

    function delivery(notifications: Collection<NotificationRecord>, instance: string, sent: string[], now: () => Date = () => new Date()): Delivery {
      const transport = recordingTransport(sent);
      return new Delivery({ notifications, transports: { email: transport, sms: transport }, maxAttempts: 3, keepDays: 30, logger: silent, instance, claimMs: CLAIM_MS, now });
    }

    async function queue(store: Store, count: number, at: Date): Promise<string[]> {
      const to: string[] = [];
      for (let i = 0; i < count; i++) {
        to.push(`user${i}@clinic.example`);
        await store.notifications.insert({ kind: 'alert', method: 'email', to: `user${i}@clinic.example`, subject: 'Channel failing', text: 'text', status: 'pending', attempts: 0, created: at, nextAttemptAt: at });
      }
      return to;
    }

    it('sends each pending message once when two instances deliver at the same time', async () => {
      const [a, b] = await twoInstances();
      const recipients = await queue(a, 20, new Date());
      const sent: string[] = [];
      const senders = [delivery(a.notifications, 'a', sent), delivery(b.notifications, 'b', sent)];
      await Promise.all(senders.map((d) => d.run()));

      expect([...sent].sort()).toEqual([...recipients].sort());
      const records = await b.notifications.find({});
      expect(records.every((r) => r.status === 'sent' && r.attempts === 1 && r.claimedBy === undefined)).toBe(true);
    });

    it('sends a message whose sender died mid-send again once its claim runs out, and not before', async () => {
      const [a, b] = await twoInstances();
      let now = Date.now();
      const [recipient] = await queue(a, 1, new Date(now));
      // Instance a claimed it and died before the server answered.
      await a.notifications.updateMany({}, { set: { claimedBy: 'a', claimedUntil: new Date(now + CLAIM_MS) } });
      const sent: string[] = [];
      const survivor = delivery(b.notifications, 'b', sent, () => new Date(now));
      await survivor.run();
      expect(sent).toEqual([]);
      now += CLAIM_MS + 1;
      await survivor.run();
      expect(sent).toEqual([recipient]);
      expect((await b.notifications.find({}))[0]).toMatchObject({ status: 'sent', attempts: 1 });
    });
  });

  describe('auto retry', () => {
    const channel = { _id: 'c1', name: 'Lab results', status: 'enabled', autoRetryEnabled: true, autoRetryPeriodMinutes: 1, autoRetryMaxAttempts: 0 } as unknown as ChannelRecord;
    const channels = { findById: () => Promise.resolve(channel) } as unknown as Collection<ChannelRecord>;

    function deps(store: Store, instance: string, fakes: ReturnType<typeof fakeReplays>, now: () => Date) {
      const log = { ...fakes.log, update: () => Promise.resolve(null), written: () => Promise.resolve() };
      return { queue: store.autoRetries, log, channels, replays: fakes.replays, events: new LiveEvents(), minuteMs: 60_000, logger: silent, instance, claimMs: CLAIM_MS, now };
    }

    it('makes a queued retry once when two instances scan at the same time', async () => {
      const [a, b] = await twoInstances();
      const records = new Map<string, TransactionRecord>();
      const fakes = fakeReplays(records);
      const now = Date.now();
      const ids: string[] = [];
      for (let i = 0; i < 8; i++) {
        const tx = finishedTransaction({ channelID: 'c1', at: new Date(now - 10 * 60_000 + i).toISOString(), status: 'Failed', responseMs: 5, method: 'GET' }, { autoRetry: true });
        records.set(tx._id, tx);
        ids.push(tx._id);
        await a.autoRetries.insert({ _id: tx._id, queuedAt: new Date(now - 10 * 60_000) });
      }
      await Promise.all([scanAutoRetries(deps(a, 'a', fakes, () => new Date(now))), scanAutoRetries(deps(b, 'b', fakes, () => new Date(now)))]);

      expect(ids.map((id) => fakes.reruns.get(id))).toEqual(ids.map(() => 1));
      expect(await b.autoRetries.count({})).toBe(0);
    });

    it("leaves a retry another instance has in flight, and finishes it from the log once that instance's claim runs out", async () => {
      const [a, b] = await twoInstances();
      const records = new Map<string, TransactionRecord>();
      const fakes = fakeReplays(records);
      let now = Date.now();
      const tx = finishedTransaction({ channelID: 'c1', at: new Date(now - 10 * 60_000).toISOString(), status: 'Failed', responseMs: 5, method: 'GET' }, { autoRetry: true });
      records.set(tx._id, tx);
      // Instance a recorded its retry's id and claim; its retry is not in the log yet.
      const childID = newTransactionId(new Date(now));
      await a.autoRetries.insert({ _id: tx._id, queuedAt: new Date(now - 10 * 60_000), childID, claimedBy: 'a', claimedUntil: new Date(now + CLAIM_MS) });
      await scanAutoRetries(deps(b, 'b', fakes, () => new Date(now)));
      expect(fakes.reruns.size).toBe(0);
      expect(await b.autoRetries.findById(tx._id)).toMatchObject({ childID, claimedBy: 'a' });

      // a stored its retry (so sent it) and died before its bookkeeping: b records it once the claim ran out.
      records.set(childID, { ...tx, _id: childID, parentID: tx._id });
      now += CLAIM_MS + 1;
      await scanAutoRetries(deps(b, 'b', fakes, () => new Date(now)));
      expect(fakes.reruns.size).toBe(0);
      expect(await b.autoRetries.findById(tx._id)).toBeNull();
    });
  });
});
