/**
 * What a transaction's first final status writes beside it, in the same SQL transaction: its finished entry (what the
 * alert job and the search indexer read) and its counts for the minute, hour and day metric buckets; and what a later
 * write that changes its indexed parts writes: a `changed` entry, so the indexer reads it again. Both are appended, so concurrent
 * completions never wait for each other; the readers below do the serial part.
 *
 * `seq` must follow commit order: a reader that has read seq 6 must never find a 5 later. A sequence cannot give that
 * (its values are handed out at insert, and transactions commit in any order), so entries are written unnumbered
 * and numbered by `numberFinished`, one numbering at a time, only ever the entries already committed: a numbering
 * commits whole, and the next one starts from where it ended.
 */
import type { PoolClient } from 'pg';
import type { BucketStarts } from '../../domain/operations/metric-buckets.js';
import type { TransactionRecord } from '../transactions.js';

/** Appends the finished entries and metric counts of `records`, which have just reached their first final status. */
export async function writeFinished(client: PoolClient, records: readonly TransactionRecord[], buckets: BucketStarts, at: number): Promise<void> {
  if (records.length === 0) return;
  const values: unknown[] = [];
  await client.query(`WITH ${finishedParts(records, buckets, at, values).join(',\n')} SELECT 1`, values);
}

/**
 * The two data-modifying parts of a WITH that append the finished entries and metric counts of `records` (at least
 * one), their parameters pushed onto `values`: a group commit (transaction-log-batches.ts) writes them in the same
 * statement as the batch's rows. PostgreSQL runs every data-modifying part of a WITH once, read or not.
 */
export function finishedParts(records: readonly TransactionRecord[], buckets: BucketStarts, at: number, values: unknown[]): string[] {
  const add = (value: unknown): string => {
    values.push(value);
    return `$${values.length}`;
  };
  // Counted by request time, and only with a response, as OpenHIM counts.
  const counted = records.filter((record) => record.response !== undefined);
  const starts = (period: 'minute' | 'hour' | 'day') => counted.map((r) => buckets.startOf(r.request.timestamp.getTime(), period));
  const finished = `finished_entries AS (
       INSERT INTO finished_transactions (id, channel, status, code, at, ts, retry, auto_retry)
       SELECT * FROM unnest(${add(records.map((r) => r._id))}::text[], ${add(records.map((r) => r.channelID))}::text[], ${add(records.map((r) => r.status))}::text[],
         ${add(records.map((r) => r.response?.status ?? null))}::integer[], ${add(records.map(() => at))}::bigint[], ${add(records.map((r) => r.request.timestamp.getTime()))}::bigint[],
         ${add(records.map((r) => r.autoRetryAttempt ?? null))}::integer[], ${add(records.map((r) => r.autoRetry === true))}::boolean[])
     )`;
  if (counted.length === 0) return [finished];
  const counts = `metric_counts AS (
       INSERT INTO transaction_metric_counts (channel, zone, minute, hour, day, status, ms)
       SELECT c, ${add(buckets.timeZone)}, mi, h, d, s, ms FROM unnest(${add(counted.map((r) => r.channelID))}::text[], ${add(starts('minute'))}::bigint[], ${add(starts('hour'))}::bigint[],
         ${add(starts('day'))}::bigint[], ${add(counted.map((r) => r.status))}::text[],
         -- A clock stepped back between request and response would give a negative time: it counts as instant.
         ${add(counted.map((r) => Math.max(0, (r.response?.timestamp.getTime() ?? 0) - r.request.timestamp.getTime())))}::float8[]) AS u (c, mi, h, d, s, ms)
     )`;
  return [finished, counts];
}

/**
 * The data-modifying part of a WITH that names `records` on the feed again, flagged `changed`: each had already
 * finished, and the write being committed changed what the search index reads of it (domain/transactions/
 * search-refresh.ts). No metric counts: each was counted when it first finished. Parameters are pushed onto `values`.
 */
