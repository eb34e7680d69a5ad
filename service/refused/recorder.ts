/**
 * The refusal recorder (issue 35): every request or message Junction refuses before it becomes a transaction is
 * recorded here, by the transaction ports, the message path and the connection admission. A refusal costs a map
 * lookup and a counter (no await, no I/O), so a flood of them cannot slow the traffic that is accepted; repeats from
 * one address for the same reason, listener and channel fold into one row per minute, in a bounded map, and the rows
 * go to the refusal log (storage/refusals.ts) in one batch every `refusals.flushIntervalSeconds`, so a flood cannot
 * fill the disk either: past `refusals.maxPendingRows` keys in one batch, new senders fold into one row per listener,
 * channel and reason with the address `*`.
 */
import type { Logger } from 'pino';
import type { RefusalKind } from '../contracts/refusals.js';
import type { RefusalReason as ConnectionRefusal } from '../domain/access/admission.js';
import { addressKey } from '../domain/access/admission.js';
import { channelOfListener, foldKey, minuteOf, refusalKindOfCode, refusalKindOfConnection, storedDetail } from '../domain/operations/refusals.js';
import type { RefusalEvent, RefusalSink, RefusedAt } from '../domain/operations/refusals.js';
import type { ChannelRefusalCount, RefusalFilter, RefusalLog, RefusalLogPage, RefusalRow } from '../storage/refusals.js';

/** The address of the row that folds senders beyond the bound. */
export const OVERFLOW_ADDRESS = '*';
/** Room past the bound for the overflow rows themselves (one per listener, channel and reason). */
const OVERFLOW_ROOM = 1000;

export interface RefusalRecorderOptions {
  log: RefusalLog;
  logger: Logger;
  /** Counts each refusal by channel name and reason (the Prometheus counter). */
  count?: (channel: string, reason: RefusalKind) => void;
  /** Channel ids of channels known only by name (a tcp or tls channel's listener), looked up at flush time. */
  channelIds?: (names: readonly string[]) => Promise<ReadonlyMap<string, string>>;
  flushIntervalMs: number;
  maxPendingRows: number;
  now?: () => number;
}

export class RefusalRecorder implements RefusalSink {
  readonly #options: RefusalRecorderOptions;
  readonly #now: () => number;
  #pending = new Map<string, RefusalRow>();
  #dropped = 0;
  #flushing: Promise<void> | undefined;
  #timer: NodeJS.Timeout | undefined;

  constructor(options: RefusalRecorderOptions) {
    this.#options = options;
    this.#now = options.now ?? Date.now;
  }

