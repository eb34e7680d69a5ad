/**
 * The baseline for Junction's proxy cost: a pass-through reverse proxy written with undici and nothing else (no
 * authentication, matching or storage). It streams the request to UPSTREAM_PORT and the answer back.
 */
import { createServer } from 'node:http';
import { pipeline } from 'node:stream/promises';
import { Pool } from 'undici';

const upstream = new Pool(`http://127.0.0.1:${process.env.UPSTREAM_PORT ?? ''}`, { connections: 128, pipelining: 1 });
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'upgrade', 'proxy-connection', 'te', 'trailer', 'host']);

const server = createServer((req, res) => {
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(req.headers)) if (value !== undefined && !HOP_BY_HOP.has(name)) headers[name] = value;
  const hasBody = req.headers['content-length'] !== undefined || req.headers['transfer-encoding'] !== undefined;
  upstream
    .request({ method: req.method as 'GET', path: req.url ?? '/', headers, body: hasBody ? req : null })
    .then(async (answer) => {
      const out: Record<string, string | string[]> = {};
      for (const [name, value] of Object.entries(answer.headers)) if (value !== undefined && !HOP_BY_HOP.has(name)) out[name] = value;
      res.writeHead(answer.statusCode, out);
      await pipeline(answer.body, res);
    })
    .catch(() => {
      if (!res.headersSent) res.writeHead(502).end();
      else res.destroy();
    });
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  process.send?.({ type: 'ready', port: typeof address === 'object' && address !== null ? address.port : 0 });
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
