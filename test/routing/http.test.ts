import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpRouter, RouteError } from '../../service/routing/http.js';
import { generateSelfSigned } from '../../service/tls/self-signed.js';
import { httpsUpstream, httpUpstream, readBody } from '../helpers/upstream.js';
import type { Upstream } from '../helpers/upstream.js';

describe('outbound HTTP routing', () => {
  const tls = generateSelfSigned('localhost');
  let echo: Upstream;
  let secure: Upstream;
  let router: HttpRouter;

  beforeAll(async () => {
    echo = await httpUpstream((req, res) => {
      void readBody(req).then((body) => {
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ method: req.method, url: req.url, headers: req.headers, body }));
      });
    });
    secure = await httpsUpstream(tls, (_req, res) => res.end('secure hello'));
    router = new HttpRouter({ trustedCAs: [tls.cert] });
  });
  afterAll(async () => {
    await router.close();
    await echo.close();
    await secure.close();
  });

  const call = (port: number, extra: Partial<Parameters<HttpRouter['send']>[0]> = {}) =>
    router.send({ target: { host: '127.0.0.1', port, secured: false }, method: 'GET', path: '/', querystring: '', headers: {}, timeoutMs: 2000, ...extra });

  it('sends method, path, query, headers and a streamed body, and streams the answer back', async () => {
    const answer = await call(echo.port, {
      method: 'POST',
      path: '/fhir/Patient',
      querystring: 'a=1&b=2',
      headers: { 'content-type': 'application/json', 'x-openhim-transactionid': 'tx1' },
      body: Readable.from([Buffer.from('{"a":'), Buffer.from('1}')]),
    });
    expect(answer.status).toBe(200);
    const seen = JSON.parse(await new Response(Readable.toWeb(answer.body) as ReadableStream).text()) as { method: string; url: string; headers: Record<string, string>; body: string };
    expect(seen).toMatchObject({ method: 'POST', url: '/fhir/Patient?a=1&b=2', body: '{"a":1}' });
    expect(seen.headers['x-openhim-transactionid']).toBe('tx1');
  });

  it('reaches an HTTPS route whose certificate it trusts, and refuses one it does not', async () => {
    const answer = await router.send({ target: { host: 'localhost', port: secure.port, secured: true }, method: 'GET', path: '/', querystring: '', headers: {}, timeoutMs: 2000 });
    expect(await new Response(Readable.toWeb(answer.body) as ReadableStream).text()).toBe('secure hello');
    const untrusting = new HttpRouter();
    try {
      await expect(untrusting.send({ target: { host: 'localhost', port: secure.port, secured: true }, method: 'GET', path: '/', querystring: '', headers: {}, timeoutMs: 2000 })).rejects.toMatchObject({
        kind: 'connection',
      });
    } finally {
      await untrusting.close();
    }
  });

  it('passes a redirect back instead of following it', async () => {
    const redirect = await httpUpstream((_req, res) => {
      res.writeHead(302, { location: 'http://127.0.0.1:1/elsewhere' });
      res.end();
    });
    try {
      const answer = await call(redirect.port);
      expect(answer.status).toBe(302);
      expect(answer.headers.location).toBe('http://127.0.0.1:1/elsewhere');
      answer.body.resume();
    } finally {
      await redirect.close();
    }
  });

  it('reports a connection reset and a refused connection as connection failures', async () => {
    const resetting = await httpUpstream((req) => req.socket.destroy());
    try {
      const failure = await call(resetting.port).catch((err: unknown) => err);
      expect(failure).toBeInstanceOf(RouteError);
      expect(failure).toMatchObject({ kind: 'connection' });
    } finally {
      await resetting.close();
    }
    await expect(call(1)).rejects.toMatchObject({ kind: 'connection' });
  });

  it('gives up on an upstream that never answers after the timeout', async () => {
    const silent = await httpUpstream(() => undefined);
    try {
      const started = Date.now();
      await expect(call(silent.port, { timeoutMs: 300 })).rejects.toMatchObject({ kind: 'timeout' });
      expect(Date.now() - started).toBeLessThan(2000);
    } finally {
      await silent.close();
    }
  });
});
