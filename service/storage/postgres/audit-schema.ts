/**
 * Migration 5: the audit log and the audit outbox (issue 20), in their own constant so that the migrations of the
 * other stores merge beside it. The layout is the SQLite audit log's (sqlite/audit-log.ts): a row per audit with the
 * event's filter fields as indexed columns beside the record, a term table for the participants' and objects' values
 * keyed by value then time, and the codes seen. Text that indexes compare by prefix or orders by is in the "C"
 * collation, so ordering is by bytes as in SQLite and JavaScript, whatever locale the database was created with.
 *
 * The record is kept as JSON text rather than jsonb: jsonb cannot hold a NUL character, which a malformed audit's
 * raw message may carry, and nothing queries inside the record (every filter reads the columns and terms).
 */
export const AUDITS_MIGRATION = {
  version: 5,
  name: 'audit log and audit outbox',
  sql: `
CREATE TABLE audits (
  id text COLLATE "C" PRIMARY KEY,
  ts bigint NOT NULL,
  event_id text COLLATE "C",
  event_type text COLLATE "C",
  outcome text COLLATE "C",
  action text COLLATE "C",
  source text COLLATE "C",
  doc text NOT NULL
);
CREATE INDEX audits_time ON audits (ts, id);
CREATE INDEX audits_event_id ON audits (event_id, ts, id);
CREATE INDEX audits_event_type ON audits (event_type, ts, id);
CREATE INDEX audits_outcome ON audits (outcome, ts, id);
CREATE INDEX audits_action ON audits (action, ts, id);
CREATE INDEX audits_source ON audits (source, ts, id);
CREATE TABLE audit_terms (
  kind smallint NOT NULL,
  value text COLLATE "C" NOT NULL,
  ts bigint NOT NULL,
  id text COLLATE "C" NOT NULL,
  PRIMARY KEY (kind, value, ts, id)
);
CREATE TABLE audit_codes (
  seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  kind text NOT NULL,
  code text NOT NULL,
  code_system_name text,
  display_name text,
  UNIQUE (kind, code)
);
CREATE TABLE audit_outbox (
  seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  message text NOT NULL,
  claimed_by text,
  claimed_until bigint
)`,
} as const;
