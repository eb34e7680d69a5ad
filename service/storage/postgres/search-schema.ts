/**
 * Migration 10: the search index (issue 37) beside the transaction log. Written out once and never edited
 * (migrations.ts): a later change is a new migration.
 *
 * `search_keys` holds one row per transaction and searchable key (name and normalised value; its authorities as a
 * list), so a page by key is read straight off `search_keys_lookup`, newest first, and stops at its LIMIT; the
 * channel and the authorities are carried in that index so that a user's channel list and an authority are decided
 * there, before any transaction row is read. The primary key (tx, name, value) replaces a transaction's keys, removes
 * them with it, and tests a second key condition on a row the first one found.
 *
 * `search_docs` holds one row per indexed transaction: every key as written, for showing why it matched, and the
 * words of its bodies as a tsvector built from the words themselves (`array_to_tsvector`: no parser, no stemming, no
 * positions), so a body's text is never kept, only the set of its words, in a GIN index. Its (ts, tx) index lets
 * the planner walk newest first for a common word instead of collecting and sorting every match; the partial
 * (channel, ts) index finds the words that `removeChannelTextBefore` drops and is empty of what it dropped.
 *
 * Both tables name the transaction's request time and channel, copied at indexing, rather than a foreign key: a
 * foreign key's check costs a lookup and a row lock on `transactions` per inserted row, and its cascade one delete per
 * removed transaction; the log removes the entries itself, in the statement that removes the transactions.
 */
export const SEARCH_INDEX_MIGRATION = {
  version: 10,
  name: 'search index',
  sql: `
CREATE TABLE search_keys (
  tx text NOT NULL,
  name text COLLATE "C" NOT NULL,
  value text COLLATE "C" NOT NULL,
  ts bigint NOT NULL,
  channel text NOT NULL,
  authorities text[] COLLATE "C" NOT NULL,
  PRIMARY KEY (tx, name, value)
);
CREATE INDEX search_keys_lookup ON search_keys (name, value, ts DESC, tx DESC) INCLUDE (channel, authorities);
CREATE TABLE search_docs (
  tx text PRIMARY KEY,
  ts bigint NOT NULL,
  channel text NOT NULL,
  keys jsonb NOT NULL,
  words tsvector
);
CREATE INDEX search_docs_time ON search_docs (ts DESC, tx DESC);
CREATE INDEX search_docs_words ON search_docs USING gin (words);
CREATE INDEX search_docs_channel_words ON search_docs (channel, ts) WHERE words IS NOT NULL;
CREATE TABLE search_state (
  only_row boolean PRIMARY KEY DEFAULT TRUE CHECK (only_row),
  finished_seq bigint NOT NULL,
  backfill_before text,
  backfill_done boolean NOT NULL,
  backfill_total bigint NOT NULL,
  backfill_covered bigint NOT NULL
);
INSERT INTO search_state (finished_seq, backfill_before, backfill_done, backfill_total, backfill_covered) VALUES (0, NULL, FALSE, 0, 0)`,
} as const;
