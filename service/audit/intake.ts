/**
 * The audit repository's intake: every message a listener receives is decoded, parsed and added to the audit log.
 * A message that is not an audit is stored raw (as OpenHIM does), counted and warned about; a failed write is logged
 * and counted. Nothing here throws at a listener. Writes in flight are bounded: past `highWater` `receive` answers
 * false so stream listeners can pause their sockets (and `whenReady` tells them when to resume); past twice that,
 * messages are dropped and counted, so a flood that ignores back-pressure (UDP cannot pause) cannot exhaust memory.
 */
import type { Logger } from 'pino';
import type { AuditSink } from '../storage/audits.js';
import { malformedAudit } from './parse-audit.js';
import { decodeEncoded } from '../storage/audit-rows.js';
import { inlineAuditParser } from './parsers.js';
import type { AuditParser, ParsedMessage } from './parsers.js';
import type { AuditMessageHandler, AuditPeer, AuditTransport } from './peer.js';
import { parseSyslog } from './syslog-header.js';

export interface AuditIntakeCounts {
  /** Messages handed in. */
  received: number;
  /** Messages written to the audit log, audits and malformed ones alike. */
  stored: number;
  /** Messages that were not an audit message (stored raw). */
  malformed: number;
  /** Messages whose write failed. */
  failed: number;
  /** Messages refused unwritten because the writes in flight were at their hard limit. */
  dropped: number;
}

export interface AuditIntakeStats extends AuditIntakeCounts {
  byTransport: Record<AuditTransport, AuditIntakeCounts>;
  /** Writes not yet finished. */
  inFlight: number;
}

export interface AuditIntakeOptions {
  sink: AuditSink;
  logger: Logger;
  now?: () => Date;
  /** Writes in flight past which `receive` answers false (back-pressure); twice this, messages are dropped. */
  highWater?: number;
  /** At most one warning per kind (malformed, failed write, dropped) in this many milliseconds; the rest are counted. */
  warnIntervalMs?: number;
  /** Where messages are parsed; inline (on this thread) unless given. */
  parser?: AuditParser;
}

/** Messages received in one turn of the event loop (or more, while the parser is busy), handed to the parser together. */
interface Pending {
  texts: string[];
  receivedAt: number[];
  from: { counts: AuditIntakeCounts; peer: AuditPeer }[];
}

/** Most messages in one batch to the parser: a batch is parsed and answered whole, so this bounds its latency. */
const MAX_BATCH = 500;

const DEFAULT_HIGH_WATER = 10_000;
const DEFAULT_WARN_INTERVAL_MS = 60_000;

const zero = (): AuditIntakeCounts => ({ received: 0, stored: 0, malformed: 0, failed: 0, dropped: 0 });

/** Logs the first warning of a kind in each interval and counts the rest, naming how many were held back. */
class RateLimitedWarning {
  #last = -Infinity;
  #suppressed = 0;

  constructor(
    readonly intervalMs: number,
    readonly now: () => Date,
  ) {}

  /** Calls `log` with the number of warnings held back since the last one, or counts this one if it is too soon. */
  warn(log: (suppressed: number) => void): void {
    const at = this.now().getTime();
    if (at - this.#last < this.intervalMs) {
      this.#suppressed++;
      return;
    }
    this.#last = at;
    const suppressed = this.#suppressed;
    this.#suppressed = 0;
    log(suppressed);
  }
}

export class AuditIntake implements AuditMessageHandler {
  readonly #sink: AuditSink;
  readonly #logger: Logger;
  readonly #now: () => Date;
  readonly #highWater: number;
  readonly #total = zero();
  readonly #byTransport: Record<AuditTransport, AuditIntakeCounts> = { udp: zero(), tcp: zero(), tls: zero() };
  readonly #malformedWarning: RateLimitedWarning;
  readonly #failedWarning: RateLimitedWarning;
  readonly #droppedWarning: RateLimitedWarning;
  readonly #decoder = new TextDecoder('utf-8', { fatal: true });
  readonly #parser: AuditParser;
  #pending: Pending | null = null;
  /** Batches sent to the parser and not yet answered. */
  #atParser = 0;
  #inFlight = 0;
  #settledWaiters: (() => void)[] = [];
  #readyWaiters: (() => void)[] = [];

  constructor(options: AuditIntakeOptions) {
    this.#sink = options.sink;
    this.#logger = options.logger;
    this.#now = options.now ?? (() => new Date());
    this.#highWater = Math.max(1, options.highWater ?? DEFAULT_HIGH_WATER);
    this.#parser = options.parser ?? inlineAuditParser;
    const interval = options.warnIntervalMs ?? DEFAULT_WARN_INTERVAL_MS;
    this.#malformedWarning = new RateLimitedWarning(interval, this.#now);
    this.#failedWarning = new RateLimitedWarning(interval, this.#now);
    this.#droppedWarning = new RateLimitedWarning(interval, this.#now);
  }

