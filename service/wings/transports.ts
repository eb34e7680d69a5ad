/**
 * The transports wing: the inbound listeners, built here and bound by the listen wing once the API is built: the
 * HTTP and HTTPS transaction ports, the tcp and tls channels' listeners, and the audit repository's syslog listeners
 * with their intake; the connection admission they share; each follows the keystore's pair and CAs. A new transport
 * is built here and bound in `listen.ts`.
 */
import { TransactionPorts } from '../transports/http.js';
import { Admission } from '../transports/admission.js';
import { readFileLimit } from '../transports/file-limit.js';
import { ChannelListeners } from '../transports/sockets.js';
import { connectionCapOf } from '../domain/access/admission.js';
import { AuditListeners } from '../audit/listeners.js';
import type { AuditListenerStats } from '../audit/listeners.js';
import { AuditIntake } from '../audit/intake.js';
import { createAuditParser } from '../audit/parsers.js';
import type { AboutAudits } from '../contracts/api.js';
import type { Store } from '../storage/store.js';
import type { Keystore } from '../keystore/keystore.js';
import { BoundPorts } from './core.js';
import type { Core } from './core.js';
import type { Storage } from './storage.js';
import type { Audit } from './audit.js';
import type { Pipelines } from './pipeline.js';
import type { Wing } from './lifecycle.js';
import type { RefusalRecorder } from '../refused/recorder.js';

export interface Transports {
  admission: Admission;
  ports: TransactionPorts;
  listeners: ChannelListeners;
  auditListeners: AuditListeners;
  intake: AuditIntake;
  /** The ports bound so far (none before the listen wing), for `GET /about` and the channels' port checks. */
  bound: BoundPorts;
  /** The audit repository's intake and listeners and the audit sender, as `/about` and Prometheus show them. */
  auditCounts: () => AboutAudits;
  auditListenerStats: () => AuditListenerStats[];
}

export async function transportsWing(core: Core, parts: { storage: Storage; store: Store; keystore: Keystore; audit: Audit; pipelines: Pipelines; refusals: RefusalRecorder }): Promise<Wing<Transports>> {
  const { config, logger, prometheus } = core;
  const { storage, store, keystore, audit, pipelines } = parts;
  const { connections, auditing } = config;
  const admission = await connectionAdmission(core, parts.refusals);
  const certificate = keystore.certificate();
  const trustedCAs = keystore.trustedCAs();
  const ports = new TransactionPorts(pipelines.pipeline, {
    admission,
    connectionLimits: { perAddress: connections.maxPerAddress, headTimeoutMs: connections.headTimeoutSeconds * 1000, handshakeTimeoutMs: connections.handshakeTimeoutSeconds * 1000 },
    host: config.router.host,
    httpPort: config.router.httpPort,
    httpsPort: config.router.httpsPort,
    certificate,
    requestClientCertificates: config.authentication.enableMutualTLSAuthentication,
    trustedCAs,
    logger,
  });
  // A channel whose port cannot be bound shows it in its listener state; it never stops the service starting.
  const listeners = new ChannelListeners({
    handler: pipelines.messages,
    source: () => store.channels.find({ type: { $in: ['tcp', 'tls'] }, status: 'enabled' }),
    certificate,
    trustedCAs,
    limits: {
      maxMessageBytes: config.tcp.maxMessageBytes,
      idleTimeoutMs: config.tcp.idleTimeoutSeconds * 1000,
      maxConnectionsPerChannel: config.tcp.maxConnectionsPerChannel,
      maxConnectionsPerAddress: config.tcp.maxConnectionsPerAddress,
      silentTimeoutMs: config.tcp.silentTimeoutSeconds * 1000,
      frameTimeoutMs: connections.frameTimeoutSeconds * 1000,
      handshakeTimeoutMs: connections.handshakeTimeoutSeconds * 1000,
    },
    admission,
    logger: logger.child({ component: 'listeners' }),
  });
  // Received audit messages are parsed into the audit model and stored in the audit log (malformed ones raw).
  const intakeLogger = logger.child({ component: 'audit-intake' });
  const parser = createAuditParser(intakeLogger);
  const intake = new AuditIntake({ sink: storage.audits, logger: intakeLogger, parser });
  const auditListeners = new AuditListeners({
    handler: intake,
    host: auditing.host,
    servers: auditing.servers,
    certificate,
    trustedCAs,
    limits: {
      maxMessageBytes: auditing.maxMessageBytes,
      maxConnections: auditing.maxConnections,
      idleTimeoutMs: auditing.idleTimeoutSeconds * 1000,
      handshakeTimeoutMs: connections.handshakeTimeoutSeconds * 1000,
      maxConnectionsPerAddress: connections.maxPerAddress,
      silentTimeoutMs: connections.silentTimeoutSeconds * 1000,
      frameTimeoutMs: connections.frameTimeoutSeconds * 1000,
    },
    admission,
    logger: logger.child({ component: 'audit-listeners' }),
  });
  // Open connections keep their context; new handshakes get the new pair and are judged by the new CAs.
  keystore.onChange((change) => {
    ports.useCertificate(change.certificate, change.trustedCAs);
    listeners.useCertificate(change.certificate, change.trustedCAs);
    auditListeners.useCertificate(change.certificate, change.trustedCAs);
  });
  const auditListenerStats = () => auditListeners.stats();
  const auditCounts = (): AboutAudits => {
    const counts = intake.stats();
    const forwarding = audit.forwarding();
    return {
      intake: { received: counts.received, stored: counts.stored, malformed: counts.malformed, failed: counts.failed, dropped: counts.dropped, inFlight: counts.inFlight },
      listeners: auditListenerStats().map((l) => ({ transport: l.transport, port: l.port, connections: l.connections, received: l.received, malformedFraming: l.malformedFraming, refusedConnections: l.refusedConnections, tooLarge: l.tooLarge })),
      ...(forwarding === undefined ? {} : { forwarding: { ...forwarding } }),
    };
  };
  prometheus.watchAudits(auditCounts);
  return {
    offers: { admission, ports, listeners, auditListeners, intake, bound: new BoundPorts(), auditCounts, auditListenerStats },
    async stop() {
      // Every message the listeners accepted is written before the audit log closes.
      await intake.settled();
      await parser.close();
    },
  };
}

/**
 * The connection admission every listener shares: its process-wide cap is `connections.maxTotal`, or computed from
 * the open-file limit (which Node raised to the hard limit as it started, and index.ts where Node could not).
 */
async function connectionAdmission(core: Core, refusals: RefusalRecorder): Promise<Admission> {
  const { config, logger, prometheus } = core;
  const limit = await readFileLimit();
  const total = config.connections.maxTotal > 0 ? config.connections.maxTotal : connectionCapOf(limit?.soft ?? null);
  logger.info({ maxTotal: total, openFileLimit: limit?.soft ?? 'unknown', maxPerAddress: config.connections.maxPerAddress, tcpMaxPerAddress: config.tcp.maxConnectionsPerAddress }, 'inbound connection limits');
  return new Admission({ perAddress: config.connections.maxPerAddress, total, logger: logger.child({ component: 'connections' }), registry: prometheus.registry, record: (listener, address, reason, fields) => refusals.connectionRefused(listener, address, reason, fields) });
}
