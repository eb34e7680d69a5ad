/** A real store and SQLite transaction log in a temporary folder, one clock for both, and the alert job over them. */
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { pino } from 'pino';
import { AlertJob } from '../../service/alerts/alert-job.js';
import type { AlertJobDeps } from '../../service/alerts/alert-job.js';
import type { AlertRecipient, ChannelAlert } from '../../service/contracts/channels.js';
import { Outbox } from '../../service/notify/outbox.js';
import { createNedbStore } from '../../service/storage/nedb/index.js';
import type { ChannelRecord, NotificationRecord, UserRecord } from '../../service/storage/records.js';
import { createSqliteTransactionLog } from '../../service/storage/sqlite/transaction-log.js';
import type { Store } from '../../service/storage/store.js';
import type { TransactionLog, TransactionRecord } from '../../service/storage/transactions.js';
import { newTransactionId } from '../../service/storage/transaction-ids.js';
import type { TransactionStatus } from '../../service/domain/transactions/transaction-status.js';
import { tempDir } from '../helpers/junction.js';

export const silent = pino({ level: 'silent' });
export const CONSOLE = 'https://junction.clinic.example:9000';
export const ZONE = 'Africa/Nairobi';

export interface Finish {
  status?: TransactionStatus;
  autoRetryAttempt?: number;
  autoRetry?: boolean;
  /** No response to the client at all. */
  noResponse?: boolean;
}

export class AlertFixture {
  dir = '';
  store!: Store;
  log!: TransactionLog;
  /** The one clock: the log stamps finished entries with it, the job runs at it. */
  now = new Date('2026-11-24T08:00:00.000Z');
  /** The log's clock when a test needs it to differ from the job's. */
  logNow: Date | undefined;
  outbox!: Outbox;

  async open(): Promise<void> {
    if (this.dir === '') this.dir = await tempDir('junction-alerts-');
    this.store = createNedbStore({ dataDir: this.dir, logger: silent });
    await this.store.open();
    this.log = createSqliteTransactionLog({ file: join(this.dir, 'transactions.sqlite'), logger: silent, now: () => (this.logNow ?? this.now).getTime() });
    await this.log.open();
    this.outbox = new Outbox({ notifications: this.store.notifications, now: () => this.now });
  }

  /** Closes store and log (a stop); `open()` again is a restart over the same files. */
  async close(): Promise<void> {
    await this.log.close();
    await this.store.close();
  }

  async destroy(): Promise<void> {
    await this.close();
    await rm(this.dir, { recursive: true, force: true });
  }

  job(overrides: Partial<AlertJobDeps> = {}): AlertJob {
    const { channels, users, contactGroups, notifications, jobStates } = this.store;
    return new AlertJob({
      log: this.log,
      channels,
      users,
      contactGroups,
      notifications,
      jobStates,
      outbox: this.outbox,
      pollPeriodMinutes: 1,
      timeZone: ZONE,
      instance: 'Clinic A',
      consoleUrl: () => CONSOLE,
      defaultTimeoutMs: 60_000,
      logger: silent,
      now: () => this.now,
      ...overrides,
    });
  }

  /** Moves the clock on. */
  tick(ms: number): Date {
    this.now = new Date(this.now.getTime() + ms);
    return this.now;
  }

  async channel(name: string, alerts: Partial<ChannelAlert>[], extra: Partial<ChannelRecord> = {}): Promise<ChannelRecord> {
    const full = alerts.map((a) => ({ condition: 'status' as const, groups: [], users: [], ...a }));
    return this.store.channels.insert({ name, status: 'enabled', urlPattern: `^/${name}$`, routes: [], alerts: full, autoRetryEnabled: false, ...extra } as unknown as Omit<ChannelRecord, '_id'>);
  }

  async user(email: string, msisdn?: string): Promise<UserRecord> {
    return this.store.users.insert({ email, firstname: 'F', surname: 'S', groups: ['admin'], passwordHash: null, ...(msisdn === undefined ? {} : { msisdn }) } as unknown as Omit<UserRecord, '_id'>);
  }

  async group(name: string, users: AlertRecipient[]): Promise<string> {
    return (await this.store.contactGroups.insert({ group: name, users }))._id;
  }

  /** A transaction stored Processing, then given its final status and response now (its finished entry's time). */
  async finish(channelID: string, code: number, options: Finish = {}): Promise<string> {
    const at = this.now;
    const record: TransactionRecord = {
      _id: newTransactionId(at),
      channelID,
      clientIP: '127.0.0.1',
      status: 'Processing',
      canRerun: true,
      autoRetry: false,
      autoRetryAttempt: options.autoRetryAttempt ?? 0,
      request: { path: '/x', querystring: '', method: 'GET', headers: {}, timestamp: at },
      routes: [],
      orchestrations: [],
    };
    await this.log.insert(record);
    const status = options.status ?? (code >= 500 ? 'Failed' : code >= 400 ? 'Completed' : 'Successful');
    await this.log.update(record._id, {
      set: { status, ...(options.noResponse === true ? {} : { response: { status: code, headers: {}, timestamp: at } }), ...(options.autoRetry === undefined ? {} : { autoRetry: options.autoRetry }) },
    });
    return record._id;
  }

  async alerts(filter: Record<string, unknown> = {}): Promise<NotificationRecord[]> {
    return this.store.notifications.find({ kind: 'alert', ...filter }, { sort: { created: 1 } });
  }
}
