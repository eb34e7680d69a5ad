/**
 * The outbox: every message to a person (an alert, a report, a test message, a set-password link) is recorded here
 * before anything tries to send it, so a crash or an unreachable server never loses one silently. Delivery reads the
 * pending records, tries them, and records the outcome with retries and backoff (delivery.ts).
 */
import type { AlertMethod } from '../contracts/channels.js';
import type { NotificationKind } from '../contracts/notifications.js';
import type { NotificationAlertRecord, NotificationRecord, NotificationReportRecord } from '../storage/records.js';
import { UniqueConstraintError } from '../storage/store.js';
import type { Collection } from '../storage/store.js';

/** A message to record and send. */
export interface OutgoingMessage {
  kind: NotificationKind;
  method: AlertMethod;
  /** An email address, or a phone number for SMS. */
  to: string;
  /** The recipient user's email, when the message is for a user. */
  user?: string;
  subject: string;
  /** Email bodies; `html` is optional. */
  text?: string;
  html?: string;
  /** The SMS line. */
  sms?: string;
  /** Makes the message one of a kind: a second message with the same key is not recorded (see NotificationRecord). */
  key?: string;
  alert?: NotificationAlertRecord;
  report?: NotificationReportRecord;
  /**
   * Record it as `held` (an alert `maxAlerts` held back) or `failed` (it cannot be sent, `error` says why) instead of
   * pending: nothing tries to send it, and the record keeps what it would have reported.
   */
  outcome?: { status: 'held' | 'failed'; error: string };
}

export interface OutboxOptions {
  notifications: Collection<NotificationRecord>;
  now?: () => Date;
  /** Called after pending messages were recorded: delivery starts at once rather than at its next scan. */
  onQueued?: () => void;
}

/** Records outgoing messages. */
export class Outbox {
  readonly #notifications: Collection<NotificationRecord>;
  readonly #now: () => Date;
  #onQueued: () => void;

  constructor(options: OutboxOptions) {
    this.#notifications = options.notifications;
    this.#now = options.now ?? (() => new Date());
    this.#onQueued = options.onQueued ?? (() => undefined);
  }

  /** Sets what is called after pending messages were recorded (delivery wires itself in once it exists). */
  set onQueued(listener: () => void) {
    this.#onQueued = listener;
  }

  /**
   * Records each message (pending unless it says otherwise) and returns the records written, in order. A message
   * whose `key` is already recorded is skipped: the existing record is returned in its place.
   */
  async enqueue(messages: readonly OutgoingMessage[]): Promise<NotificationRecord[]> {
    const written: NotificationRecord[] = [];
    let pending = false;
    for (const message of messages) {
      const record = await this.#record(message);
      written.push(record);
      if (record.status === 'pending') pending = true;
    }
    if (pending) this.#onQueued();
    return written;
  }

  async #record(message: OutgoingMessage): Promise<NotificationRecord> {
    const now = this.#now();
    const { outcome, ...fields } = message;
    const doc: Omit<NotificationRecord, '_id'> = {
      ...fields,
      status: outcome?.status ?? 'pending',
      attempts: 0,
      created: now,
      ...(outcome === undefined ? { nextAttemptAt: now } : { lastError: outcome.error }),
    };
    // A message that will never be sent keeps no bodies (see NotificationRecord).
    if (outcome !== undefined) {
      delete doc.text;
      delete doc.html;
      delete doc.sms;
    }
    try {
      return await this.#notifications.insert(doc);
    } catch (err) {
      if (!(err instanceof UniqueConstraintError) || message.key === undefined) throw err;
      const existing = await this.#notifications.findOne({ key: message.key });
      if (existing === null) throw err;
      return existing;
    }
  }
}
