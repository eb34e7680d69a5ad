/**
 * The listen wing: binds the transaction ports, the management API, the tcp and tls channels' listeners and the
 * audit repository's listeners, in that order, and unbinds them in that order when the service stops, before anything
 * they hand work to closes.
 */
import type { AddressInfo } from 'node:net';
import { guardHttpServer } from '../transports/admission.js';
import { listeningPorts } from '../domain/operations/listening-ports.js';
import { localUrl } from './core.js';
import type { Core } from './core.js';
import type { Storage } from './storage.js';
import type { Transports } from './transports.js';
import type { Api } from './api.js';
import type { Wing } from './lifecycle.js';

export interface Listening {
  /** Base URL of the management API, e.g. https://127.0.0.1:8080 */
  apiUrl: string;
  apiPort: number;
  /** Base URLs of the transaction ports. */
  httpUrl: string;
  httpsUrl: string;
}

export function listenWing(core: Core, storage: Storage, transports: Transports, api: Api): Wing<Listening> {
  const { config } = core;
  const { connections } = config;
  const { admission, ports, listeners, auditListeners, bound } = transports;
  const unsubscribe = storage.changes.channels.subscribe(() => listeners.changed());
  return {
    async start() {
      const transactionPorts = await ports.start();
      guardHttpServer(api.app.server, { admission, listener: 'api', perAddress: connections.maxPerAddress, headTimeoutMs: connections.headTimeoutSeconds * 1000, secure: config.api.protocol === 'https' });
      await api.app.listen({ host: config.api.host, port: config.api.port });
      const apiPort = (api.app.server.address() as AddressInfo).port;
      const claims = [
        { port: apiPort, host: config.api.host, owner: 'the management API' },
        { port: transactionPorts.httpPort, host: config.router.host, owner: 'the HTTP transaction port' },
        { port: transactionPorts.httpsPort, host: config.router.host, owner: 'the HTTPS transaction port' },
      ];
      bound.bound(claims, []);
      await listeners.start();
      // A port that cannot be bound fails the start, naming its setting.
      await auditListeners.start();
      bound.bound(claims, listeningPorts(config.api.protocol, apiPort, transactionPorts, auditListeners.bound()));
      core.console.bound(config, apiPort, core.logger);
      return {
        apiUrl: localUrl(config.api.protocol, config.api.host, apiPort),
        apiPort,
        httpUrl: localUrl('http', config.router.host, transactionPorts.httpPort),
        httpsUrl: localUrl('https', config.router.host, transactionPorts.httpsPort),
      };
    },
    async stop() {
      unsubscribe();
      await ports.stop();
      await listeners.stop();
      await auditListeners.stop();
    },
  };
}