  /** Records one refusal: folded in memory, written with the next batch. Never throws, never waits. */
  record(event: RefusalEvent): void {
    const now = this.#now();
    const channelName = event.channelName ?? channelOfListener(event.listener) ?? '';
    this.#options.count?.(channelName, event.reason);
    const minute = minuteOf(now);
    const channel = event.channelId ?? channelName;
    let address = addressKey(event.address);
    let key = foldKey(minute, event.listener, channel, address, event.reason);
    let row = this.#pending.get(key);
    // A repeat (the flood's common case) costs one key and one lookup: no object is made.
    if (row === undefined && this.#pending.size >= this.#options.maxPendingRows) {
      address = OVERFLOW_ADDRESS;
      key = foldKey(minute, event.listener, channel, address, event.reason);
      row = this.#pending.get(key);
      if (row === undefined && this.#pending.size >= this.#options.maxPendingRows + OVERFLOW_ROOM) {
        this.#dropped++;
        return;
      }
    }
    if (row !== undefined) {
      row.count++;
      row.last = now;
      if (row.client === null && event.client !== undefined && address !== OVERFLOW_ADDRESS) row.client = event.client;
      return;
    }
    const overflow = address === OVERFLOW_ADDRESS;
    this.#pending.set(key, {
      minute,
      first: now,
      last: now,
      reason: event.reason,
      listener: event.listener,
      port: event.port ?? null,
      channelId: event.channelId ?? '',
      channelName,
      address,
      client: overflow ? null : (event.client ?? null),
      count: 1,
      detail: overflow ? `more senders were refused than refusals.maxPendingRows (${String(this.#options.maxPendingRows)}) keeps apart in one batch; folded together` : storedDetail(event.detail),
    });
  }

  /**
   * Records a refused request or message by the error its sender was answered (CHANNEL_NOT_FOUND, CLIENT_THROTTLED, …);
   * an error that is Junction's own failure rather than a refusal is not recorded.
   */
  refusedWith(error: { code: string; message: string }, at: RefusedAt): void {
    const reason = refusalKindOfCode(error.code);
    if (reason !== undefined) this.record({ ...at, reason, detail: error.message });
  }

  /** Records a connection the admission refused or cut off (transports/admission.ts). */
  connectionRefused(listener: string, address: string | undefined, reason: ConnectionRefusal, fields: Record<string, unknown>): void {
    const port = typeof fields.port === 'number' ? fields.port : undefined;
    const detail = typeof fields.problem === 'string' ? fields.problem : reason;
    this.record({ reason: refusalKindOfConnection(reason), listener, port, address: address ?? '', detail });
  }

  /** Refusals not yet written (rows, not refusals). */
  get pendingRows(): number {
    return this.#pending.size;
  }

  /** Writes the rows folded so far in one batch; resolves once they are stored (or their loss is logged). Never rejects. */
  flush(): Promise<void> {
    const previous = this.#flushing ?? Promise.resolve();
    const next = previous.then(() => this.#write());
    this.#flushing = next;
    void next.finally(() => {
      if (this.#flushing === next) this.#flushing = undefined;
    });
    return next;
  }

  /** Flushes every `flushIntervalMs` until stopped. */
  start(): void {
    if (this.#timer !== undefined) return;
    this.#timer = setInterval(() => void this.flush(), this.#options.flushIntervalMs);
    this.#timer.unref();
  }

  /** Stops the timer and writes what is left. */
  async stop(): Promise<void> {
    clearInterval(this.#timer);
    this.#timer = undefined;
    await this.flush();
  }

  /**
   * Which channels refused traffic since `sinceMs` (epoch ms, counted from its minute), and how many refusals each
   * (stored and not yet written), most first. For the needs-attention list and the dashboard.
   */
  async recentByChannel(sinceMs: number): Promise<ChannelRefusalCount[]> {
    await this.flush();
    return this.#options.log.countsByChannel(minuteOf(sinceMs), Number.MAX_SAFE_INTEGER);
  }

  /** A page of the refusal log (storage/refusals.ts), after writing what is held, so the list is current. */
  async page(filter: RefusalFilter, window: { limit: number; skip: number }): Promise<RefusalLogPage> {
    await this.flush();
    return this.#options.log.page(filter, window);
  }

  /** Per channel, the refusals whose minute is in [from, to) (epoch ms), written first. */
  async countsByChannel(from: number, to: number): Promise<ChannelRefusalCount[]> {
    await this.flush();
    return this.#options.log.countsByChannel(from, to);
  }

  async #write(): Promise<void> {
    const { log, logger } = this.#options;
    if (this.#dropped > 0) {
      logger.warn({ dropped: this.#dropped }, 'refusals were counted in Prometheus but not recorded: more sources than the refusal recorder keeps apart');
      this.#dropped = 0;
    }
    if (this.#pending.size === 0) return;
    const rows = [...this.#pending.values()];
    this.#pending = new Map();
    try {
      await this.#resolveChannels(rows);
      await log.add(rows);
    } catch (err) {
      const refusals = rows.reduce((sum, row) => sum + row.count, 0);
      logger.error({ err, rows: rows.length, refusals }, 'refusals could not be recorded; they are counted in Prometheus and logged by their listeners');
    }
  }

  /** Fills in the ids of channels named only by their listener. */
  async #resolveChannels(rows: RefusalRow[]): Promise<void> {
    const lookup = this.#options.channelIds;
    if (lookup === undefined) return;
    const names = [...new Set(rows.filter((r) => r.channelId === '' && r.channelName !== '').map((r) => r.channelName))];
    if (names.length === 0) return;
    const ids = await lookup(names);
    for (const row of rows) if (row.channelId === '' && row.channelName !== '') row.channelId = ids.get(row.channelName) ?? '';
  }
}
