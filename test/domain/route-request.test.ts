import { describe, expect, it } from 'vitest';
import { applyPathTransform, outgoingHeaders, responseHeaders, routePath, TRANSACTION_ID_HEADER } from '../../service/domain/channels/route-request.js';

describe('route request shaping', () => {
  it('uses the route path, else the path transform, else the request path', () => {
    expect(routePath({ path: '/fixed' }, '/fhir/Patient')).toBe('/fixed');
    expect(routePath({ pathTransform: 's/fhir/baseR4/' }, '/fhir/Patient')).toBe('/baseR4/Patient');
    expect(routePath({}, '/fhir/Patient')).toBe('/fhir/Patient');
    expect(applyPathTransform('/a/a/a', 's/a/b/g')).toBe('/b/b/b');
    expect(applyPathTransform('/a/a/a', 's/a/b/')).toBe('/b/a/a');
    expect(applyPathTransform('/x', 'not-a-transform')).toBe('/x');
  });

  it('transforms paths in linear time, with $1 and $<name> as String.prototype.replace, and leaves refused transforms alone', () => {
    expect(applyPathTransform('/fhir/Patient/7', 's/^\\/fhir\\/(?<type>\\w+)\\/(\\d+)/\\/api\\/$2\\/$<type>/')).toBe('/api/7/Patient');
    // Backtracks exponentially in RegExp; short inputs here, test/api/regex-safety.test.ts has the long ones.
    const hostile = `/x/${'a'.repeat(8)}b`;
    expect(applyPathTransform(hostile, 's/^\\/x\\/(a+)+$/\\/y/')).toBe(hostile);
    expect(applyPathTransform(`/x/${'a'.repeat(8)}`, 's/^\\/x\\/(a+)+$/\\/y/')).toBe('/y');
    // Stored before transforms were checked: never applied.
    expect(applyPathTransform('/api/x', 's/(?<=\\/api)\\/x/\\/y/')).toBe('/api/x');
  });

  it('drops hop-by-hop headers and the client Authorization unless forwarded, and adds route Basic auth', () => {
    const incoming = { host: 'junction:5001', connection: 'keep-alive', 'transfer-encoding': 'chunked', authorization: 'Basic Y2xpZW50OnB3', 'content-type': 'application/json', 'x-custom': ['a', 'b'] };
    const plain = outgoingHeaders(incoming, { route: { forwardAuthHeader: false }, clientIp: '10.0.0.7', transactionId: 'abc' });
    expect(plain).toEqual({
      'content-type': 'application/json',
      'x-custom': 'a, b',
      'x-forwarded-for': '10.0.0.7',
      'x-forwarded-host': 'junction:5001',
      [TRANSACTION_ID_HEADER]: 'abc',
    });
    const forwarded = outgoingHeaders(incoming, { route: { forwardAuthHeader: true }, clientIp: '10.0.0.7', transactionId: 'abc' });
    expect(forwarded.authorization).toBe('Basic Y2xpZW50OnB3');
    const routeAuth = outgoingHeaders(incoming, { route: { forwardAuthHeader: true, username: 'svc', password: 'pw' }, clientIp: '10.0.0.7', transactionId: 'abc' });
    expect(routeAuth.authorization).toBe(`Basic ${Buffer.from('svc:pw').toString('base64')}`);
  });

  it('appends to existing X-Forwarded-For and X-Forwarded-Host', () => {
    const headers = outgoingHeaders({ host: 'j:5001', 'x-forwarded-for': '1.1.1.1', 'x-forwarded-host': 'edge' }, { route: { forwardAuthHeader: false }, clientIp: '10.0.0.7', transactionId: 't' });
    expect(headers['x-forwarded-for']).toBe('1.1.1.1, 10.0.0.7');
    expect(headers['x-forwarded-host']).toBe('edge, j:5001');
  });

  it('strips hop-by-hop headers from responses', () => {
    expect(responseHeaders({ Connection: 'close', 'Content-Type': 'text/plain', 'set-cookie': ['a=1', 'b=2'] })).toEqual({ 'content-type': 'text/plain', 'set-cookie': ['a=1', 'b=2'] });
  });
});
