/** The HTTP (5001) and HTTPS (5000) transaction ports: each request goes to the pipeline. */
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { Server as TlsServer } from 'node:tls';
import type { AddressInfo, Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';
import type { Logger } from 'pino';
import type { Pipeline } from '../pipeline/index.js';
import type { PresentedCredentials } from '../pipeline/authenticate.js';
import { peerCertificateOf } from '../tls/peer-certificate.js';
import { listenerContext } from '../tls/server-certificate.js';
import type { ServerCertificate } from '../tls/server-certificate.js';
import { guardHttpServer } from './admission.js';
import type { Admission } from './admission.js';

export interface TransactionPortsOptions {
  host: string;
  httpPort: number;
  httpsPort: number;
  certificate: ServerCertificate;
  /** Ask HTTPS clients for a certificate (mutual TLS); verification against clients happens in the pipeline. */
  requestClientCertificates: boolean;
  /** CA certificates whose issued client certificates are trusted. */
  trustedCAs: readonly string[];
  logger: Logger;
  /** The instance's shared connection admission (per-address and process-wide limits). */
  admission: Admission;
  connectionLimits: { perAddress: number; headTimeoutMs: number; handshakeTimeoutMs: number };
}

const STOP_GRACE_MS = 10_000;

function peerOf(req: IncomingMessage): PresentedCredentials['peer'] {
  return peerCertificateOf(req.socket as TLSSocket);
}

function track(server: Server): Set<Socket> {
  const sockets = new Set<Socket>();
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  return sockets;
}

export class TransactionPorts {
  readonly #http: Server;
  readonly #https: Server;
  readonly #options: TransactionPortsOptions;
  readonly #sockets: Set<Socket>[] = [];

  constructor(pipeline: Pipeline, options: TransactionPortsOptions) {
    this.#options = options;
    const handler = (secure: boolean) => (req: IncomingMessage, res: ServerResponse) => {
      void pipeline.handle(req, res, { secure, ...(secure ? { peer: peerOf(req) } : {}) });
    };
    this.#http = createServer(handler(false));
    this.#https = createHttpsServer(
      {
        ...listenerContext(options.certificate, options.trustedCAs),
        requestCert: options.requestClientCertificates,
        // Unknown certificates are judged by the pipeline (a registered client certificate need not chain to a CA).
        rejectUnauthorized: false,
        handshakeTimeout: options.connectionLimits.handshakeTimeoutMs,
      },
      handler(true),
    );
    const { admission, connectionLimits } = options;
    guardHttpServer(this.#http, { admission, listener: 'http', perAddress: connectionLimits.perAddress, headTimeoutMs: connectionLimits.headTimeoutMs, secure: false });
    guardHttpServer(this.#https, { admission, listener: 'https', perAddress: connectionLimits.perAddress, headTimeoutMs: connectionLimits.headTimeoutMs, secure: true });
    for (const server of [this.#http, this.#https]) {
      this.#sockets.push(track(server));
      server.on('clientError', (err, socket) => {
        options.logger.info({ err: (err).message }, 'malformed request on a transaction port');
        // Parse errors only (HPE_*): a reset or a timeout is the sender's connection ending, not a refused request.
        if ((err as NodeJS.ErrnoException).code?.startsWith('HPE_') === true) options.admission.refused(server === this.#http ? 'http' : 'https', (socket as Socket).remoteAddress, 'bad_frame', { problem: `malformed HTTP request: ${err.message}` });
        if (socket.writable) socket.end('HTTP/1.1 400 Bad Request\r\nconnection: close\r\ncontent-length: 0\r\n\r\n');
        else socket.destroy();
      });
    }
  }

  /** Serves a new pair and CA list to new HTTPS connections; open ones keep theirs. */
  useCertificate(certificate: ServerCertificate, trustedCAs: readonly string[]): void {
    (this.#https as unknown as TlsServer).setSecureContext(listenerContext(certificate, trustedCAs));
  }

  /** Listens on both ports; resolves with the ports actually bound. */
  async start(): Promise<{ httpPort: number; httpsPort: number }> {
    const listen = (server: Server, port: number) =>
      new Promise<number>((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, this.#options.host, () => {
          server.off('error', reject);
          resolve((server.address() as AddressInfo).port);
        });
      });
    const httpPort = await listen(this.#http, this.#options.httpPort);
    const httpsPort = await listen(this.#https, this.#options.httpsPort);
    return { httpPort, httpsPort };
  }

  /** Stops accepting connections and lets requests in flight finish (idle keep-alive connections close at once). */
  async stop(): Promise<void> {
    // A client that keeps a request open forever must not stop shutdown.
    const force = setTimeout(() => {
      for (const sockets of this.#sockets) for (const socket of sockets) socket.destroy();
    }, STOP_GRACE_MS);
    force.unref();
    await Promise.all(
      [this.#http, this.#https].map(
        (server) =>
          new Promise<void>((resolve) => {
            if (!server.listening) {
              resolve();
              return;
            }
            server.close(() => resolve());
            server.closeIdleConnections();
          }),
      ),
    );
    clearTimeout(force);
  }
}
