/** The configuration store on PostgreSQL: one table per collection (migrations.ts), over a shared database pool. */
import type { Pool } from 'pg';
import { collectionSpecs } from '../collection-specs.js';
import type { ChannelAuditRecord, ChannelRecord, ClientRecord, MediatorRecord, SessionRecord, UserRecord } from '../records.js';
import type { AutoRetryRecord, ContactGroupRecord, JobStateRecord, NotificationRecord, TaskRecord, TaskTransactionRecord } from '../records.js';
import { StoreError, StoreOpenError } from '../store.js';
import type { Collection, Store, StoreHealth, StoreState } from '../store.js';
import { PostgresCollection } from './collection.js';
import type { PostgresCollectionContext } from './collection.js';
import type { PostgresDatabase } from './database.js';

/** Creates the store over `database`; nothing connects until `open()`. */
export function createPostgresStore(database: PostgresDatabase): Store {
  return new PostgresStore(database);
}

class PostgresStore implements Store, PostgresCollectionContext {
  readonly users: Collection<UserRecord>;
  readonly sessions: Collection<SessionRecord>;
  readonly channels: Collection<ChannelRecord>;
  readonly channelAudits: Collection<ChannelAuditRecord>;
  readonly clients: Collection<ClientRecord>;
  readonly mediators: Collection<MediatorRecord>;
  readonly tasks: Collection<TaskRecord>;
  readonly taskTransactions: Collection<TaskTransactionRecord>;
  readonly autoRetries: Collection<AutoRetryRecord>;
  readonly contactGroups: Collection<ContactGroupRecord>;
  readonly notifications: Collection<NotificationRecord>;
  readonly jobStates: Collection<JobStateRecord>;

  private state: StoreState = 'closed';
  private problem: string | null = null;
  private opened: Pool | null = null;
  private opening: Promise<void> | null = null;
  private closing: Promise<void> | null = null;

  constructor(private readonly database: PostgresDatabase) {
    this.users = new PostgresCollection<UserRecord>(collectionSpecs.users, this);
    this.sessions = new PostgresCollection<SessionRecord>(collectionSpecs.sessions, this);
    this.channels = new PostgresCollection<ChannelRecord>(collectionSpecs.channels, this);
    this.channelAudits = new PostgresCollection<ChannelAuditRecord>(collectionSpecs.channelAudits, this);
    this.clients = new PostgresCollection<ClientRecord>(collectionSpecs.clients, this);
    this.mediators = new PostgresCollection<MediatorRecord>(collectionSpecs.mediators, this);
    this.tasks = new PostgresCollection<TaskRecord>(collectionSpecs.tasks, this);
    this.taskTransactions = new PostgresCollection<TaskTransactionRecord>(collectionSpecs.taskTransactions, this);
    this.autoRetries = new PostgresCollection<AutoRetryRecord>(collectionSpecs.autoRetries, this);
    this.contactGroups = new PostgresCollection<ContactGroupRecord>(collectionSpecs.contactGroups, this);
    this.notifications = new PostgresCollection<NotificationRecord>(collectionSpecs.notifications, this);
    this.jobStates = new PostgresCollection<JobStateRecord>(collectionSpecs.jobStates, this);
  }

  async open(): Promise<void> {
    if (this.closing !== null) await this.closing;
    if (this.state === 'ready') return;
    this.opening ??= this.connect().finally(() => {
      this.opening = null;
    });
    return this.opening;
  }

  async close(): Promise<void> {
    this.closing ??= this.shutDown().finally(() => {
      this.closing = null;
    });
    return this.closing;
  }

  health(): StoreHealth {
    return { engine: 'postgres', state: this.state, problems: this.problem === null ? [] : [{ collection: '*', message: this.problem }] };
  }

  pool(collection: string): Pool {
    if (this.opened === null || this.closing !== null) {
      const why = this.closing !== null ? 'closing' : this.state === 'failed' ? 'failed to open' : 'not open';
      throw new StoreError(`${collection}: the store is ${why}`);
    }
    return this.opened;
  }

  private async connect(): Promise<void> {
    this.state = 'opening';
    this.problem = null;
    try {
      this.opened = await this.database.acquire();
    } catch (err) {
      this.state = 'failed';
      this.problem = err instanceof StoreOpenError ? err.message : String(err);
      throw err;
    }
    this.state = 'ready';
  }

  private async shutDown(): Promise<void> {
    if (this.opening !== null) await this.opening.catch(() => undefined);
    if (this.opened !== null) {
      this.opened = null;
      await this.database.release();
    }
    this.state = 'closed';
  }
}
