/**
 * A real configuration store (NeDB) and transaction log (SQLite) in a temporary folder, with helpers to add users,
 * channels and finished transactions at chosen times, and to make a reports job over them with an injected clock.
 */
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { pino } from 'pino';
import type { TransactionStatus } from '../../service/domain/transactions/transaction-status.js';
import { Outbox } from '../../service/notify/outbox.js';
import { ReportsJob } from '../../service/reports/reports-job.js';
import type { ReportsJobOptions } from '../../service/reports/reports-job.js';
import { createNedbStore } from '../../service/storage/nedb/index.js';
import type { ChannelRecord, NotificationRecord, UserRecord } from '../../service/storage/records.js';
import { createSqliteTransactionLog } from '../../service/storage/sqlite/transaction-log.js';
import type { Store } from '../../service/storage/store.js';
import { finishedTransaction } from '../helpers/transactions.js';
import type { TransactionLog } from '../../service/storage/transactions.js';
import { tempDir } from '../helpers/junction.js';

export const silent = pino({ level: 'silent' });
export const CONSOLE = 'https://junction.clinic.example:9000';

export interface ReportsFixture {
  store: Store;
  log: TransactionLog;
  outbox: Outbox;
  timeZone: string;
  clock: { now: Date };
  /** A new job over the same store and log, as a restarted process would make. */
  job(overrides?: Partial<ReportsJobOptions>): ReportsJob;
  /** Runs a new job at the given instant (as if the process had just started then). */
  runAt(iso: string, overrides?: Partial<ReportsJobOptions>): Promise<void>;
  user(email: string, fields: Partial<UserRecord>): Promise<UserRecord>;
  channel(name: string, fields?: Partial<ChannelRecord>): Promise<ChannelRecord>;
  /** A finished transaction whose request arrived at `at`, answered `responseMs` later. */
  transaction(channel: ChannelRecord, at: string, status: TransactionStatus, responseMs: number): Promise<void>;
  reports(): Promise<NotificationRecord[]>;
  close(): Promise<void>;
}

export async function reportsFixture(timeZone: string): Promise<ReportsFixture> {
  const dir = await tempDir('junction-reports-');
  const store = createNedbStore({ dataDir: dir, logger: silent });
  await store.open();
  const clock = { now: new Date('2026-01-01T00:00:00Z') };
  const log = createSqliteTransactionLog({ file: join(dir, 'transactions.sqlite'), logger: silent, metricsTimeZone: timeZone, now: () => clock.now.getTime() });
  await log.open();
  const outbox = new Outbox({ notifications: store.notifications, now: () => clock.now });
  const job = (overrides: Partial<ReportsJobOptions> = {}): ReportsJob =>
    new ReportsJob({
      enabled: true,
      users: store.users,
      channels: store.channels,
      jobStates: store.jobStates,
      log,
      outbox,
      timeZone,
      instance: 'Clinic <North>',
      consoleUrl: () => CONSOLE,
      minuteRetentionHours: 48,
      logger: silent,
      now: () => clock.now,
      ...overrides,
    });
  return {
    store,
    log,
    outbox,
    timeZone,
    clock,
    job,
    async runAt(iso, overrides) {
      clock.now = new Date(iso);
      await job(overrides).run();
    },
    user: (email, fields) => store.users.insert({ email, firstname: 'F', surname: 'S', groups: [], passwordHash: null, ...fields } as unknown as Omit<UserRecord, '_id'>),
    channel: (name, fields = {}) => store.channels.insert({ name, status: 'enabled', routes: [], txViewAcl: [], txViewFullAcl: [], ...fields } as unknown as Omit<ChannelRecord, '_id'>),
    async transaction(channel, at, status, responseMs) {
      await log.insert(finishedTransaction({ channelID: channel._id, at, status, responseMs }));
    },
    reports: () => store.notifications.find({ kind: 'report' }),
    async close() {
      await log.close();
      await store.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** The cells of the plain-text table's line for `name`, split on the column gaps. */
export function textRow(text: string, name: string): string[] {
  const line = text.split('\n').find((l) => l.startsWith(`${name}  `));
  if (line === undefined) throw new Error(`no line for ${name} in:\n${text}`);
  return line.slice(name.length).trim().split(/\s{2,}/);
}

/** The cells of the HTML table's row for `name` (the name cell first), tags stripped. */
export function htmlRow(html: string, name: string): string[] {
  const row = html.split('\n').find((l) => l.includes('<tr>') && l.includes(`>${name}<`));
  if (row === undefined) throw new Error(`no row for ${name} in:\n${html}`);
  return [...row.matchAll(/<td[^>]*>(.*?)<\/td>/g)].map((m) => (m[1] ?? '').replace(/<[^>]+>/g, ''));
}
