/**
 * Auto retry (SPEC.md "Request handling", COMPAT.md): transactions that failed to reach their primary route (a
 * connection error, a timeout) or whose mediator reported an `error` are flagged `autoRetry` and queued (see
 * storage/auto-retry-queue.ts); an upstream 5xx is an answer and is never flagged. This job re-runs each queued
 * transaction once its channel's autoRetryPeriodMinutes have passed since its request. Each attempt is a new
 * transaction linked to the one it retries (parentID / childIDs) and numbered by autoRetryAttempt; one that fails
 * the same way is queued again, until the channel's autoRetryMaxAttempts is reached (unset or 0: unlimited), which emits
 * `transaction.autoRetryMaxAttempted`.
 *
 * No retry is sent twice: the queue entry records the new transaction's id before the retry starts, and the
 * pipeline stores that transaction before it sends anything. A scan that finds an entry with an id the log holds
 * knows the retry happened (a crash stopped its bookkeeping) and only finishes the bookkeeping.
 *
 * Several instances on one database: the scan runs under the job's lease, and each retry is also claimed on its
 * entry (storage/claims.ts) by the same conditional update that records its id, so two scans that overlap (a lease
 * lost by a stalled holder) never both make it, and an entry whose retry is in flight elsewhere is not mistaken for
 * an interrupted one until its claim runs out. Another instance's queueing is not visible to `written`, so an entry
 * younger than a minute whose transaction is missing or not flagged yet is looked at again rather than dropped.
 */
import type { Logger } from 'pino';
import { AppError } from '../errors.js';
import { rerunRefusal } from '../domain/transactions/rerun.js';
import type { LiveEvents } from '../events/live.js';
import type { Replays } from '../pipeline/replay.js';
import type { AutoRetryRecord, ChannelRecord } from '../storage/records.js';
import type { Collection } from '../storage/store.js';
import type { QueueingTransactionLog } from '../storage/auto-retry-queue.js';
import { CLAIM_FIELDS, SINGLE_INSTANCE, claimFor, claimable, heldByAnother } from '../storage/claims.js';
import type { TransactionRecord } from '../storage/transactions.js';
import type { ScheduledJob } from './registry.js';

export const AUTO_RETRY_JOB = 'auto-retry';
// Retries of one scan run a few at a time: enough to clear a backlog, few enough not to flood a recovering service.
const PARALLEL_RETRIES = 4;
/**
 * How long a claim on one retry lasts. It needs to cover only the moment from recording the retry's id to the pipeline
 * storing the retry, which comes before anything is sent: after that the log itself says the retry happened.
 */
export const RETRY_CLAIM_MS = 60_000;
/** How long another instance's write of a queued transaction may take to show in the log. */
const QUEUE_GRACE_MS = 60_000;

export interface AutoRetryDeps {
  queue: Collection<AutoRetryRecord>;
  /** The queueing log (storage/auto-retry-queue.ts), whose `written` tells when a flag is on its way. */
  log: Pick<QueueingTransactionLog, 'get' | 'update' | 'written'>;
  channels: Collection<ChannelRecord>;
  replays: Pick<Replays, 'newTransaction' | 'rerun' | 'link'>;
  events: LiveEvents;
  /** Milliseconds in one minute of autoRetryPeriodMinutes (60000; tests shorten it). */
  minuteMs: number;
  logger: Logger;
  now?: () => Date;
  /** This instance, as its claims name it (the default suits the embedded engine, one process at a time). */
  instance?: string;
  /** How long a claim on a retry lasts (RETRY_CLAIM_MS; tests shorten it). */
  claimMs?: number;
}

