/**
 * Migration 6 (issue 20, instances that cooperate): the tables service/cluster/ keeps in the shared database. Kept in
 * its own file so that the migrations added beside it on other branches merge as one line each in migrations.ts.
 */
import type { Migration } from './migrations.js';

/** The instances that beat, the scheduled jobs' leases, and the last claimed tick of each job. */
export const clusterMigration: Migration = {
  version: 6,
  name: 'cluster instances, job leases and claimed ticks',
  sql: [
    // One row per running instance; a survivor deletes the row of one that stopped beating, exactly once.
    `CREATE TABLE cluster_instances (
      id text PRIMARY KEY, name text NOT NULL, api_url text NOT NULL, version text NOT NULL,
      started_at timestamptz NOT NULL, beat_at timestamptz NOT NULL)`,
    'CREATE INDEX cluster_instances_beat_at ON cluster_instances (beat_at)',
    // Who runs a job, until when (in the database's clock unless a test passes its own).
    'CREATE TABLE cluster_leases (job text PRIMARY KEY, holder text NOT NULL, expires_at timestamptz NOT NULL)',
    // The newest planned slot (epoch ms) of each job that some instance has run: a tick at or before it never runs again.
    `CREATE TABLE cluster_ticks (
      job text PRIMARY KEY, slot bigint NOT NULL, instance text NOT NULL, claimed_at timestamptz NOT NULL DEFAULT now())`,
  ].join(';\n'),
};
