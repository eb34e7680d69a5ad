/** Raw HTTP/1.1 over TLS to a test Junction's API, for requests fetch cannot send (bad handshakes, oversized heads). */
import { connect } from 'node:tls';
import type { TestJunction } from '../helpers/junction.js';

export interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  text: string;
  body: unknown;
}

/** Sends `request` as given and reads the answer until the server closes the connection. */
export function rawRequest(t: TestJunction, request: string | Buffer): Promise<RawAnswer> {
  const { port } = new URL(t.url);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const socket = connect({ host: '127.0.0.1', port: Number(port), ca: t.certificate, servername: 'localhost' }, () => socket.write(request));
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      // An accepted upgrade keeps the connection open; its head is all there is to read.
      if (Buffer.concat(chunks).toString('latin1').startsWith('HTTP/1.1 101')) socket.destroy();
    });
    socket.on('error', reject);
    socket.on('close', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      const split = raw.indexOf('\r\n\r\n');
      const head = split === -1 ? raw : raw.slice(0, split);
      const text = split === -1 ? '' : raw.slice(split + 4);
      const [statusLine = '', ...lines] = head.split('\r\n');
      const headers: Record<string, string> = {};
      for (const line of lines) {
        const colon = line.indexOf(':');
        if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
      }
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch {
        body = undefined;
      }
      resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(statusLine)?.[1] ?? 0), headers, text, body });
    });
  });
}

/** A websocket upgrade request for /ws, with the given changes to a valid handshake (null drops a header). */
export function upgradeRequest(options: { method?: string; authorization?: string; headers?: Record<string, string | null> } = {}): string {
  const headers: Record<string, string | null> = {
    host: 'localhost',
    connection: 'Upgrade',
    upgrade: 'websocket',
    'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==',
    'sec-websocket-version': '13',
    ...(options.authorization === undefined ? {} : { authorization: options.authorization }),
    ...options.headers,
  };
  const lines = Object.entries(headers)
    .filter((entry): entry is [string, string] => entry[1] !== null)
    .map(([name, value]) => `${name}: ${value}`);
  return `${options.method ?? 'GET'} /ws HTTP/1.1\r\n${lines.join('\r\n')}\r\n\r\n`;
}
