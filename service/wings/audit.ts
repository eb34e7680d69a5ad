/**
 * The audit wing: the recorder of Junction's own audit events, writing to `auditEvents.interface`: this Junction's
 * audit log (`internal`), or the forwarder to another repository, started here so events queued by an earlier run go
 * first. Its stop records the stop event, after every wing built later has stopped and flushed its summaries.
 */
import { AuditRecorder } from '../audit/recorder.js';
import { AuditForwarder } from '../audit/forwarder.js';
import type { AuditForwarderStatus } from '../audit/forwarder.js';
import { applicationActivityEvent } from '../audit/events.js';
import type { AuditSink } from '../storage/audits.js';
import type { Keystore } from '../keystore/keystore.js';
import type { Core } from './core.js';
import type { Storage } from './storage.js';
import type { Wing } from './lifecycle.js';

export interface Audit {
  recorder: AuditRecorder;
  /** What the sender of audit events to another repository has done (queued, sent, dropped); undefined when `internal`. */
  forwarding: () => AuditForwarderStatus | undefined;
}

export function auditWing(core: Core, storage: Storage, keystore: Keystore): Wing<Audit> {
  const { config, logger } = core;
  const events = config.auditEvents;
  let forwarder: AuditForwarder | undefined;
  if (events.interface !== 'internal') {
    const { cert, key, passphrase } = keystore.certificate();
    const out = new AuditForwarder({
      transport: events.interface,
      host: events.host,
      port: events.port,
      outbox: storage.auditOutbox(),
      maxQueued: events.maxQueued,
      retryMaxSeconds: events.retryMaxSeconds,
      // The repository's certificate is checked against these and its name; Junction's own is the client certificate.
      tls: { trustedCAs: keystore.trustedCAs(), cert, key, ...(passphrase === undefined ? {} : { passphrase }) },
      logger: logger.child({ component: 'audit-events' }),
    });
    keystore.onChange(({ certificate, trustedCAs }) => {
      const { cert: c, key: k, passphrase: p } = certificate;
      out.useTls({ trustedCAs, cert: c, key: k, ...(p === undefined ? {} : { passphrase: p }) });
    });
    forwarder = out;
  }
  const sink: AuditSink = forwarder ?? storage.audits;
  const recorder = new AuditRecorder({ audits: sink, logger, auditSourceID: events.auditSourceID });
  // A forwarder that could not start records nothing more and has nothing to send.
  let started = false;
  return {
    offers: { recorder, forwarding: () => forwarder?.status() },
    async start() {
      await forwarder?.start();
      started = true;
    },
    async stop() {
      if (!started) return;
      await recorder.record(applicationActivityEvent('stop', events.auditSourceID));
      // After the stop event is queued: sends what it can within its time limit, leaving the rest for the next start.
      await forwarder?.stop();
    },
  };
}
