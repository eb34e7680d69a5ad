/**
 * Records Junction's own audit events (logins, failed-login summaries, application start and stop) through an audit
 * sink (the audit log, or the sender to another repository), each with `auditEvents.auditSourceID` as its source.
 */
import type { Logger } from 'pino';
import type { AuditSink, NewAudit } from '../storage/audits.js';
import { auditLogUsedEvent, failedLoginSummaryEvent, mediatorRegistrationEvent, nodeAuthenticationEvent, userLoginEvent } from './events.js';
import type { AuditLogRead, FailedLoginSummary, LoginAttempt, MediatorRegistration, NodeRefusal } from './events.js';

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

  /** Records clients refused on a transaction port from one address (one, or a window of them counted). */
  nodeAuthentication(refusal: Omit<NodeRefusal, 'auditSourceID'>): Promise<void> {
    return this.record(nodeAuthenticationEvent({ ...refusal, auditSourceID: this.#auditSourceID }));
  }

  /** Records a mediator's registration as its Application Start. */
  mediatorRegistered(registration: Omit<MediatorRegistration, 'auditSourceID'>): Promise<void> {
    return this.record(mediatorRegistrationEvent({ ...registration, auditSourceID: this.#auditSourceID }));
  }

  /** Records one request's read of the audit log. */
  auditLogUsed(read: Omit<AuditLogRead, 'auditSourceID'>): Promise<void> {
    return this.record(auditLogUsedEvent({ ...read, auditSourceID: this.#auditSourceID }));
  }
}
