/**
 * Migration 10: the search index (issue 37) beside the transaction log. Written out once and never edited
 * (migrations.ts): a later change is a new migration.
 *
 * `search_keys` holds one row per transaction, kind and normalised value. The kind is `id` for the three identifiers
 * the console's one box finds (patient ID, order number, control ID: `names` says which the value is) and `type` for
 * the message type, so a page by key, `any` included, is one range of `search_keys_lookup` read newest first (a
 * backward scan) that stops at its LIMIT, and a transaction never comes twice. The channel, the names (one bit each)
 * and the authorities (null when none; each with its name's bit, search-keys.ts) are carried in that index, so the
 * name, an authority and a user's channel list are decided on the index entry, before any transaction row is read. The hash index on `tx` replaces and removes a
 * transaction's rows and tests a second key condition, at a fraction of a btree's size.
 *
 * `search_docs` holds one row per indexed transaction: every key as written, for showing why it matched, and the
 * words of its bodies as a tsvector built from the words themselves (`array_to_tsvector`: no parser, no stemming, no
 * positions), so a body's text is never kept, only the set of its words, in a GIN index. Its (ts, tx) index lets a
 * common word be found walking newest first, instead of collecting and sorting every match; the partial (channel, ts)
 * index finds the words that `removeChannelTextBefore` drops and holds nothing of what it dropped.
 *
 * Indexes are ascending and read backward for newest first: entries arrive in time order, and a btree splits its last
 * page full when keys grow, where a descending index would split its first page in halves and stay half empty.
 *
 * Neither table is scanned in parallel: a search reads a page's worth of index entries, and starting workers to read
 * them took longer (20 to 50 ms on a busy machine) than the reading.
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
  kind text COLLATE "C" NOT NULL,
  value text COLLATE "C" NOT NULL,
  ts bigint NOT NULL,
  channel text NOT NULL,
  names smallint NOT NULL,
  authorities text[] COLLATE "C"
) WITH (parallel_workers = 0);
CREATE INDEX search_keys_lookup ON search_keys (kind, value, ts, tx) INCLUDE (channel, names, authorities);
CREATE INDEX search_keys_tx ON search_keys USING hash (tx);
CREATE TABLE search_docs (
  tx text PRIMARY KEY,
  ts bigint NOT NULL,
  channel text NOT NULL,
  keys jsonb NOT NULL,
  words tsvector
) WITH (parallel_workers = 0);
CREATE INDEX search_docs_time ON search_docs (ts, tx);
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

/**
 * Migration 11: the same index in about half the space (issue 37: PostgreSQL's was 5.1 GB per million transactions,
 * against SQLite's 1.5). The tables are replaced, empty, and the state reset, so the indexer rebuilds the index by its
 * walk back over the stored transactions (newest first; searches find what it has covered meanwhile): nothing of
 * the old layout can be carried over in SQL, as the keys are now kept deflated (search-stored-keys.ts).
 *
 * - Transaction ids are kept as their 12 bytes (`bytea`, 13 on disk against 25 for the hex text), in the same order
 *   as the hex the log keeps (lower-case, fixed length), so newest first is unchanged; the joins decode and encode.
 * - Channels are numbers of `search_channels` (4 bytes a row against 25), a row per channel ever indexed.
 * - `search_keys_lookup` covers what a newest-first page by key decides before reading a transaction: the range
 *   (kind, value) newest first, the channel and the names; an authority (given with a patient ID only) is tested on
 *   the key's row, where the authorities are one text (`\x1f1|mrn\x1f2|lab\x1f`, search-keys.ts), 10 bytes where an
 *   array of one took 40. The kind is one byte (`"char"`: `i` an identifier, `t` a message type).
 * - `search_keys_tx` is a btree, whose entries of one transaction share one key (deduplication): a third of the hash.
 * - The words are a text of distinct words (a third smaller than the tsvector of the same words, which spends four
 *   bytes on each), indexed by a GIN index on the tsvector they make; its statistics tell how common a word is.
 * - The keys as extracted (only shown with a match) are deflated with a dictionary of their usual field names.
 */
export const SMALLER_SEARCH_INDEX_MIGRATION = {
  version: 11,
  name: 'search index, smaller',
  notice: 'The search index was rebuilt in a smaller layout: older transactions are indexed again in the background, newest first (progress at GET /transactions/search-index)',
  sql: `
DROP TABLE search_keys;
DROP TABLE search_docs;
CREATE TABLE search_channels (
  id integer GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
  channel text NOT NULL UNIQUE
);
CREATE TABLE search_keys (
  ts bigint NOT NULL,
  channel integer NOT NULL,
  names smallint NOT NULL,
  kind "char" NOT NULL,
  tx bytea NOT NULL,
  value text COLLATE "C" NOT NULL,
  authorities text COLLATE "C"
) WITH (parallel_workers = 0);
CREATE INDEX search_keys_lookup ON search_keys (kind, value, ts, tx) INCLUDE (channel, names);
CREATE INDEX search_keys_tx ON search_keys (tx);
CREATE TABLE search_docs (
  tx bytea PRIMARY KEY,
  ts bigint NOT NULL,
  channel integer NOT NULL,
  keys bytea,
  words text
) WITH (parallel_workers = 0);
CREATE INDEX search_docs_time ON search_docs (ts, tx);
CREATE INDEX search_docs_words ON search_docs USING gin (array_to_tsvector(string_to_array(words, ' ')));
CREATE INDEX search_docs_channel_words ON search_docs (channel, ts) WHERE words IS NOT NULL;
UPDATE search_state SET finished_seq = 0, backfill_before = NULL, backfill_done = FALSE, backfill_total = 0, backfill_covered = 0`,
} as const;
