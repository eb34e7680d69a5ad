/**
 * HL7 peers for the message path's end-to-end tests, built on published libraries nobody here wrote: node-hl7-server
 * as the MLLP upstream (it answers each message with its own ACK) and node-hl7-client as the sender (in
 * test/transports/fixtures.ts, `hl7Send`), plus raw sockets for what those libraries cannot do (many small writes,
 * pipelined messages, an upstream that never answers).
 */
import { createServer } from 'node:net';
import type { AddressInfo, Server as NetServer, Socket } from 'node:net';
import { Server } from 'node-hl7-server';
import type { InboundRequest, SendResponse } from 'node-hl7-server';
import { freePort } from '../transports/fixtures.js';

export interface Hl7Upstream {
  port: number;
  /** The messages it received, as text, in order. */
  received: string[];
  close(): Promise<void>;
}

/**
 * node-hl7-server 2.5.0 as an upstream. It answers AA (or `answer(message)`). The library keeps every byte a
 * connection ever sent in one buffer and parses the first message in it again for each later one, so on a reused
 * connection it would acknowledge the first message over and over; this upstream therefore ends each connection
 * after its ACK, and Junction's pool opens a fresh one for the next message.
 */
export async function hl7Upstream(answer: (message: string) => 'AA' | 'AE' | 'AR' = () => 'AA'): Promise<Hl7Upstream> {
  const port = await freePort();
  const received: string[] = [];
  const sockets = new Set<Socket>();
  const server = new Server({ bindAddress: '127.0.0.1' });
  const inbound = server.createInbound({ port }, (req: InboundRequest, res: SendResponse) => {
    const text = req.getMessage().toString();
    received.push(text);
    void res.sendResponse(answer(text)).then(() => (res as unknown as { _socket: Socket })._socket.end());
  });
  inbound.on('client.connect', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    inbound.once('listen', resolve);
    inbound.once('error', reject);
  });
  return {
    port,
    received,
    async close() {
      for (const socket of sockets) socket.destroy();
      await inbound.close();
    },
  };
}

/** An upstream that accepts connections and reads, but never answers. */
export async function silentUpstream(): Promise<{ port: number; connections: () => number; close: () => Promise<void> }> {
  const sockets = new Set<Socket>();
  let connections = 0;
  const server: NetServer = createServer((socket) => {
    connections++;
    sockets.add(socket);
    socket.resume();
    socket.once('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    connections: () => connections,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** An ORU^R01 result message of about `size` bytes with this control id. */
export function oru(controlId: string, size = 600): string {
  const head = [
    `MSH|^~\\&|ANALYSER|LAB|JUNCTION|CLINIC|20261124101500||ORU^R01^ORU_R01|${controlId}|P|2.5.1`,
    'PID|1||55501^^^CLINIC^MR||MOYO^GRACE||19800212|F',
    'OBR|1|ORD448||GLU^Glucose^L|||20261124100000',
    'OBX|1|NM|GLU^Glucose^L||5.4|mmol/L|3.9-5.8|N|||F',
  ];
  const text = `${head.join('\r')}\r`;
  const pad = Math.max(0, size - text.length - 20);
  return pad === 0 ? text : `${text}NTE|1||${'x'.repeat(pad)}\r`;
}
