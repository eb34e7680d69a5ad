import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fetch } from 'undici';
import { completedTransaction, startJunction, unlockRoot } from '../helpers/junction.js';
import type { TestJunction } from '../helpers/junction.js';
import { httpUpstream, readBody } from '../helpers/upstream.js';
import type { Upstream } from '../helpers/upstream.js';

interface Exchange {
  name: string;
  request: { path: string; method: string; headers?: Record<string, string>; body?: string; timestamp: string };
  response?: { status: number; body?: string; headers?: Record<string, string>; timestamp: string };
  error?: { message: string; stack?: string };
}
interface TxView {
  status: string;
  autoRetry: boolean;
  canRerun: boolean;
  error?: { message: string; stack?: string };
  properties?: Record<string, string>;
  response: { status: number; body?: string; headers?: Record<string, string> };
  orchestrations?: Exchange[];
}

const orchestration = {
  name: 'patient lookup',
  request: { path: '/fhir/Patient', querystring: 'id=7', method: 'get', headers: { accept: 'application/fhir+json', 'x.dotted': 'dropped' }, body: '', timestamp: '2026-01-02T03:04:05.000Z' },
  response: { status: 200, headers: { 'content-type': 'application/fhir+json' }, body: '{"resourceType":"Patient","id":"7"}', timestamp: '2026-01-02T03:04:06.000Z' },
};

/** A structured mediator answer; `override` replaces top-level fields. */
function structured(override: Record<string, unknown> = {}): string {
  return JSON.stringify({
    'x-mediator-urn': 'urn:mediator:test',
    status: 'Successful',
    response: { status: 201, headers: { 'content-type': 'application/json', 'x-lab': 'yes', 'content-length': '999', connection: 'close' }, body: '{"created":true}', timestamp: '2026-01-02T03:04:07.000Z' },
    orchestrations: [orchestration],
    properties: { site: 'north', count: 3, 'bad.name': 'x' },
    ...override,
  });
}

