/**
 * The refusal log on PostgreSQL (storage/refusals.ts), one table every instance adds to: each instance folds its own
 * refusals in memory and adds them in batches, and a key another instance stored adds its count, so the rows of a
 * minute are the cluster's. The table is migration 9 (`REFUSALS_MIGRATION`).
 */
import type { Pool } from 'pg';
import type { ChannelRefusalCount, RefusalFilter, RefusalLog, RefusalLogPage, RefusalRow, StoredRefusal } from '../refusals.js';
import { StoreError } from '../store.js';
import type { PostgresDatabase } from './database.js';
import { Params } from './filter.js';

/** Migration 9: the refusal log, its fold key unique so an add from any instance adds to the same row. */
export const REFUSALS_MIGRATION = {
  version: 9,
  name: 'refusal log',
  sql: `
CREATE TABLE refusals (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  minute bigint NOT NULL,
  first bigint NOT NULL,
  last bigint NOT NULL,
  reason text COLLATE "C" NOT NULL,
  listener text COLLATE "C" NOT NULL,
  port integer,
  channel_id text COLLATE "C" NOT NULL,
  channel_name text NOT NULL,
  address text COLLATE "C" NOT NULL,
  client text,
  count bigint NOT NULL,
  detail text NOT NULL
);
CREATE UNIQUE INDEX refusals_key ON refusals (minute, listener, channel_id, address, reason);
CREATE INDEX refusals_last ON refusals (last);
CREATE INDEX refusals_channel ON refusals (channel_id, minute)`,
} as const;

/** Rows per statement; a larger batch goes in several. */
const MAX_ROWS = 1000;

const UPSERT = `INSERT INTO refusals AS r (minute, first, last, reason, listener, port, channel_id, channel_name, address, client, count, detail)
SELECT * FROM unnest($1::bigint[], $2::bigint[], $3::bigint[], $4::text[], $5::text[], $6::integer[], $7::text[], $8::text[], $9::text[], $10::text[], $11::bigint[], $12::text[])
ON CONFLICT (minute, listener, channel_id, address, reason) DO UPDATE SET
  count = r.count + excluded.count,
  first = least(r.first, excluded.first),
  last = greatest(r.last, excluded.last),
  client = coalesce(excluded.client, r.client),
  channel_name = CASE WHEN excluded.channel_name = '' THEN r.channel_name ELSE excluded.channel_name END`;

interface Row {
  id: string;
  minute: string;
  first: string;
  last: string;
  reason: string;
  listener: string;
  port: number | null;
  channel_id: string;
  channel_name: string;
  address: string;
  client: string | null;
  count: string;
  detail: string;
}

function storedOf(row: Row): StoredRefusal {
  return {
    id: String(row.id),
    minute: Number(row.minute),
    first: Number(row.first),
    last: Number(row.last),
    reason: row.reason as StoredRefusal['reason'],
    listener: row.listener,
    port: row.port,
    channelId: row.channel_id,
    channelName: row.channel_name,
    address: row.address,
    client: row.client,
    count: Number(row.count),
    detail: row.detail,
  };
}

function where(filter: RefusalFilter, p: Params): string {
  const parts: string[] = [];
  if (filter.from !== undefined) parts.push(`last >= ${p.add(filter.from)}`);
  if (filter.to !== undefined) parts.push(`first <= ${p.add(filter.to)}`);
  if (filter.channelIds !== undefined) parts.push(`channel_id = ANY(${p.add([...filter.channelIds])}::text[])`);
  if (filter.reasons !== undefined) parts.push(`reason = ANY(${p.add([...filter.reasons])}::text[])`);
  if (filter.address !== undefined) parts.push(`address = ${p.add(filter.address)}`);
  return parts.length === 0 ? '' : `WHERE ${parts.join(' AND ')}`;
}

