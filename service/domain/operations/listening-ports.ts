/** Which ports the service listens on, as GET /about shows them to admins. Pure. */
import type { ServicePort } from '../../contracts/api.js';

/** A listener that is actually bound (not merely configured). */
export interface BoundListener {
  protocol: ServicePort['protocol'];
  port: number;
}

/**
 * The API and transaction ports as bound (a configured 0 or a changed default shows its real number), then any
 * audit repository listeners that are bound. Only bound ports are listed: a port shown here must answer.
 */
export function listeningPorts(apiProtocol: 'http' | 'https', apiPort: number, transactions: { httpPort: number; httpsPort: number }, audit: readonly BoundListener[] = []): ServicePort[] {
  return [
    { purpose: 'api', protocol: apiProtocol, port: apiPort },
    { purpose: 'transactions', protocol: 'https', port: transactions.httpsPort },
    { purpose: 'transactions', protocol: 'http', port: transactions.httpPort },
    ...audit.map((listener) => ({ purpose: 'audit' as const, protocol: listener.protocol, port: listener.port })),
  ];
}
