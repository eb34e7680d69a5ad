/**
 * Delivery of the outbox's messages: pending records whose `nextAttemptAt` has come are sent through the transport
 * of their method, a few at a time, and each outcome is recorded: `sent`, another try later (domain/alerts/delivery-retry.ts),
 * or `failed` for good. Bodies are dropped once a message is sent or failed.
 *
 * At least once: a record is marked only after its server answered, so a crash mid-send leaves it pending and it is
 * sent again after the restart (the job runs at start). A recipient may then get a message twice; never none.
 *
 * Several instances on one database each wake their own delivery (each outbox records its own messages), so a
 * message is claimed before it is sent (storage/claims.ts): one conditional update on its attempt count and on
 * nobody else's claim, which one sender wins. A claim lasts longer than a send may take; a message whose sender
 * died mid-send is sent again by another once the claim runs out. Alone (the embedded engine, no `instance`), the
 * process is the only sender and its in-flight set is enough: it claims nothing, which keeps its cost per message
 * as it was (claims doubled the CPU per message on NeDB).
 */
import type { Logger } from 'pino';
import type { AlertMethod } from '../contracts/channels.js';
import { afterFailedTry } from '../domain/alerts/delivery-retry.js';
import { CLAIM_FIELDS, claimFor, claimable } from '../storage/claims.js';
import type { NotificationRecord } from '../storage/records.js';
import type { Collection } from '../storage/store.js';
import type { ScheduledJob } from '../schedulers/registry.js';
import { DeliveryError, errorText } from './transport.js';
import type { Transport } from './transport.js';

export const DELIVERY_JOB = 'notification-delivery';
/** The scan for due retries; new messages do not wait for it (`wake`). */
const TICK_MS = 15_000;
/** Messages sent at the same time. */
const DEFAULT_CONCURRENCY = 4;
/** Due records read per pass; a pass that fills it is followed by another. */
const BATCH = 100;
/** Old records are removed at most this often. */
const PRUNE_EVERY_MS = 60 * 60_000;
const DAY_MS = 24 * 60 * 60_000;
/** How long a sender's claim on a message lasts: longer than any transport waits for its server. */
export const SEND_CLAIM_MS = 5 * 60_000;

/** The fields dropped when a message is done with (see NotificationRecord). */
const BODIES = ['text', 'html', 'sms', 'nextAttemptAt', ...CLAIM_FIELDS] as const;

export interface DeliveryOptions {
  notifications: Collection<NotificationRecord>;
  transports: Record<AlertMethod, Transport>;
  /** `notifications.maxAttempts`. */
  maxAttempts: number;
  /** `notifications.keepDays`: records created longer ago are removed. */
  keepDays: number;
  concurrency?: number;
  now?: () => Date;
  logger: Logger;
  /** This instance, as its claims name it; unset when this process is the only sender (the embedded engine). */
  instance?: string;
  /** How long a claim on a message lasts (SEND_CLAIM_MS; tests shorten it). */
  claimMs?: number;
}

/** Sends what the outbox recorded, with retries; see the file comment. */
export class Delivery {
  readonly #notifications: Collection<NotificationRecord>;
  readonly #transports: Record<AlertMethod, Transport>;
  readonly #maxAttempts: number;
  readonly #keepMs: number;
  readonly #concurrency: number;
  readonly #now: () => Date;
  readonly #logger: Logger;
  /** Who claims the messages this sender tries, or null when it is the only sender. */
  readonly #instance: string | null;
  readonly #claimMs: number;
  /** Records being sent now: a pass never starts a second send of one. */
  readonly #inFlight = new Set<string>();
  /** Callers waiting for a record's next outcome (the test message). */
  readonly #waiters = new Map<string, ((record: NotificationRecord | null) => void)[]>();
  #again = false;
  #running: Promise<void> | null = null;
  #lastPrune: number | null = null;
  #stopped = false;
  #stopping: Promise<void> | undefined;

  constructor(options: DeliveryOptions) {
    this.#notifications = options.notifications;
    this.#transports = options.transports;
    this.#maxAttempts = options.maxAttempts;
    this.#keepMs = options.keepDays * DAY_MS;
    this.#concurrency = Math.max(1, options.concurrency ?? DEFAULT_CONCURRENCY);
    this.#now = options.now ?? (() => new Date());
    this.#logger = options.logger;
    this.#instance = options.instance ?? null;
    this.#claimMs = options.claimMs ?? SEND_CLAIM_MS;
  }

  /** The registry's job: every 15 s for due retries, and at start for what was pending before a restart. */
  job(): ScheduledJob {
    return { name: DELIVERY_JOB, everyMs: TICK_MS, runAtStart: true, run: () => this.run(), stop: () => this.stop() };
  }

