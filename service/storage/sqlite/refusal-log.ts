/**
 * The refusal log in its own SQLite file (`refusals.sqlite`), apart from the transaction log so a flood of refusals
 * never grows or slows the busiest file. Writes are batches from the recorder, a few a minute at most, so each is one
 * transaction with an upsert per row.
 */
import type { Database as SqliteDatabase, Statement } from 'better-sqlite3';
import type { ChannelRefusalCount, RefusalFilter, RefusalLog, RefusalLogPage, RefusalRow, StoredRefusal } from '../refusals.js';
import { StoreError } from '../store.js';
import { openSqliteFile } from './database-file.js';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS refusals (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  minute INTEGER NOT NULL,
  first INTEGER NOT NULL,
  last INTEGER NOT NULL,
  reason TEXT NOT NULL,
  listener TEXT NOT NULL,
  port INTEGER,
  channel_id TEXT NOT NULL,
  channel_name TEXT NOT NULL,
  address TEXT NOT NULL,
  client TEXT,
  count INTEGER NOT NULL,
  detail TEXT NOT NULL
);
CREATE UNIQUE INDEX IF NOT EXISTS refusals_key ON refusals (minute, listener, channel_id, address, reason);
CREATE INDEX IF NOT EXISTS refusals_last ON refusals (last);
CREATE INDEX IF NOT EXISTS refusals_channel ON refusals (channel_id, minute);
`;

const UPSERT = `INSERT INTO refusals (minute, first, last, reason, listener, port, channel_id, channel_name, address, client, count, detail)
VALUES (@minute, @first, @last, @reason, @listener, @port, @channelId, @channelName, @address, @client, @count, @detail)
ON CONFLICT (minute, listener, channel_id, address, reason) DO UPDATE SET
  count = count + excluded.count,
  first = min(first, excluded.first),
  last = max(last, excluded.last),
  client = coalesce(excluded.client, client),
  channel_name = CASE WHEN excluded.channel_name = '' THEN channel_name ELSE excluded.channel_name END`;

interface Row {
  id: number;
  minute: number;
  first: number;
  last: number;
  reason: string;
  listener: string;
  port: number | null;
  channel_id: string;
  channel_name: string;
  address: string;
  client: string | null;
  count: number;
  detail: string;
}

export function storedOf(row: Row): StoredRefusal {
  return {
    id: String(row.id),
    minute: Number(row.minute),
    first: Number(row.first),
    last: Number(row.last),
    reason: row.reason as StoredRefusal['reason'],
    listener: row.listener,
    port: row.port === null ? null : Number(row.port),
    channelId: row.channel_id,
    channelName: row.channel_name,
    address: row.address,
    client: row.client,
    count: Number(row.count),
    detail: row.detail,
  };
}

/** The WHERE clause of a filter, with `?` parameters. */
function where(filter: RefusalFilter): { sql: string; params: (string | number)[] } {
  const parts: string[] = [];
  const params: (string | number)[] = [];
  if (filter.from !== undefined) {
    parts.push('last >= ?');
    params.push(filter.from);
  }
  if (filter.to !== undefined) {
    parts.push('first <= ?');
    params.push(filter.to);
  }
  if (filter.channelIds !== undefined) {
    if (filter.channelIds.length === 0) parts.push('0');
    else {
      parts.push(`channel_id IN (${filter.channelIds.map(() => '?').join(', ')})`);
      params.push(...filter.channelIds);
    }
  }
  if (filter.reasons !== undefined) {
    if (filter.reasons.length === 0) parts.push('0');
    else {
      parts.push(`reason IN (${filter.reasons.map(() => '?').join(', ')})`);
      params.push(...filter.reasons);
    }
  }
  if (filter.address !== undefined) {
    parts.push('address = ?');
    params.push(filter.address);
  }
  return { sql: parts.length === 0 ? '' : `WHERE ${parts.join(' AND ')}`, params };
}

interface Statements {
  upsert: Statement<RefusalRow>;
  counts: Statement<[number, number], { channel_id: string; channel_name: string; count: number; last: number }>;
  remove: Statement<[number]>;
}

export class SqliteRefusalLog implements RefusalLog {
  #db: SqliteDatabase | null = null;
  #statements: Statements | null = null;

  constructor(private readonly options: { file: string }) {}

  async open(): Promise<void> {
    if (this.#db !== null) return;
    const opened = await openSqliteFile({
      file: this.options.file,
      collection: 'refusals',
      what: 'refusal log',
      advice: 'Move it aside (its record of refused requests is lost) or restore it from a backup.',
      synchronous: 'NORMAL',
      incrementalVacuum: true,
      folderErrorIsOpenError: false,
      prepare: (db): Statements => {
        db.exec(SCHEMA);
        return {
          upsert: db.prepare(UPSERT),
          counts: db.prepare(
            `SELECT channel_id, max(channel_name) AS channel_name, sum(count) AS count, max(last) AS last FROM refusals
             WHERE channel_id <> '' AND minute >= ? AND minute < ? GROUP BY channel_id ORDER BY count DESC`,
          ),
          remove: db.prepare('DELETE FROM refusals WHERE minute < ?'),
        };
      },
    });
    this.#statements = opened.prepared;
    this.#db = opened.db;
  }

  add(rows: readonly RefusalRow[]): Promise<void> {
    try {
      const statements = this.#ready();
      this.#readyDb().transaction(() => {
        for (const row of rows) statements.upsert.run(row);
      })();
      return Promise.resolve();
    } catch (err) {
      return Promise.reject(err instanceof Error ? err : new Error(String(err)));
    }
  }

  page(filter: RefusalFilter, window: { limit: number; skip: number }): Promise<RefusalLogPage> {
    try {
      const db = this.#readyDb();
      const { sql, params } = where(filter);
      const totals = db.prepare(`SELECT count(*) AS n, coalesce(sum(count), 0) AS s FROM refusals ${sql}`).get(...params) as { n: number; s: number };
      const limit = window.limit <= 0 ? -1 : window.limit;
      const rows = db.prepare(`SELECT * FROM refusals ${sql} ORDER BY last DESC, id DESC LIMIT ? OFFSET ?`).all(...params, limit, window.skip) as Row[];
      return Promise.resolve({ items: rows.map(storedOf), total: totals.n, refused: Number(totals.s) });
    } catch (err) {
      return Promise.reject(err instanceof Error ? err : new Error(String(err)));
    }
  }

  countsByChannel(from: number, to: number): Promise<ChannelRefusalCount[]> {
    try {
      const rows = this.#ready().counts.all(from, to);
      return Promise.resolve(rows.map((r) => ({ channelId: r.channel_id, channelName: r.channel_name, count: Number(r.count), last: Number(r.last) })));
    } catch (err) {
      return Promise.reject(err instanceof Error ? err : new Error(String(err)));
    }
  }

  removeBefore(before: number): Promise<number> {
    try {
      return Promise.resolve(this.#ready().remove.run(before).changes);
    } catch (err) {
      return Promise.reject(err instanceof Error ? err : new Error(String(err)));
    }
  }

  close(): Promise<void> {
    const db = this.#db;
    this.#db = null;
    this.#statements = null;
    db?.close();
    return Promise.resolve();
  }

  #readyDb(): SqliteDatabase {
    if (this.#db === null) throw new StoreError('the refusal log is not open');
    return this.#db;
  }

  #ready(): Statements {
    if (this.#statements === null) throw new StoreError('the refusal log is not open');
    return this.#statements;
  }
}