function failure(action: string, err: unknown): StoreError {
  if (err instanceof StoreError) return err;
  return new StoreError(`refusals: ${action} failed: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
}

export class PostgresRefusalLog implements RefusalLog {
  readonly #database: PostgresDatabase;
  #pool: Pool | null = null;

  constructor(database: PostgresDatabase) {
    this.#database = database;
  }

  async open(): Promise<void> {
    if (this.#pool !== null) return;
    this.#pool = await this.#database.acquire();
  }

  async add(rows: readonly RefusalRow[]): Promise<void> {
    const pool = this.#ready();
    for (let at = 0; at < rows.length; at += MAX_ROWS) {
      // Two rows of one key in one statement would clash with themselves (ON CONFLICT cannot touch a row twice).
      const batch = new Map<string, RefusalRow>();
      for (const row of rows.slice(at, at + MAX_ROWS)) {
        const key = `${String(row.minute)}\u0000${row.listener}\u0000${row.channelId}\u0000${row.address}\u0000${row.reason}`;
        const known = batch.get(key);
        batch.set(key, known === undefined ? row : { ...known, count: known.count + row.count, first: Math.min(known.first, row.first), last: Math.max(known.last, row.last) });
      }
      const list = [...batch.values()];
      try {
        await pool.query(UPSERT, [
          list.map((r) => r.minute),
          list.map((r) => r.first),
          list.map((r) => r.last),
          list.map((r) => r.reason),
          list.map((r) => r.listener),
          list.map((r) => r.port),
          list.map((r) => r.channelId),
          list.map((r) => r.channelName),
          list.map((r) => r.address),
          list.map((r) => r.client),
          list.map((r) => r.count),
          list.map((r) => r.detail),
        ]);
      } catch (err) {
        throw failure('add', err);
      }
    }
  }

  async page(filter: RefusalFilter, window: { limit: number; skip: number }): Promise<RefusalLogPage> {
    const pool = this.#ready();
    const counted = new Params();
    const page = new Params();
    const pageWhere = where(filter, page);
    const limit = window.limit <= 0 ? 'ALL' : page.add(window.limit);
    try {
      const [{ rows: totals }, { rows }] = await Promise.all([
        pool.query<{ n: string; s: string }>(`SELECT count(*) AS n, coalesce(sum(count), 0) AS s FROM refusals ${where(filter, counted)}`, counted.values),
        pool.query<Row>(`SELECT * FROM refusals ${pageWhere} ORDER BY last DESC, id DESC LIMIT ${limit} OFFSET ${page.add(window.skip)}`, page.values),
      ]);
      return { items: rows.map(storedOf), total: Number(totals[0]?.n ?? 0), refused: Number(totals[0]?.s ?? 0) };
    } catch (err) {
      throw failure('page', err);
    }
  }

  async countsByChannel(from: number, to: number): Promise<ChannelRefusalCount[]> {
    try {
      const { rows } = await this.#ready().query<{ channel_id: string; channel_name: string; count: string; last: string }>(
        `SELECT channel_id, max(channel_name) AS channel_name, sum(count) AS count, max(last) AS last FROM refusals
         WHERE channel_id <> '' AND minute >= $1 AND minute < $2 GROUP BY channel_id ORDER BY sum(count) DESC`,
        [from, to],
      );
      return rows.map((r) => ({ channelId: r.channel_id, channelName: r.channel_name, count: Number(r.count), last: Number(r.last) }));
    } catch (err) {
      throw failure('countsByChannel', err);
    }
  }

  async removeBefore(before: number): Promise<number> {
    try {
      const { rowCount } = await this.#ready().query('DELETE FROM refusals WHERE minute < $1', [before]);
      return rowCount ?? 0;
    } catch (err) {
      throw failure('removeBefore', err);
    }
  }

  async close(): Promise<void> {
    if (this.#pool === null) return;
    this.#pool = null;
    await this.#database.release();
  }

  #ready(): Pool {
    if (this.#pool === null) throw new StoreError('the refusal log is not open');
    return this.#pool;
  }
}
