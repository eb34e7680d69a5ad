/**
 * The benchmark's upstream: reads the whole request body, then answers a fixed 1 KB JSON body. A path of the form
 * `/status/<code>/...` answers that status instead of 200, so the stress scenario can predict every stored status.
 * Reports `{ type: 'ready', port }` to its parent over IPC.
 */
import { createServer } from 'node:http';

const body = Buffer.from(JSON.stringify({ resourceType: 'Bundle', entry: 'x'.repeat(1024 - 40) }).slice(0, 1024));

const server = createServer((req, res) => {
  let received = 0;
  req.on('data', (chunk: Buffer) => {
    received += chunk.length;
  });
  req.on('end', () => {
    const match = /^\/status\/(\d{3})(?:\/|$)/.exec(req.url ?? '');
    const status = match?.[1] === undefined ? 200 : Number(match[1]);
    res.writeHead(status, { 'content-type': 'application/json', 'content-length': body.length, 'x-received-bytes': String(received) });
    res.end(body);
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  process.send?.({ type: 'ready', port: typeof address === 'object' && address !== null ? address.port : 0 });
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