async function forEachLimited<T>(items: readonly T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const item = items[next++] as T;
      await fn(item);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

/** The auto-retry job: scans the queue every `everyMs`, and once at start for retries that fell due while stopped. */
export function autoRetryJob(deps: AutoRetryDeps, everyMs: number): ScheduledJob {
  return { name: AUTO_RETRY_JOB, everyMs, runAtStart: true, run: () => scanAutoRetries(deps) };
}

/** One pass over the queue: retries what is due, finishes retries interrupted by a crash, drops what is not retried. */
export async function scanAutoRetries(deps: AutoRetryDeps): Promise<void> {
  const entries = await deps.queue.find({}, { sort: { queuedAt: 1 } });
  const channels = new Map<string, Promise<ChannelRecord | null>>();
  const channelOf = (id: string) => {
    let channel = channels.get(id);
    if (channel === undefined) channels.set(id, (channel = deps.channels.findById(id)));
    return channel;
  };
  await forEachLimited(entries, PARALLEL_RETRIES, async (entry) => {
    try {
      await handle(deps, entry, channelOf);
    } catch (err) {
      deps.logger.error({ err, transactionId: entry._id }, 'auto retry failed; the transaction stays queued');
    }
  });
}

async function handle(deps: AutoRetryDeps, entry: AutoRetryRecord, channelOf: (id: string) => Promise<ChannelRecord | null>): Promise<void> {
  const { queue, log, replays, logger } = deps;
  const me = deps.instance ?? SINGLE_INSTANCE;
  const now = deps.now?.() ?? new Date();
  await log.written(entry._id);
  const tx = await log.get(entry._id);
  // Alone (the embedded engine), `written` has seen every queueing, and nothing needs the grace.
  const recent = deps.instance !== undefined && now.getTime() - entry.queuedAt.getTime() < QUEUE_GRACE_MS;
  if (tx === null) {
    if (!recent) await queue.removeById(entry._id);
    return;
  }
  // Not settled yet (its own write of the flag may follow): it is looked at again at the next scan.
  if (tx.status === 'Processing') return;
  if (entry.childID !== undefined) {
    // Being retried by another instance right now: its retry is not an interrupted one.
    if (heldByAnother(entry, me, now)) return;
    const child = await log.get(entry.childID);
    if (child !== null) {
      // The retry was stored, so it was sent: finish what the crash interrupted instead of sending it again.
      await replays.link(tx._id, child._id, { autoRetry: false });
      await queue.removeById(entry._id);
      return;
    }
    // Conditional, so a retry another instance started meanwhile keeps the id it recorded.
    if ((await queue.updateMany({ _id: entry._id, childID: entry.childID }, { unset: ['childID', ...CLAIM_FIELDS] })) === 0) return;
  }
  if (!tx.autoRetry) {
    if (!recent) await queue.removeById(entry._id);
    return;
  }
  const channel = await channelOf(tx.channelID);
  if (channel === null || channel.status === 'deleted' || !channel.autoRetryEnabled) {
    await drop(deps, tx, 'its channel was deleted or no longer retries automatically');
    return;
  }
  // A disabled channel keeps its queue: retries resume when it is enabled again.
  if (channel.status !== 'enabled') return;
  const max = channel.autoRetryMaxAttempts;
  // Unset or 0 means unlimited, as in OpenHIM.
  if (max !== undefined && max > 0 && tx.autoRetryAttempt >= max) {
    // Emitted before the flag is cleared: after a crash in between the alert may repeat, but is never lost.
    deps.events.emit('transaction.autoRetryMaxAttempted', { transactionId: tx._id, channelID: tx.channelID, attempts: tx.autoRetryAttempt, maxAttempts: max, at: new Date() });
    await drop(deps, tx, `it reached the channel's maximum of ${max} attempts`, 'warn');
    return;
  }
  if (tx.request.timestamp.getTime() + channel.autoRetryPeriodMinutes * deps.minuteMs > now.getTime()) return;
  const refusal = rerunRefusal(tx, channel);
  if (refusal !== null) {
    await drop(deps, tx, `it cannot be re-run: ${refusal}`, 'warn');
    return;
  }
  const child = replays.newTransaction();
  // The claim and the retry's id in one conditional update: of two scans racing for this entry, one wins.
  const claimed = await queue.updateMany({ _id: entry._id, childID: { $exists: false }, ...claimable(me, now) }, { set: { childID: child.id, ...claimFor(me, now, deps.claimMs ?? RETRY_CLAIM_MS) } });
  if (claimed === 0) return;
  const attempt = tx.autoRetryAttempt + 1;
  try {
    const stored = await replays.rerun(tx, child, { autoRetryAttempt: attempt, parentChanges: { autoRetry: false } });
    logger.info({ transactionId: tx._id, retry: stored._id, attempt, status: stored.status }, 'transaction retried automatically');
  } catch (err) {
    if (err instanceof AppError && err.code === 'TRANSACTION_NOT_RERUNNABLE') {
      await queue.updateById(entry._id, { unset: ['childID', ...CLAIM_FIELDS] });
      await drop(deps, tx, err.message, 'warn');
      return;
    }
    // Left with its childID: the next scan sees from the log whether the retry was stored (and so sent) or not.
    throw err;
  }
  await queue.removeById(entry._id);
}

async function drop(deps: AutoRetryDeps, tx: TransactionRecord, why: string, level: 'info' | 'warn' = 'info'): Promise<void> {
  await deps.log.update(tx._id, { set: { autoRetry: false } });
  await deps.queue.removeById(tx._id);
  deps.logger[level]({ transactionId: tx._id, channelID: tx.channelID }, `transaction no longer retried automatically: ${why}`);
}
