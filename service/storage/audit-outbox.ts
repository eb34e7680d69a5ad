/**
 * The durable queue of audit messages waiting to go to another audit repository (`auditEvents.interface` udp, tcp or
 * tls). An event is acknowledged once it is here, so a repository that is down, or a restart, loses nothing; the
 * sender takes messages oldest first and removes each once it has gone. The queue is bounded: past the bound the
 * oldest are dropped, and the caller is told how many.
 */

/** One queued message: its place in the queue and the whole syslog message. */
export interface QueuedAuditMessage {
  seq: number;
  message: string;
}

export interface AuditOutbox {
  open(): Promise<void>;
  /**
   * Appends a message (durable when it resolves), then drops the oldest while more than `maxQueued` wait; resolves
   * with how many were dropped.
   */
  push(message: string, maxQueued: number): Promise<number>;
  /** Up to `limit` messages, oldest first. */
  peek(limit: number): QueuedAuditMessage[];
  /** Removes every message up to and including `seq` (they were sent in order). */
  removeThrough(seq: number): void;
  /** How many messages wait. */
  size(): number;
  close(): Promise<void>;
}
