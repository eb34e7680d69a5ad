/**
 * Migration 7: the keystore's one document (storage/keystore-document.ts), shared by every instance. `version` counts
 * writes, so an instance told of a change compares one number, and a write names the version it replaces.
 */
export const keystoreMigration = {
  version: 7,
  name: 'keystore document',
  sql: `CREATE TABLE keystore (
    id smallint PRIMARY KEY CHECK (id = 1),
    version bigint NOT NULL,
    document text NOT NULL,
    updated_at timestamptz NOT NULL DEFAULT now())`,
} as const;
