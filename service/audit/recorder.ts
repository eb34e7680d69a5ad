/**
 * Records Junction's own audit events (logins, failed-login summaries, application start and stop) through an audit
 * sink (the audit log, or the sender to another repository), each with `auditEvents.auditSourceID` as its source.
 */
import type { Logger } from 'pino';
import type { AuditSink, NewAudit } from '../storage/audits.js';
import { failedLoginSummaryEvent, userLoginEvent } from './events.js';
import type { FailedLoginSummary, LoginAttempt } from './events.js';

export class AuditRecorder {
  readonly #audits: AuditSink;
  readonly #logger: Logger;
  readonly #auditSourceID: string;

  constructor(options: { audits: AuditSink; logger: Logger; auditSourceID: string }) {
    this.#audits = options.audits;
    this.#logger = options.logger;
    this.#auditSourceID = options.auditSourceID;
  }

  /** Stores one event. A failed write is logged, never thrown: auditing must not take the API down with it. */
  async record(event: NewAudit): Promise<void> {
    try {
      await this.#audits.add(event);
    } catch (err) {
      this.#logger.error({ err, eventID: event.eventIdentification.eventID?.code }, 'could not store an audit event');
    }
  }

  /** Records one login attempt, successful or not. */
  login(attempt: Omit<LoginAttempt, 'auditSourceID'>): Promise<void> {
    return this.record(userLoginEvent({ ...attempt, auditSourceID: this.#auditSourceID }));
  }

  /** Records many failed authentications of one identity from one address as one event. */
  failedLoginSummary(summary: Omit<FailedLoginSummary, 'auditSourceID'>): Promise<void> {
    return this.record(failedLoginSummaryEvent({ ...summary, auditSourceID: this.#auditSourceID }));
  }
}
