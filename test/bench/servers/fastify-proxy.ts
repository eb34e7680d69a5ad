/**
 * "What a Node developer would write": a Fastify server with @fastify/http-proxy (undici underneath) forwarding
 * everything to UPSTREAM_PORT, with Fastify's defaults (its request logging off, as in production it would go to a
 * file). Reports `{ type: 'ready', port }` to its parent over IPC.
 */
import Fastify from 'fastify';
import proxy from '@fastify/http-proxy';

const app = Fastify({ logger: false, keepAliveTimeout: 60_000 });
await app.register(proxy, { upstream: `http://127.0.0.1:${process.env.UPSTREAM_PORT ?? ''}` });
await app.listen({ port: 0, host: '127.0.0.1' });
const address = app.server.address();
process.send?.({ type: 'ready', port: typeof address === 'object' && address !== null ? address.port : 0 });
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