describe('structured mediator responses in the pipeline', () => {
  let t: TestJunction;
  let admin: { authorization: string };
  let mediator: Upstream;
  /** What the fake mediator answers next: content type and body text, per request path. */
  const answers = new Map<string, { type: string; body: string; status?: number }>();

  const tx = async (res: { headers: { get(name: string): string | null } }, representation = 'full') => {
    const id = res.headers.get('x-openhim-transactionid');
    await completedTransaction(t, id);
    return (await t.request(`/transactions/${id ?? ''}?filterRepresentation=${representation}`, { headers: admin })).body as TxView;
  };
  const call = (path: string) => fetch(`${t.httpUrl}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"order":1}' });

  beforeAll(async () => {
    t = await startJunction({ router: { maxBodyBytes: 8192 } });
    admin = { authorization: await unlockRoot(t) };
    mediator = await httpUpstream((req, res) => {
      void readBody(req).then(() => {
        const answer = answers.get((req.url ?? '').split('?')[0] ?? '') ?? { type: 'text/plain', body: 'no answer set' };
        res.writeHead(answer.status ?? 200, { 'content-type': answer.type });
        res.end(answer.body);
      });
    });
    const route = { name: 'mediator', host: '127.0.0.1', port: mediator.port, primary: true };
    for (const [name, pattern, extra] of [
      ['retrying', '^/retry/.*$', { autoRetryEnabled: true }],
      ['plain', '^/plain/.*$', {}],
      ['no-bodies', '^/quiet/.*$', { requestBody: false, responseBody: false }],
    ] as const) {
      const res = await t.request('/channels', { method: 'POST', headers: admin, json: { name, urlPattern: pattern, authType: 'public', routes: [route], ...extra } });
      if (res.status !== 201) throw new Error(res.text);
    }
  });
  afterAll(async () => {
    await mediator.close();
    await t.destroy();
  });

  it('gives the client the mediator response and stores orchestrations and properties with the transaction', async () => {
    answers.set('/plain/ok', { type: 'application/json+service', body: structured() });
    const res = await call('/plain/ok');
    expect(res.status).toBe(201);
    expect(res.headers.get('content-type')).toBe('application/json');
    expect(res.headers.get('x-lab')).toBe('yes');
    expect(res.headers.get('content-length')).toBe('16');
    expect(await res.text()).toBe('{"created":true}');

    const view = await tx(res);
    expect(view).toMatchObject({ status: 'Successful', autoRetry: false, properties: { site: 'north', count: '3' }, response: { status: 201, body: '{"created":true}' } });
    expect(view.properties).not.toHaveProperty('bad.name');
    expect(view.response.headers).toMatchObject({ 'content-type': 'application/json', 'x-lab': 'yes' });
    expect(view.error).toBeUndefined();
    expect(view.orchestrations).toEqual([
      {
        name: 'patient lookup',
        request: expect.objectContaining({ path: '/fhir/Patient', querystring: 'id=7', method: 'GET', headers: { accept: 'application/fhir+json' }, body: '', timestamp: '2026-01-02T03:04:05.000Z' }) as unknown,
        response: expect.objectContaining({ status: 200, body: '{"resourceType":"Patient","id":"7"}', timestamp: '2026-01-02T03:04:06.000Z' }) as unknown,
      },
    ]);

    // Shown only by the detailed representations, like routes.
    expect(await tx(res, 'simple')).not.toHaveProperty('orchestrations');
    expect((await tx(res, 'simpledetails')).orchestrations?.[0]?.response).not.toHaveProperty('body');
  });

  it('exports the orchestrations with the transaction, bodies only when asked', async () => {
    answers.set('/plain/export', { type: 'application/json+service', body: structured({ properties: { exportMe: 'yes' } }) });
    const sent = await call('/plain/export');
    await sent.text();
    const id = sent.headers.get('x-openhim-transactionid');
    await completedTransaction(t, id);
    const filters = encodeURIComponent(JSON.stringify({ properties: { exportMe: 'yes' } }));
    const lines = async (extra: string) =>
      (await t.request(`/transactions/export?filters=${filters}${extra}`, { headers: admin })).text.trimEnd().split('\n').map((l) => JSON.parse(l) as TxView & { _id: string });
    const [plain] = await lines('');
    expect(plain?._id).toBe(id);
    expect(plain?.orchestrations?.[0]).toMatchObject({ name: 'patient lookup', response: { status: 200 } });
    expect(plain?.orchestrations?.[0]?.response).not.toHaveProperty('body');
    const [withBodies] = await lines('&bodies=true');
    expect(withBodies?.orchestrations?.[0]?.response).toMatchObject({ body: '{"resourceType":"Patient","id":"7"}' });
  });

  it('accepts the application/json+openhim content type mediators send in the field', async () => {
    answers.set('/plain/openhim', { type: 'application/json+openhim; charset=utf-8', body: structured({ response: { status: 200, body: 'hello' } }) });
    const res = await call('/plain/openhim');
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('hello');
    expect((await tx(res)).orchestrations).toHaveLength(1);
  });

  it('lets the mediator status override the computed one', async () => {
    answers.set('/plain/override', { type: 'application/json+service', body: structured({ status: 'Completed with error(s)' }) });
    const first = await call('/plain/override');
    expect(first.status).toBe(201);
    expect((await tx(first)).status).toBe('Completed with error(s)');
    answers.set('/plain/server-error', { type: 'application/json+service', body: structured({ status: undefined, response: { status: 503, body: 'down' } }) });
    // Without a status of its own, the response the client got decides: a 503 is Failed.
    const second = await call('/plain/server-error');
    expect(second.status).toBe(503);
    expect((await tx(second)).status).toBe('Failed');
  });

  it('stores a reported error and queues an auto retry only when the channel has retry on', async () => {
    const error = { message: 'database down', stack: 'Error: database down\n    at db.js:10' };
    answers.set('/retry/error', { type: 'application/json+service', body: structured({ status: 'Failed', error, response: { status: 500, body: 'sorry' } }) });
    const retried = await call('/retry/error');
    expect(retried.status).toBe(500);
    expect(await tx(retried)).toMatchObject({ status: 'Failed', autoRetry: true, error });

    answers.set('/plain/error', { type: 'application/json+service', body: structured({ error }) });
    expect(await tx(await call('/plain/error'))).toMatchObject({ autoRetry: false, error });

    // An error inside an orchestration also counts.
    const failedCall = { ...orchestration, name: 'billing', error: { message: 'billing timed out' } };
    answers.set('/retry/orchestration-error', { type: 'application/json+service', body: structured({ orchestrations: [orchestration, failedCall] }) });
    const view = await tx(await call('/retry/orchestration-error'));
    expect(view).toMatchObject({ status: 'Successful', autoRetry: true });
    expect(view.error).toBeUndefined();
    expect(view.orchestrations?.[1]).toMatchObject({ name: 'billing', error: { message: 'billing timed out' } });
  });

  const malformed: { name: string; body: string; problem: string }[] = [
    { name: 'text that is not JSON', body: '{"x-mediator-urn": "urn:x", ', problem: 'not valid JSON' },
    { name: 'no response object', body: JSON.stringify({ 'x-mediator-urn': 'urn:x' }), problem: 'response is required' },
    { name: 'no mediator urn', body: JSON.stringify({ response: { status: 200, body: '' } }), problem: 'x-mediator-urn is required' },
    { name: 'an unknown status', body: structured({ status: 'Done' }), problem: 'status must be one of' },
    { name: 'a status code out of range', body: structured({ response: { status: 42 } }), problem: 'response.status must be an integer from 100 to 599' },
    { name: 'a header name that cannot be sent', body: structured({ response: { status: 200, headers: { 'bad header': 'x' } } }), problem: 'response.headers.bad header is not a valid header name' },
    { name: 'an orchestration without a name', body: structured({ orchestrations: [{ request: {} }] }), problem: 'orchestrations.0.name' },
    { name: 'an orchestration timestamp that is not a date', body: structured({ orchestrations: [{ ...orchestration, request: { timestamp: 'yesterday' } }] }), problem: 'orchestrations.0.request.timestamp' },
  ];

  for (const c of malformed) {
    it(`passes ${c.name} to the client unchanged and records the transaction as Failed`, async () => {
      answers.set('/plain/malformed', { type: 'application/json+service', body: c.body, status: 200 });
      const res = await call('/plain/malformed');
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('application/json+service');
      expect(await res.text()).toBe(c.body);
      const view = await tx(res);
      expect(view.status).toBe('Failed');
      expect(view.autoRetry).toBe(false);
      expect(view.error?.message).toContain(c.problem);
      expect(view.response).toMatchObject({ status: 200, body: c.body });
      expect(view.orchestrations).toEqual([]);
    });
  }

  it('passes a structured body larger than the body cap through raw, recorded as Failed', async () => {
    const big = structured({ response: { status: 200, body: 'x'.repeat(10_000) } });
    answers.set('/plain/big', { type: 'application/json+service', body: big });
    const res = await call('/plain/big');
    expect(await res.text()).toBe(big);
    const view = await tx(res);
    expect(view.status).toBe('Failed');
    expect(view.error?.message).toContain('larger than 8192 bytes');
  });

  it('keeps orchestration bodies out of the log when the channel stores no bodies', async () => {
    answers.set('/quiet/ok', { type: 'application/json+service', body: structured() });
    const res = await call('/quiet/ok');
    expect(await res.text()).toBe('{"created":true}');
    const view = await tx(res);
    expect(view.status).toBe('Successful');
    expect(view.response).not.toHaveProperty('body');
    expect(view.orchestrations?.[0]?.request).not.toHaveProperty('body');
    expect(view.orchestrations?.[0]?.response).not.toHaveProperty('body');
    expect(view.orchestrations?.[0]?.response).toMatchObject({ status: 200 });
  });
});
