/**
 * One dedicated PostgreSQL connection that LISTENs for the cluster's notifications. A pooled query cannot listen (the
 * pool hands its connection to the next query), so this one is checked out of the pool for good. When it drops, it is
 * replaced at once and then with a growing pause, and every `onReconnect` listener is told: notifications sent while
 * it was away are lost, so whoever depends on them must catch up from the database.
 */
import type { Notification, Pool, PoolClient } from 'pg';
import type { Logger } from 'pino';
import type { JobTimers, TimerHandle } from '../../schedulers/timers.js';

const FIRST_RETRY_MS = 500;
// Short enough that notices resume within a few seconds of the database's return after an outage of any length.
const MAX_RETRY_MS = 4000;

export interface NotificationListenerOptions {
  /** The shared pool (a function, so the parts can be built before the database is open). */
  pool: () => Pool;
  /** The channel names to listen on (plain identifiers; the callers build them from the schema name). */
  channels: readonly string[];
  timers: JobTimers;
  logger: Logger;
}

export class NotificationListener {
  readonly #options: NotificationListenerOptions;
  readonly #handlers = new Map<string, Set<(payload: string) => void>>();
  readonly #reconnected = new Set<() => void>();
  #client: PoolClient | null = null;
  #pid: number | null = null;
  #retry: TimerHandle | null = null;
  #retryMs = FIRST_RETRY_MS;
  #connecting: Promise<void> | null = null;
  #stopped = false;

  constructor(options: NotificationListenerOptions) {
    this.#options = options;
  }

  /** Connects and listens; rejects if the first connection fails (the database is then unreachable at start). */
  async start(): Promise<void> {
    this.#stopped = false;
    await this.#connect();
  }

  /** Calls `handler` with the payload of each notification on `channel`; returns the way to stop. */
  on(channel: string, handler: (payload: string) => void): () => void {
    let set = this.#handlers.get(channel);
    if (set === undefined) this.#handlers.set(channel, (set = new Set()));
    set.add(handler);
    return () => set.delete(handler);
  }

  /** Calls `listener` each time the connection was lost and is listening again. */
  onReconnect(listener: () => void): () => void {
    this.#reconnected.add(listener);
    return () => this.#reconnected.delete(listener);
  }

  /** The server process of the listening connection (tests end it to check the reconnect); null while away. */
  get backendPid(): number | null {
    return this.#pid;
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    this.#retry?.cancel();
    this.#retry = null;
    await this.#connecting?.catch(() => undefined);
    const client = this.#client;
    this.#client = null;
    this.#pid = null;
    if (client === null) return;
    client.removeAllListeners('notification');
    // Discarded rather than returned: a pooled connection must not keep listening for the next user.
    client.release(true);
  }

  #connect(): Promise<void> {
    this.#connecting ??= this.#open().finally(() => {
      this.#connecting = null;
    });
    return this.#connecting;
  }

  async #open(): Promise<void> {
    const client = await this.#options.pool().connect();
    let listening = false;
    try {
      client.on('notification', (message: Notification) => this.#deliver(message));
      client.on('error', (err: Error) => this.#lost(client, err));
      client.on('end', () => this.#lost(client, new Error('the listening connection ended')));
      for (const channel of this.#options.channels) await client.query(`LISTEN "${channel}"`);
      const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
      this.#pid = rows[0]?.pid ?? null;
      listening = true;
    } finally {
      if (!listening) client.release(true);
    }
    if (this.#stopped) {
      client.release(true);
      return;
    }
    this.#client = client;
    this.#retryMs = FIRST_RETRY_MS;
  }

  #deliver(message: Notification): void {
    const handlers = this.#handlers.get(message.channel);
    if (handlers === undefined || message.payload === undefined) return;
    for (const handler of handlers) {
      try {
        handler(message.payload);
      } catch (err) {
        this.#options.logger.error({ err, channel: message.channel }, 'a cluster notification handler failed');
      }
    }
  }

  #lost(client: PoolClient, err: Error): void {
    if (this.#client !== client) return;
    this.#client = null;
    this.#pid = null;
    client.removeAllListeners('notification');
    client.release(err);
    if (this.#stopped) return;
    this.#options.logger.warn({ err }, 'the cluster notification connection dropped; reconnecting');
    this.#reconnect(0);
  }

  #reconnect(delayMs: number): void {
    const attempt = (): void => {
      this.#retry = null;
      if (this.#stopped) return;
      this.#connect().then(
        () => {
          if (this.#client === null) return;
          this.#options.logger.info('the cluster notification connection is listening again');
          for (const listener of this.#reconnected) listener();
        },
        (err: unknown) => {
          const next = this.#retryMs;
          this.#retryMs = Math.min(MAX_RETRY_MS, this.#retryMs * 2);
          this.#options.logger.warn({ err, retryMs: next }, 'the cluster notification connection could not be opened again');
          this.#reconnect(next);
        },
      );
    };
    // The first try is immediate: a dropped connection is usually a restarted proxy or server already back.
    if (delayMs === 0) attempt();
    else this.#retry = this.#options.timers.at(this.#options.timers.now() + delayMs, attempt);
  }
}
