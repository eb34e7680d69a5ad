/** Which ports the service listens on, as GET /about shows them to admins. Pure. */
import type { ServicePort } from '../contracts/api.js';

interface AuditListener {
  enabled: boolean;
  port: number;
}

export interface PortSettings {
  api: { protocol: 'http' | 'https' };
  auditing: { servers: { udp: AuditListener; tls: AuditListener; tcp: AuditListener } };
}

/**
 * The API and transaction ports as bound (a configured 0 or a changed default shows its real number), then the
 * audit listeners the configuration turns on.
 */
export function listeningPorts(settings: PortSettings, apiPort: number, transactions: { httpPort: number; httpsPort: number }): ServicePort[] {
  const ports: ServicePort[] = [
    { purpose: 'api', protocol: settings.api.protocol, port: apiPort },
    { purpose: 'transactions', protocol: 'https', port: transactions.httpsPort },
    { purpose: 'transactions', protocol: 'http', port: transactions.httpPort },
  ];
  for (const protocol of ['tcp', 'tls', 'udp'] as const) {
    const listener = settings.auditing.servers[protocol];
    if (listener.enabled) ports.push({ purpose: 'audit', protocol, port: listener.port });
  }
  return ports;
}
