/** Shared pieces of the audit listener tests: a recording intake, listeners on free ports, certificates, raw peers. */
import { connect as connectNet } from 'node:net';
import type { Socket } from 'node:net';
import { connect as connectTls } from 'node:tls';
import type { ConnectionOptions } from 'node:tls';
import { AuditListeners } from '../../service/audit/listeners.js';
import type { AuditListenersOptions } from '../../service/audit/listeners.js';
import type { AuditMessageHandler, AuditPeer } from '../../service/audit/peer.js';
import { generateSelfSigned } from '../../service/tls/self-signed.js';
import type { Admission } from '../../service/transports/admission.js';
import type { Logger } from 'pino';
import type { ServerCertificate } from '../../service/tls/server-certificate.js';
import { memoryLogger } from '../helpers/logger.js';
import { freePorts } from '../helpers/process.js';

/** An intake that records every message it is handed, and may say it is overloaded until released. */
export class RecordingIntake implements AuditMessageHandler {
  readonly got: { text: string; from: AuditPeer }[] = [];
  /** Count only (for floods): messages are not kept. */
  countOnly = false;
  count = 0;
  /** Overloaded from this many messages on, until `release()`. */
  overloadAfter = Infinity;
  /** How many messages had arrived each time a listener asked to wait. */
  readonly waitsAt: number[] = [];
  #release: (() => void) | undefined;
  #ready: Promise<void> | undefined;

  receive(message: Buffer, from: AuditPeer): void {
    this.count++;
    if (!this.countOnly) this.got.push({ text: message.toString('utf8'), from });
  }

  overloaded(): boolean {
    return this.count >= this.overloadAfter;
  }

  whenReady(): Promise<void> {
    this.waitsAt.push(this.count);
    this.#ready ??= new Promise((resolve) => (this.#release = resolve));
    return this.#ready;
  }

  /** No longer overloaded: paused readers read on. */
  release(): void {
    this.overloadAfter = Infinity;
    this.#release?.();
  }

  texts(): string[] {
    return this.got.map((m) => m.text);
  }
}

export const serverPair = generateSelfSigned('localhost');
export const certificate: ServerCertificate = { ...serverPair, source: 'generated', fingerprint256: '', validTo: new Date() };

/** A syslog message (RFC 5424 header) carrying a small RFC 3881 audit message numbered `n`. */
export function auditSyslog(n: number | string, extra = ''): string {
  return `<85>1 2024-01-01T12:00:00.000Z clinic.example ehr 42 IHE+RFC-3881 - <?xml version="1.0"?><AuditMessage><EventIdentification EventActionCode="R" EventDateTime="2024-01-01T12:00:00Z" EventOutcomeIndicator="0"><EventID csd-code="110110" codeSystemName="DCM" originalText="Patient Record"/></EventIdentification><AuditSourceIdentification AuditSourceID="ehr-${n}"/>${extra}</AuditMessage>`;
}

export interface Started {
  listeners: AuditListeners;
  intake: RecordingIntake;
  lines: Record<string, unknown>[];
  ports: { udp: number; tcp: number; tls: number };
}

/** Starts listeners on free loopback ports (all three unless told otherwise), with the given limits. */
export async function startListeners(overrides: { limits?: Partial<AuditListenersOptions['limits']>; requireClientCertificate?: boolean; trustedCAs?: string[]; enabled?: ('udp' | 'tcp' | 'tls')[]; intake?: RecordingIntake; admission?: (logger: Logger) => Admission } = {}): Promise<Started> {
  const [udp, tcp, tls] = (await freePorts(3)) as [number, number, number];
  const enabled = overrides.enabled ?? ['udp', 'tcp', 'tls'];
  const intake = overrides.intake ?? new RecordingIntake();
  const log = memoryLogger();
  const listeners = new AuditListeners({
    handler: intake,
    host: '127.0.0.1',
    servers: {
      udp: { enabled: enabled.includes('udp'), port: udp },
      tcp: { enabled: enabled.includes('tcp'), port: tcp },
      tls: { enabled: enabled.includes('tls'), port: tls, requireClientCertificate: overrides.requireClientCertificate ?? true },
    },
    certificate,
    trustedCAs: overrides.trustedCAs ?? [],
    limits: { maxMessageBytes: 64 * 1024, maxConnections: 50, idleTimeoutMs: 10_000, ...overrides.limits },
    ...(overrides.admission === undefined ? {} : { admission: overrides.admission(log.logger) }),
    logger: log.logger,
  });
  await listeners.start();
  return { listeners, intake, lines: log.lines, ports: { udp, tcp, tls } };
}

/** A connected plain TCP socket; its close is awaited with `closedOf`. */
export function tcpPeer(port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connectNet({ host: '127.0.0.1', port });
    socket.once('connect', () => resolve(socket));
    socket.once('error', reject);
  });
}

/** A TLS connection and how it ended: connected (secureConnect) and whether the server closed or refused it. */
export function tlsPeer(port: number, options: ConnectionOptions = {}): { socket: ReturnType<typeof connectTls>; connected: Promise<boolean>; closed: Promise<string> } {
  const socket = connectTls({ host: '127.0.0.1', port, ca: serverPair.cert, servername: 'localhost', ...options });
  const connected = new Promise<boolean>((resolve) => {
    socket.once('secureConnect', () => resolve(true));
    socket.once('close', () => resolve(false));
  });
  let error = '';
  socket.on('error', (err: NodeJS.ErrnoException) => (error = err.code ?? err.message));
  const closed = new Promise<string>((resolve) => socket.once('close', () => resolve(error === '' ? 'closed' : error)));
  return { socket, connected, closed };
}

/** Resolves when a socket has closed. */
export function closedOf(socket: Socket): Promise<void> {
  return new Promise((resolve) => {
    if (socket.destroyed) resolve();
    else socket.once('close', () => resolve());
  });
}

/** Writes a buffer one byte per write, each flushed before the next. */
export async function byteByByte(socket: Socket, data: Buffer): Promise<void> {
  for (const byte of data) await new Promise<void>((resolve) => socket.write(Buffer.from([byte]), () => resolve()));
}
