/** What the audit repository's listeners hand on: one whole syslog message, and who sent it. */

export type AuditTransport = 'udp' | 'tcp' | 'tls';

export interface AuditPeer {
  transport: AuditTransport;
  address: string;
  port: number;
  /** The subject CN of the TLS client certificate, when the sender presented one. */
  certificateSubject?: string;
}

/** Takes one received message (syslog header and payload, framing removed). Never throws: faults are its own to log. */
export interface AuditMessageHandler {
  receive(message: Buffer, from: AuditPeer): void;
}