  /**
   * Takes one message and starts its write. Answers false when the writes in flight have reached the high-water
   * mark: a stream listener should pause reading until `whenReady()` resolves. Never throws.
   */
  receive(message: Buffer, from: AuditPeer): boolean {
    const counts = this.#byTransport[from.transport] ?? zero();
    this.#count(counts, 'received');
    if (this.#inFlight >= 2 * this.#highWater) {
      this.#count(counts, 'dropped');
      this.#droppedWarning.warn((suppressed) =>
        this.#logger.warn({ peer: from, inFlight: this.#inFlight, suppressed }, 'audit message dropped: too many audit writes in flight'),
      );
      return false;
    }
    const receivedAt = this.#now();
    this.#inFlight++;
    const text = this.#decode(message);
    if (text === undefined) {
      const lossy = message.toString('utf8');
      this.#store({ audit: malformedAudit(lossy, parseSyslog(lossy, receivedAt)?.syslog, receivedAt), problem: 'not valid UTF-8' }, counts, from);
    } else {
      this.#queue(text, receivedAt.getTime(), counts, from);
    }
    return this.#inFlight < this.#highWater;
  }

  /** True while the writes in flight are at or past the high-water mark. */
  overloaded(): boolean {
    return this.#inFlight >= this.#highWater;
  }

  /** Resolves once the writes in flight are below half the high-water mark (at once if they already are). */
  whenReady(): Promise<void> {
    if (this.#inFlight < this.#highWater / 2) return Promise.resolve();
    return new Promise((resolve) => this.#readyWaiters.push(resolve));
  }

  /** Resolves when every write started so far has finished, stored or failed. */
  settled(): Promise<void> {
    if (this.#inFlight === 0) return Promise.resolve();
    return new Promise((resolve) => this.#settledWaiters.push(resolve));
  }

  /** The counts, in total and per transport, for /about and Prometheus. */
  stats(): AuditIntakeStats {
    const copy = (c: AuditIntakeCounts): AuditIntakeCounts => ({ ...c });
    return {
      ...copy(this.#total),
      byTransport: { udp: copy(this.#byTransport.udp), tcp: copy(this.#byTransport.tcp), tls: copy(this.#byTransport.tls) },
      inFlight: this.#inFlight,
    };
  }

  #decode(message: Buffer): string | undefined {
    try {
      return this.#decoder.decode(message);
    } catch {
      return undefined;
    }
  }

  /** Adds a message to the batch being gathered, which goes to the parser once the turn ends or the batch is full. */
  #queue(text: string, receivedAt: number, counts: AuditIntakeCounts, peer: AuditPeer): void {
    let pending = this.#pending;
    if (pending === null) {
      pending = { texts: [], receivedAt: [], from: [] };
      this.#pending = pending;
      setImmediate(() => this.#send(false));
    }
    pending.texts.push(text);
    pending.receivedAt.push(receivedAt);
    pending.from.push({ counts, peer });
    if (pending.texts.length >= MAX_BATCH) this.#send(true);
  }

  /**
   * Sends the gathered batch to the parser. While another batch is still out there, a batch with room left waits
   * for that answer and keeps growing: a busy service thus parses and commits hundreds of audits at a time (SQLite
   * costs about 130 µs per audit in commits of 20, 75 in commits of 500), while a quiet one still sends each turn's.
   */
  #send(full: boolean): void {
    const batch = this.#pending;
    if (batch === null || batch.texts.length === 0) return;
    if (!full && this.#atParser > 0) return;
    this.#pending = null;
    this.#atParser++;
    const { texts, receivedAt, from } = batch;
    const answered = (): void => {
      this.#atParser--;
      this.#send(false);
    };
    void this.#parser.parse(texts, receivedAt).then(
      (results) => {
        try {
          // Every message of the batch is stored, so none stays counted in flight (which would hold `settled()`).
          texts.forEach((text, i) => {
            const source = from[i];
            if (source === undefined) return;
            const result = results[i] ?? { audit: malformedAudit(text, undefined, new Date(receivedAt[i] ?? Date.now())), problem: 'the parser gave no answer for it' };
            this.#store(result, source.counts, source.peer);
          });
        } finally {
          // Even so, the batch waiting behind this one must go, or its messages would never settle.
          answered();
        }
      },
      (err: unknown) => {
        // The parsers never reject; should one, each message is still kept raw rather than lost.
        const problem = `could not be parsed: ${err instanceof Error ? err.message : String(err)}`;
        try {
          texts.forEach((text, i) => {
            const source = from[i];
            if (source !== undefined) this.#store({ audit: malformedAudit(text, undefined, new Date(receivedAt[i] ?? Date.now())), problem }, source.counts, source.peer);
          });
        } finally {
          answered();
        }
      },
    );
  }

  /** Writes one parsed message (counted in flight since it was received); a malformed one is counted and warned about. */
  #store(parsed: ParsedMessage, counts: AuditIntakeCounts, from: AuditPeer): void {
    const { problem } = parsed;
    if (problem !== undefined) {
      this.#count(counts, 'malformed');
      this.#malformedWarning.warn((suppressed) =>
        this.#logger.warn({ peer: from, problem, suppressed }, `malformed audit message from ${from.address}: ${problem}; stored raw`),
      );
    }
    let write: Promise<unknown>;
    try {
      if ('encoded' in parsed) write = this.#sink.addEncoded?.(parsed.encoded) ?? this.#sink.add(decodeEncoded(parsed.encoded));
      else write = this.#sink.add(parsed.audit);
    } catch (err) {
      write = Promise.reject(err instanceof Error ? err : new Error(String(err)));
    }
    write.then(
      () => {
        this.#count(counts, 'stored');
        this.#finished();
      },
      (err: unknown) => {
        this.#count(counts, 'failed');
        this.#failedWarning.warn((suppressed) => this.#logger.error({ err, peer: from, suppressed }, 'could not store a received audit message'));
        this.#finished();
      },
    );
  }

  #finished(): void {
    this.#inFlight--;
    if (this.#inFlight < this.#highWater / 2 && this.#readyWaiters.length > 0) {
      const waiters = this.#readyWaiters;
      this.#readyWaiters = [];
      for (const resolve of waiters) resolve();
    }
    if (this.#inFlight === 0 && this.#settledWaiters.length > 0) {
      const waiters = this.#settledWaiters;
      this.#settledWaiters = [];
      for (const resolve of waiters) resolve();
    }
  }

  #count(counts: AuditIntakeCounts, key: keyof AuditIntakeCounts): void {
    counts[key]++;
    this.#total[key]++;
  }
}
