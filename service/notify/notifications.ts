/**
 * The records of messages to people as the API reads them (`GET /notifications`), and the admin's test message
 * (`POST /notifications/test`), which goes through the outbox like any other so that it tests the real path.
 */
import type { AlertMethod } from '../contracts/channels.js';
import type { NotificationKind, NotificationStatus } from '../contracts/notifications.js';
import { invalidInput } from '../refusals.js';
import type { NotificationRecord } from '../storage/records.js';
import type { Collection } from '../storage/store.js';
import type { Delivery } from './delivery.js';
import type { Outbox } from './outbox.js';
import { escapeHtml } from './password-links.js';
import { addressProblem } from '../domain/alerts/addresses.js';

export { addressProblem };

/** What the list may be narrowed to, and the page. */
export interface NotificationQuery {
  kind?: NotificationKind;
  status?: NotificationStatus;
  /** The recipient user's email. */
  user?: string;
  limit: number;
  skip: number;
}

export interface NotificationsOptions {
  notifications: Collection<NotificationRecord>;
  outbox: Outbox;
  delivery: Delivery;
  /** `alerts.himInstance`, named in the test message. */
  instance: string;
  /** Longest wait for a test message's first try before answering with it still pending. */
  testWaitMs: number;
  now?: () => Date;
}


/** Lists message records and sends test messages. */
export class Notifications {
  readonly #options: NotificationsOptions;
  readonly #now: () => Date;

  constructor(options: NotificationsOptions) {
    this.#options = options;
    this.#now = options.now ?? (() => new Date());
  }

  /** Records matching the query, newest first. */
  list(query: NotificationQuery): Promise<NotificationRecord[]> {
    const filter: Record<string, string> = {};
    if (query.kind !== undefined) filter.kind = query.kind;
    if (query.status !== undefined) filter.status = query.status;
    if (query.user !== undefined) filter.user = query.user.trim().toLowerCase();
    return this.#options.notifications.find(filter, { sort: { created: -1, _id: -1 }, skip: query.skip, limit: query.limit });
  }

  /**
   * Records a test message to `to` and waits (a bounded time) for its first try: the answer is the record, `sent`, or
   * `failed`/`pending` with `lastError` saying why. 400 when the address does not suit the method.
   */
  async sendTest(input: { method: AlertMethod; to: string }, by: string): Promise<NotificationRecord> {
    const to = input.to.trim();
    const problem = addressProblem(input.method, to);
    if (problem !== null) throw invalidInput([{ path: 'body.to', message: problem }]);
    const { instance } = this.#options;
    const at = this.#now().toISOString().replace('T', ' ').slice(0, 19);
    const subject = `${instance}: test message`;
    const line = `This is a test message from ${instance}, sent by ${by} at ${at} UTC.`;
    const [record] = await this.#options.outbox.enqueue([
      input.method === 'email'
        ? { kind: 'test', method: 'email', to, subject, text: `${line}\n\nEmail from ${instance} reaches you.`, html: `<p>${escapeHtml(line)}</p><p>Email from ${escapeHtml(instance)} reaches you.</p>` }
        : { kind: 'test', method: 'sms', to, subject, sms: line },
    ]);
    if (record === undefined) throw new Error('the outbox recorded nothing');
    return (await this.#options.delivery.outcome(record._id, this.#options.testWaitMs)) ?? record;
  }
}
