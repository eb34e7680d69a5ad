/** A real SMTP server for tests (smtp-server on 127.0.0.1) that keeps every message it accepts, parsed by mailparser. */
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import type { SMTPServerOptions } from 'smtp-server';
import { simpleParser } from 'mailparser';
import type { ParsedMail } from 'mailparser';

export interface ReceivedMail {
  parsed: ParsedMail;
  /** The envelope's recipients. */
  rcptTo: string[];
  /** True when the message came over TLS (STARTTLS or implicit). */
  secure: boolean;
  user: string | undefined;
}

export interface TestSmtpServer {
  port: number;
  received: ReceivedMail[];
  close(): Promise<void>;
}

export interface TestSmtpOptions {
  port?: number;
  /** Enables STARTTLS with this certificate; without it STARTTLS is not offered. */
  tls?: { key: string; cert: string };
  /** Required credentials; without them the server takes mail without login. */
  auth?: { user: string; password: string };
}

/** Starts an SMTP server on 127.0.0.1 (an ephemeral port unless `port` is given). */
export async function startSmtpServer(options: TestSmtpOptions = {}): Promise<TestSmtpServer> {
  const received: ReceivedMail[] = [];
  const { auth } = options;
  const config: SMTPServerOptions = {
    logger: false,
    ...(options.tls === undefined ? { disabledCommands: auth === undefined ? ['STARTTLS', 'AUTH'] : ['STARTTLS'] } : { key: options.tls.key, cert: options.tls.cert, ...(auth === undefined ? { disabledCommands: ['AUTH'] } : {}) }),
    // Login over a plain connection is allowed only for the plain test server.
    allowInsecureAuth: options.tls === undefined,
    authOptional: auth === undefined,
    onAuth(credentials, _session, callback) {
      if (auth !== undefined && credentials.username === auth.user && credentials.password === auth.password) callback(null, { user: credentials.username });
      else callback(new Error('Invalid username or password'));
    },
    onData(stream, session, callback) {
      simpleParser(stream)
        .then((parsed) => {
          received.push({ parsed, rcptTo: session.envelope.rcptTo.map((r) => r.address), secure: session.secure, user: session.user as string | undefined });
          callback();
        })
        .catch((err: unknown) => callback(err as Error));
    },
  };
  const server = new SMTPServer(config);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const port = (server.server.address() as AddressInfo).port;
  return {
    port,
    received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A port on 127.0.0.1 that nothing listens on. */
export { freePort } from '../helpers/process.js';
