/**
 * What a transaction's first final status writes beside it, in the same SQL transaction: its finished entry (what the
 * alert job reads) and its counts in the minute, hour and day metric buckets. One statement writes a whole group.
 */
import type { PoolClient } from 'pg';
import type { BucketStarts } from '../../domain/metric-buckets.js';
import { STORED_PERIODS } from '../../domain/metric-periods.js';
import type { StoredPeriod } from '../../domain/metric-periods.js';
import type { TransactionStatus } from '../../domain/transaction-status.js';
import type { TransactionRecord } from '../transactions.js';

type Counter = 'successful' | 'completed' | 'completedErrors' | 'failed' | 'processing';

/** The counter each status adds to. */
const STATUS_COUNTERS: Record<TransactionStatus, Counter> = {
  Processing: 'processing',
  Successful: 'successful',
  Completed: 'completed',
  'Completed with error(s)': 'completedErrors',
  Failed: 'failed',
};

/** The advisory lock writers of finished entries take turns on, one per schema (see writeFinished). */
export const FINISHED_LOCK_KEY = "hashtext('junction finished transactions ' || current_schema())";

interface Counts {
  period: StoredPeriod;
  start: number;
  channel: string;
  requests: number;
  successful: number;
  completed: number;
  completedErrors: number;
  failed: number;
  processing: number;
  min: number;
  max: number;
  total: number;
}

/**
 * Writes the finished entries and metric counts of `records`, which have just reached their first final status,
 * inside the caller's SQL transaction.
 *
 * `seq` comes from a sequence, whose values are handed out when a row is inserted, not when it commits: two writers
 * could commit 6 before 5, and an alert job reading in between would move past 5 for good. So the writers take
 * turns, from this insert to their commit, on a transaction-scoped advisory lock: `seq` order is commit order.
 */
export async function writeFinished(client: PoolClient, records: readonly TransactionRecord[], buckets: BucketStarts, at: number): Promise<void> {
  if (records.length === 0) return;
  const counts = new Map<string, Counts>();
  for (const record of records) addCounts(counts, record, buckets);
  // A fixed order of bucket rows in every writer, so two upserts never wait on each other's rows crosswise.
  const rows = [...counts.values()].sort((a, b) => a.period.localeCompare(b.period) || a.start - b.start || a.channel.localeCompare(b.channel));
  await client.query(`SELECT pg_advisory_xact_lock(${FINISHED_LOCK_KEY})`);
  await client.query(
    `WITH finished AS (
       INSERT INTO finished_transactions (id, channel, status, code, at, ts, retry, auto_retry)
       SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::integer[], $5::bigint[], $6::bigint[], $7::integer[], $8::boolean[])
     )
     INSERT INTO transaction_metrics (period, start, channel, zone, requests, successful, completed, completed_errors, failed, processing, min_ms, max_ms, total_ms)
     SELECT p, s, c, $12, r, ok, done, errs, fail, proc, lo, hi, tot
       FROM unnest($9::text[], $10::bigint[], $11::text[], $13::bigint[], $14::bigint[], $15::bigint[], $16::bigint[], $17::bigint[], $18::bigint[],
                   $19::float8[], $20::float8[], $21::float8[]) AS u (p, s, c, r, ok, done, errs, fail, proc, lo, hi, tot)
     ON CONFLICT (period, start, channel) DO UPDATE SET
       requests = transaction_metrics.requests + excluded.requests,
       successful = transaction_metrics.successful + excluded.successful,
       completed = transaction_metrics.completed + excluded.completed,
       completed_errors = transaction_metrics.completed_errors + excluded.completed_errors,
       failed = transaction_metrics.failed + excluded.failed,
       processing = transaction_metrics.processing + excluded.processing,
       min_ms = LEAST(transaction_metrics.min_ms, excluded.min_ms),
       max_ms = GREATEST(transaction_metrics.max_ms, excluded.max_ms),
       total_ms = transaction_metrics.total_ms + excluded.total_ms`,
    [
      records.map((r) => r._id),
      records.map((r) => r.channelID),
      records.map((r) => r.status),
      records.map((r) => r.response?.status ?? null),
      records.map(() => at),
      records.map((r) => r.request.timestamp.getTime()),
      records.map((r) => r.autoRetryAttempt ?? null),
      records.map((r) => r.autoRetry === true),
      rows.map((c) => c.period),
      rows.map((c) => c.start),
      rows.map((c) => c.channel),
      buckets.timeZone,
      rows.map((c) => c.requests),
      rows.map((c) => c.successful),
      rows.map((c) => c.completed),
      rows.map((c) => c.completedErrors),
      rows.map((c) => c.failed),
      rows.map((c) => c.processing),
      rows.map((c) => c.min),
      rows.map((c) => c.max),
      rows.map((c) => c.total),
    ],
  );
}

/** Adds one transaction to its buckets (by request time), only when it has a response, as OpenHIM counts. */
function addCounts(counts: Map<string, Counts>, record: TransactionRecord, buckets: BucketStarts): void {
  const response = record.response;
  if (response === undefined) return;
  const requestMs = record.request.timestamp.getTime();
  // A clock stepped back between request and response would give a negative time: it counts as instant.
  const ms = Math.max(0, response.timestamp.getTime() - requestMs);
  const counter = STATUS_COUNTERS[record.status];
  for (const period of STORED_PERIODS) {
    const start = buckets.startOf(requestMs, period);
    const key = `${period} ${start} ${record.channelID}`;
    let entry = counts.get(key);
    if (entry === undefined) {
      entry = { period, start, channel: record.channelID, requests: 0, successful: 0, completed: 0, completedErrors: 0, failed: 0, processing: 0, min: ms, max: ms, total: 0 };
      counts.set(key, entry);
    }
    entry.requests += 1;
    entry[counter] += 1;
    entry.min = Math.min(entry.min, ms);
    entry.max = Math.max(entry.max, ms);
    entry.total += ms;
  }
}
