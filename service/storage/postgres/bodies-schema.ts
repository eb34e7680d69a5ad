/**
 * Migration 4: bodies. A body's row in `bodies` is its commit: it is written last, after every chunk, so a reader
 * that finds it finds the whole body. A body shorter than one chunk is held in that row (`data`), one INSERT; a
 * longer one is `chunks` rows of `body_chunks`, written as the body arrives. Chunks whose body never got its row (a
 * stream aborted, a process killed mid-body) are invisible and go with their day at retention.
 */
export const BODIES_SQL = `
CREATE TABLE bodies (
  path text PRIMARY KEY,
  day text NOT NULL,
  channel text NOT NULL,
  size bigint NOT NULL,
  chunks integer NOT NULL,
  data bytea,
  CHECK ((chunks = 0) = (data IS NOT NULL))
);
CREATE INDEX bodies_day_channel ON bodies (day, channel);
CREATE TABLE body_chunks (
  path text NOT NULL,
  n integer NOT NULL,
  day text NOT NULL,
  channel text NOT NULL,
  data bytea NOT NULL,
  PRIMARY KEY (path, n)
);
CREATE INDEX body_chunks_day_channel ON body_chunks (day, channel)`;
