/**
 * Migration 3: the transaction log's tables. Written out once and never edited (migrations.ts): a later change is a
 * new migration.
 *
 * The filter columns sit beside the jsonb document, each btree ending in (ts, id) so that a newest-first page with
 * an equality on its leading column is read straight off the index, newest first, and stops at its LIMIT.
 *
 * Retention deletes whole days in batches through `transactions_time` rather than dropping day partitions: with
 * partitions, every instance would have to create the next day's partition (DDL that locks the parent table) and
 * the key would have to include the day; a day of a busy clinic (27,000 rows) deletes in well under a second, and
 * autovacuum returns the space to the table.
 *
 * A completion only appends rows: its finished entry (without its `seq` yet) and one row of metric counts. Had it
 * updated the bucket rows, or taken the next `seq` under a lock, every completion of a channel (or of the cluster)
 * would wait for the previous one's commit to reach the disk. Readers do the serial part instead
 * (transaction-log-finish.ts): they number the committed entries, and fold the counts into `transaction_metrics`.
 */
export const TRANSACTION_LOG_SQL = `
CREATE TABLE transactions (
  id text PRIMARY KEY,
  ts bigint NOT NULL,
  channel text NOT NULL,
  client text,
  status text NOT NULL,
  code integer,
  method text NOT NULL,
  path text NOT NULL,
  rerun boolean NOT NULL,
  instance text NOT NULL,
  doc jsonb NOT NULL
);
CREATE INDEX transactions_time ON transactions (ts, id);
CREATE INDEX transactions_channel_time ON transactions (channel, ts, id);
CREATE INDEX transactions_status_time ON transactions (status, ts, id);
CREATE INDEX transactions_client_time ON transactions (client, ts, id) WHERE client IS NOT NULL;
CREATE INDEX transactions_processing ON transactions (instance, id) WHERE status = 'Processing';
CREATE TABLE transaction_metrics (
  period text NOT NULL,
  start bigint NOT NULL,
  channel text NOT NULL,
  zone text NOT NULL,
  requests bigint NOT NULL,
  successful bigint NOT NULL,
  completed bigint NOT NULL,
  completed_errors bigint NOT NULL,
  failed bigint NOT NULL,
  processing bigint NOT NULL,
  min_ms double precision NOT NULL,
  max_ms double precision NOT NULL,
  total_ms double precision NOT NULL,
  PRIMARY KEY (period, start, channel)
);
CREATE TABLE transaction_metric_counts (
  entry bigserial PRIMARY KEY,
  channel text NOT NULL,
  zone text NOT NULL,
  minute bigint NOT NULL,
  hour bigint NOT NULL,
  day bigint NOT NULL,
  status text NOT NULL,
  ms double precision NOT NULL
);
CREATE TABLE finished_transactions (
  entry bigserial PRIMARY KEY,
  seq bigint UNIQUE,
  id text NOT NULL,
  channel text NOT NULL,
  status text NOT NULL,
  code integer,
  at bigint NOT NULL,
  ts bigint NOT NULL,
  retry integer,
  auto_retry boolean NOT NULL
);
CREATE INDEX finished_transactions_unnumbered ON finished_transactions (entry) WHERE seq IS NULL;
CREATE INDEX finished_transactions_at ON finished_transactions (at);
CREATE TABLE finished_transactions_counter (last bigint NOT NULL);
INSERT INTO finished_transactions_counter (last) VALUES (0);
`;

/**
 * Migration 12: a finished entry may name a transaction again, after a later write changed what the search index
 * reads of it (`changed`, domain/transactions/search-refresh.ts). A constant default adds the column without
 * rewriting the table.
 */
export const CHANGED_ENTRIES_MIGRATION = {
  version: 12,
  name: 'finished entries of changed transactions',
  sql: 'ALTER TABLE finished_transactions ADD COLUMN changed boolean NOT NULL DEFAULT false',
} as const;
