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
  /**
   * Up to `limit` messages for this sender, oldest first. Where several instances share the queue, the messages are
   * claimed for this one (a claim it held before included), so no other sender is given them while it sends.
   */
  peek(limit: number): Promise<QueuedAuditMessage[]>;
  /** Removes every message this sender was given up to and including `seq` (they were sent in order). */
  removeThrough(seq: number): Promise<void>;
  /** How many messages wait, as last counted (exact when one process has the queue). */
  size(): number;
  /**
   * Where other instances also queue messages: how often an idle sender looks again, since it hears only of its
   * own. Undefined when this process alone queues them.
   */
  readonly recheckMs?: number;
  close(): Promise<void>;
}
