/** How the detail page names the way a socket transaction arrived. */
import { describe, expect, it } from 'vitest';
import { hl7MessageType, socketTransport } from './transport';

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

  it('reads the message type of an HL7 body from its header alone', () => {
    expect(hl7MessageType('MSH|^~\\&|LAB|CLINIC|EHR|CLINIC|20240501||ORU^R01|M1|P|2.5\rPID|1')).toBe('ORU^R01');
    expect(hl7MessageType('MSH|^~\\&|A|B|C|D|1||ADT^A01|M2|P|2.5')).toBe('ADT^A01');
    expect(hl7MessageType('{"resourceType":"Bundle"}')).toBeUndefined();
    expect(hl7MessageType(undefined)).toBeUndefined();
  });
});
