/** Real downstream servers on 127.0.0.1 for routing tests. */
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';

export interface Upstream {
  port: number;
  close(): Promise<void>;
}

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

async function listen(server: Server): Promise<Upstream> {
  const sockets = new Set<Socket>();
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** An HTTP server with the given handler. */
export function httpUpstream(handler: Handler): Promise<Upstream> {
  return listen(createServer(handler));
}

/** An HTTPS server with the given certificate and handler. */
export function httpsUpstream(tls: { cert: string; key: string }, handler: Handler): Promise<Upstream> {
  return listen(createHttpsServer(tls, handler));
}

/** Reads a request body (tests only); an upload aborted by the sender yields what arrived, never a rejection. */
export async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  try {
    for await (const chunk of req) chunks.push(chunk as Buffer);
  } catch {
    // aborted mid-body: the partial body is the answer
  }
  return Buffer.concat(chunks).toString('utf8');
}
