/** How the list and the detail page name the way a socket transaction arrived and where its routes went. */
import { describe, expect, it } from 'vitest';
import { hl7MessageType, hostPort, rowRequest, socketRouteLabel, socketTransport, socketTransportShort } from './transport';

const placeholder = { method: 'POST', path: '/', querystring: '', host: '0.0.0.0', port: 2575 };

describe('the transport of a transaction', () => {
  it('names a tcp or tls channel by its framing', () => {
    expect(socketTransport({ type: 'tcp', tcpFraming: 'mllp' })).toBe('MLLP over TCP');
    expect(socketTransport({ type: 'tls', tcpFraming: 'mllp' })).toBe('MLLP over TLS');
    expect(socketTransport({ type: 'tcp', tcpFraming: 'stream' })).toBe('TCP stream');
    expect(socketTransport({ type: 'tls' })).toBe('TLS (MLLP or stream)');
  });

  it('has none for HTTP and polling channels, or a channel not known', () => {
    expect(socketTransport({ type: 'http' })).toBeNull();
    expect(socketTransport({ type: 'polling' })).toBeNull();
    expect(socketTransport({})).toBeNull();
    expect(socketTransport(undefined)).toBeNull();
  });

  it('has a short form for the list’s method column', () => {
    expect(socketTransportShort({ type: 'tcp', tcpFraming: 'mllp' })).toBe('MLLP');
    expect(socketTransportShort({ type: 'tls', tcpFraming: 'mllp' })).toBe('MLLP/TLS');
    expect(socketTransportShort({ type: 'tcp', tcpFraming: 'stream' })).toBe('TCP');
    expect(socketTransportShort({ type: 'tcp' })).toBe('TCP');
    expect(socketTransportShort({ type: 'tls', tcpFraming: 'auto' })).toBe('TLS');
    expect(socketTransportShort({ type: 'http' })).toBeNull();
    expect(socketTransportShort(undefined)).toBeNull();
  });

  it('reads the message type of an HL7 body from its header alone', () => {
    expect(hl7MessageType('MSH|^~\\&|LAB|CLINIC|EHR|CLINIC|20240501||ORU^R01|M1|P|2.5\rPID|1')).toBe('ORU^R01');
    expect(hl7MessageType('MSH|^~\\&|A|B|C|D|1||ADT^A01|M2|P|2.5')).toBe('ADT^A01');
    expect(hl7MessageType('{"resourceType":"Bundle"}')).toBeUndefined();
    expect(hl7MessageType(undefined)).toBeUndefined();
  });
});

describe('a row of the transactions list', () => {
  it('shows a socket channel’s transport and port instead of POST /', () => {
    expect(rowRequest(placeholder, { type: 'tcp', tcpFraming: 'mllp' })).toEqual({
      method: 'MLLP',
      path: 'MLLP over TCP, port 2575',
      title: 'MLLP over TCP, port 2575',
      name: 'MLLP over TCP, port 2575',
    });
    expect(rowRequest({ ...placeholder, port: undefined }, { type: 'tls', tcpFraming: 'stream' })).toMatchObject({ method: 'TLS', path: 'TLS stream' });
  });

  it('keeps the method and path of an HTTP transaction, and of one whose channel is not known', () => {
    const request = { method: 'GET', path: '/lab/results', querystring: 'patient=123' };
    expect(rowRequest(request, { type: 'http' })).toEqual({ method: 'GET', path: '/lab/results', title: '/lab/results?patient=123', name: 'GET /lab/results' });
    // The channel names may not be loaded yet, or the channel was removed.
    expect(rowRequest(placeholder, undefined)).toMatchObject({ method: 'POST', path: '/' });
  });
});

describe('a route of a transaction', () => {
  it('names an mllp or tcp route by its type and where it went', () => {
    expect(socketRouteLabel({ name: 'lis', type: 'mllp' }, { host: '10.0.0.5', port: 2575 })).toBe('MLLP to 10.0.0.5:2575');
    expect(socketRouteLabel({ name: 'lis', type: 'mllp', secured: true }, { host: 'lis.local', port: 6661 })).toBe('MLLP over TLS to lis.local:6661');
    expect(socketRouteLabel({ name: 'raw', type: 'tcp', secured: false }, { host: '::1', port: 7000 })).toBe('TCP to [::1]:7000');
    expect(socketRouteLabel({ name: 'raw', type: 'tcp' }, {})).toBe('TCP');
  });

  it('has none for an http route or a route the channel no longer has', () => {
    expect(socketRouteLabel({ name: 'api', type: 'http', secured: true }, { host: 'h', port: 443 })).toBeNull();
    expect(socketRouteLabel(undefined, { host: 'h', port: 2575 })).toBeNull();
  });

  it('writes host and port together, the port alone when no host was stored', () => {
    expect(hostPort({ host: '127.0.0.1', port: 2575 })).toBe('127.0.0.1:2575');
    expect(hostPort({ port: 2575 })).toBe('port 2575');
    expect(hostPort({ host: 'lis' })).toBe('lis');
    expect(hostPort({})).toBe('');
  });
});