export function changedParts(records: readonly TransactionRecord[], at: number, values: unknown[]): string[] {
  if (records.length === 0) return [];
  const add = (value: unknown): string => {
    values.push(value);
    return `$${values.length}`;
  };
  return [
    `changed_entries AS (
       INSERT INTO finished_transactions (id, channel, status, code, at, ts, retry, auto_retry, changed)
       SELECT *, TRUE FROM unnest(${add(records.map((r) => r._id))}::text[], ${add(records.map((r) => r.channelID))}::text[], ${add(records.map((r) => r.status))}::text[],
         ${add(records.map((r) => r.response?.status ?? null))}::integer[], ${add(records.map(() => at))}::bigint[], ${add(records.map((r) => r.request.timestamp.getTime()))}::bigint[],
         ${add(records.map((r) => r.autoRetryAttempt ?? null))}::integer[], ${add(records.map((r) => r.autoRetry === true))}::boolean[])
     )`,
  ];
}

/**
 * Numbers the committed entries that have no `seq` yet, in the order they were written, after the last number given.
 * The counter row is locked first, in a statement of its own, so that the numbering statement's snapshot (taken when
 * it starts, after the lock) sees everything the previous numbering committed.
 */
export async function numberFinished(client: PoolClient): Promise<void> {
  await client.query('SELECT last FROM finished_transactions_counter FOR UPDATE');
  await client.query(`
    WITH pending AS (SELECT entry, row_number() OVER (ORDER BY entry) AS n FROM finished_transactions WHERE seq IS NULL),
         bump AS (UPDATE finished_transactions_counter SET last = last + (SELECT count(*) FROM pending) RETURNING last - (SELECT count(*) FROM pending) AS base)
    UPDATE finished_transactions f SET seq = bump.base + pending.n FROM pending, bump WHERE f.entry = pending.entry`);
}

/**
 * Adds the committed metric counts into their buckets and removes them, in one statement: two folds at once each
 * take the rows the other has not (DELETE waits for, then skips, rows another deleted), so none is added twice.
 */
export const FOLD_METRICS_SQL = `
  WITH moved AS (DELETE FROM transaction_metric_counts RETURNING channel, zone, minute, hour, day, status, ms),
  per AS (
    SELECT 'minute' AS period, minute AS start, channel, zone, status, ms FROM moved
    UNION ALL SELECT 'hour', hour, channel, zone, status, ms FROM moved
    UNION ALL SELECT 'day', day, channel, zone, status, ms FROM moved
  )
  INSERT INTO transaction_metrics (period, start, channel, zone, requests, successful, completed, completed_errors, failed, processing, min_ms, max_ms, total_ms)
  SELECT period, start, channel, max(zone), count(*),
         count(*) FILTER (WHERE status = 'Successful'), count(*) FILTER (WHERE status = 'Completed'),
         count(*) FILTER (WHERE status = 'Completed with error(s)'), count(*) FILTER (WHERE status = 'Failed'),
         count(*) FILTER (WHERE status = 'Processing'), min(ms), max(ms), sum(ms)
    FROM per GROUP BY period, start, channel
    -- One order of bucket rows in every fold, so two folds never wait on each other's rows crosswise.
    ORDER BY period, start, channel
  ON CONFLICT (period, start, channel) DO UPDATE SET
    requests = transaction_metrics.requests + excluded.requests,
    successful = transaction_metrics.successful + excluded.successful,
    completed = transaction_metrics.completed + excluded.completed,
    completed_errors = transaction_metrics.completed_errors + excluded.completed_errors,
    failed = transaction_metrics.failed + excluded.failed,
    processing = transaction_metrics.processing + excluded.processing,
    min_ms = LEAST(transaction_metrics.min_ms, excluded.min_ms),
    max_ms = GREATEST(transaction_metrics.max_ms, excluded.max_ms),
    total_ms = transaction_metrics.total_ms + excluded.total_ms`;