  /** New messages were recorded: send them now (the outbox's `onQueued`). */
  wake(): void {
    if (!this.#stopped) void this.run();
  }

  /**
   * Sends everything due, and again if woken meanwhile; resolves when nothing is left to do. Runs never overlap: a
   * call during a run makes that run go round once more. Never rejects (a store failure is logged and retried).
   */
  run(): Promise<void> {
    this.#again = true;
    this.#running ??= this.#loop().finally(() => {
      this.#running = null;
    });
    return this.#running;
  }

  /** Stops sending: the run in progress finishes its sends and records them, then the transports close. */
  stop(): Promise<void> {
    this.#stopped = true;
    this.#stopping ??= (async () => {
      await this.#running;
      await Promise.all(Object.values(this.#transports).map((t) => t.close()));
    })();
    return this.#stopping;
  }

  /**
   * The record once its first try has an outcome (sent, failed, or a retry planned), or as it stands after
   * `timeoutMs`; null when it does not exist. For the test message, whose sender waits to see what happened.
   */
  async outcome(id: string, timeoutMs: number): Promise<NotificationRecord | null> {
    let resolve: (record: NotificationRecord | null) => void = () => undefined;
    const settled = new Promise<NotificationRecord | null>((r) => {
      resolve = r;
    });
    const list = this.#waiters.get(id) ?? [];
    list.push(resolve);
    this.#waiters.set(id, list);
    // Already tried (the send may have finished before this call): no need to wait.
    const current = await this.#notifications.findById(id);
    if (current === null || current.status !== 'pending' || current.attempts > 0) resolve(current);
    else if (!this.#inFlight.has(id)) this.wake();
    const timer = setTimeout(() => {
      void this.#notifications.findById(id).then(resolve, () => resolve(current));
    }, timeoutMs);
    try {
      return await settled;
    } finally {
      clearTimeout(timer);
      const rest = (this.#waiters.get(id) ?? []).filter((w) => w !== resolve);
      if (rest.length === 0) this.#waiters.delete(id);
      else this.#waiters.set(id, rest);
    }
  }

  async #loop(): Promise<void> {
    while (this.#again && !this.#stopped) {
      this.#again = false;
      try {
        // A full batch may have left more due records behind it.
        while (!this.#stopped && (await this.#pass()) === BATCH);
        await this.#pruneIfDue();
      } catch (err) {
        this.#logger.error({ err }, 'delivering messages failed; it is tried again at the next scan');
      }
    }
  }

  /** Sends one batch of due records; returns how many were read. */
  async #pass(): Promise<number> {
    const now = this.#now();
    // Records another sender is on are left out, so a batch of them does not keep this loop reading them again.
    const claims = this.#instance === null ? {} : claimable(this.#instance, now);
    const due = await this.#notifications.find({ status: 'pending', nextAttemptAt: { $lte: now }, ...claims }, { sort: { nextAttemptAt: 1 }, limit: BATCH });
    const queue = due.filter((record) => !this.#inFlight.has(record._id));
    const worker = async (): Promise<void> => {
      for (let record = queue.shift(); record !== undefined; record = queue.shift()) await this.#attempt(record);
    };
    await Promise.all(Array.from({ length: Math.min(this.#concurrency, queue.length) }, worker));
    return due.length;
  }

  /** One try of one record, and its outcome recorded; nothing when another sender claimed it first. */
  async #attempt(record: NotificationRecord): Promise<void> {
    this.#inFlight.add(record._id);
    try {
      if (!(await this.#claim(record))) return;
      const attempts = record.attempts + 1;
      let updated: NotificationRecord | null;
      try {
        await this.#transports[record.method].send(record);
        updated = await this.#notifications.updateById(record._id, { set: { status: 'sent', attempts, sentAt: this.#now() }, unset: [...BODIES, 'lastError'] });
        this.#logger.info({ notification: record._id, kind: record.kind, method: record.method, to: record.to, attempts }, 'message sent');
      } catch (err) {
        const lastError = errorText(err);
        const next = afterFailedTry(attempts, this.#maxAttempts, this.#now(), err instanceof DeliveryError && err.permanent);
        updated =
          next.status === 'failed'
            ? await this.#notifications.updateById(record._id, { set: { status: 'failed', attempts, lastError }, unset: BODIES })
            : await this.#notifications.updateById(record._id, { set: { attempts, lastError, nextAttemptAt: next.nextAttemptAt }, unset: CLAIM_FIELDS });
        const fields = { notification: record._id, kind: record.kind, method: record.method, to: record.to, attempts, error: lastError };
        if (next.status === 'failed') this.#logger.warn(fields, 'message not sent, and not tried again');
        else this.#logger.info({ ...fields, nextAttemptAt: next.nextAttemptAt }, 'message not sent yet; tried again later');
      }
      for (const resolve of this.#waiters.get(record._id) ?? []) resolve(updated);
    } finally {
      this.#inFlight.delete(record._id);
    }
  }

  /**
   * Claims a record for this sender: still pending, with the attempts it was read with (no other sender has tried it
   * since), and nobody else's claim. True when this sender won it.
   */
  async #claim(record: NotificationRecord): Promise<boolean> {
    if (this.#instance === null) return true;
    const now = this.#now();
    const filter = { _id: record._id, status: 'pending', attempts: record.attempts, ...claimable(this.#instance, now) };
    return (await this.#notifications.updateMany(filter, { set: claimFor(this.#instance, now, this.#claimMs) })) === 1;
  }

  /** Removes records older than `keepDays`, at most hourly. Pending ones are kept: they still have tries to make. */
  async #pruneIfDue(): Promise<void> {
    const now = this.#now().getTime();
    if (this.#lastPrune !== null && now - this.#lastPrune < PRUNE_EVERY_MS) return;
    this.#lastPrune = now;
    const removed = await this.#notifications.removeMany({ status: { $ne: 'pending' }, created: { $lt: new Date(now - this.#keepMs) } });
    if (removed > 0) this.#logger.info({ removed }, 'removed old message records');
  }
}
