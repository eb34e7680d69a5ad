/**
 * The UDP audit listener (RFC 5426): one datagram is one syslog message, its trailing line break dropped. An empty
 * datagram or one over `auditing.maxMessageBytes` is counted and dropped, and logged at most once a minute so a
 * flood cannot flood the log too.
 */
import { createSocket } from 'node:dgram';
import type { RemoteInfo, Socket } from 'node:dgram';
import type { Logger } from 'pino';
import { datagramMessage } from '../domain/codecs/syslog-framing.js';
import type { AuditIntakeHandler, AuditListenerCounters } from './listener-connection.js';

export interface UdpListenerSettings {
  host: string;
  port: number;
  handler: AuditIntakeHandler;
  counters: AuditListenerCounters;
  maxMessageBytes: number;
  logger: Logger;
}

/** Dropped datagrams are logged at most this often (with the count since the last line). */
const DROP_LOG_INTERVAL_MS = 60_000;

/** Binds the UDP listener; rejects with the bind error. */
export async function listenUdp(settings: UdpListenerSettings): Promise<Socket> {
  const { host, port, handler, counters, maxMessageBytes, logger } = settings;
  const socket = createSocket({ type: host.includes(':') ? 'udp6' : 'udp4' });
  let droppedLoggedAt = 0;
  let droppedSince = 0;
  const dropped = (fields: Record<string, unknown>, why: string) => {
    droppedSince++;
    const now = Date.now();
    if (now - droppedLoggedAt < DROP_LOG_INTERVAL_MS) return;
    logger.warn({ ...fields, dropped: droppedSince }, why);
    droppedLoggedAt = now;
    droppedSince = 0;
  };
  socket.on('message', (datagram: Buffer, from: RemoteInfo) => {
    const message = datagramMessage(datagram);
    const peer = `${from.address}:${from.port}`;
    if (message.length === 0) {
      counters.malformedFraming++;
      dropped({ peer }, 'dropped an empty audit datagram');
      return;
    }
    if (message.length > maxMessageBytes) {
      counters.tooLarge++;
      dropped({ peer, bytes: message.length, maxMessageBytes }, 'dropped an audit datagram longer than auditing.maxMessageBytes');
      return;
    }
    counters.received++;
    try {
      handler.receive(message, { transport: 'udp', address: from.address, port: from.port });
    } catch (err) {
      logger.error({ err }, 'the audit intake failed a message');
    }
  });
  try {
    await new Promise<void>((resolve, reject) => {
      socket.once('error', reject);
      socket.bind({ address: host, port }, () => {
        socket.off('error', reject);
        resolve();
      });
    });
  } catch (err) {
    socket.close();
    throw err;
  }
  socket.on('error', (err) => logger.warn({ err }, 'audit UDP listener error'));
  return socket;
}
