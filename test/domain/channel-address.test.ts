/** Where a sender sends to a channel, its listener in words, and a route check's failure in words (issue 36). */
import { describe, expect, it } from 'vitest';
import { listenerCondition, patternPath, senderAddresses } from '../../service/domain/channels/channel-address.js';
import { checkFailure } from '../../service/domain/channels/route-check.js';

const ports = { host: 'clinic-pc', routerHost: '0.0.0.0', httpsPort: 5000, httpPort: 5001 };

describe('the address a sender uses', () => {
  it('reads the path every matching request starts with from the URL pattern', () => {
    expect(patternPath('^/fhir(/.*)?$')).toEqual({ path: '/fhir', exact: false });
    expect(patternPath('^/lab/orders$')).toEqual({ path: '/lab/orders', exact: true });
    expect(patternPath('^/fhir/.*$')).toEqual({ path: '/fhir/', exact: false });
    expect(patternPath('^/lab\\.v2/x$')).toEqual({ path: '/lab.v2/x', exact: true });
    // A quantified last character is not in every path; a class is not a letter.
    expect(patternPath('^/orders?$')).toEqual({ path: '/order', exact: false });
    expect(patternPath('^/ward\\d+$')).toEqual({ path: '/ward', exact: false });
    expect(patternPath('^(/a|/b)$')).toBeNull();
    expect(patternPath('.*')).toBeNull();
  });

  it('gives an http channel its HTTPS then HTTP address, a socket channel its scheme, a polling channel none', () => {
    expect(senderAddresses({ type: 'http', urlPattern: '^/fhir(/.*)?$' }, ports)).toEqual(['https://clinic-pc:5000/fhir…', 'http://clinic-pc:5001/fhir…']);
    expect(senderAddresses({ type: 'http', urlPattern: '^/lab$' }, { ...ports, routerHost: '10.0.0.5' })).toEqual(['https://10.0.0.5:5000/lab', 'http://10.0.0.5:5001/lab']);
    expect(senderAddresses({ type: 'http', urlPattern: '^(/a|/b)$' }, ports)[0]).toBe('https://clinic-pc:5000/…');
    expect(senderAddresses({ type: 'tcp', urlPattern: '', tcpPort: 2575 }, ports)).toEqual(['mllp://clinic-pc:2575']);
    expect(senderAddresses({ type: 'tcp', urlPattern: '', tcpPort: 2575, tcpFraming: 'stream', tcpHost: '192.168.1.4' }, ports)).toEqual(['tcp://192.168.1.4:2575']);
    expect(senderAddresses({ type: 'tls', urlPattern: '', tcpPort: 2576, tcpHost: '::' }, ports)).toEqual(['tls://clinic-pc:2576']);
    expect(senderAddresses({ type: 'tls', urlPattern: '', tcpPort: 2576, tcpHost: 'fe80::1' }, ports)).toEqual(['tls://[fe80::1]:2576']);
    expect(senderAddresses({ type: 'polling', urlPattern: '^/poll$' }, ports)).toEqual([]);
  });

  it('says what a listener does, and nothing for channels without one', () => {
    const since = '2026-12-03T10:00:00.000Z';
    const tcp = { type: 'tcp' as const, status: 'enabled', tcpPort: 2575 };
    expect(listenerCondition({ type: 'http', status: 'enabled' }, undefined)).toEqual({ condition: 'none' });
    expect(listenerCondition(tcp, { state: 'listening', host: '0.0.0.0', port: 2575, since })).toEqual({ condition: 'listening', port: 2575 });
    expect(listenerCondition(tcp, { state: 'failed', host: '0.0.0.0', port: 2575, since, error: 'port 2575 is in use' })).toEqual({ condition: 'not-bound', port: 2575, reason: 'port 2575 is in use' });
    expect(listenerCondition({ ...tcp, status: 'disabled' }, undefined)).toEqual({ condition: 'off', port: 2575, reason: 'the channel is disabled' });
    expect(listenerCondition(tcp, undefined)).toEqual({ condition: 'starting', port: 2575 });
  });
});

describe('a failed route check in words', () => {
  const failure = (code: string | undefined, stage: 'connecting' | 'handshake' = 'connecting', timedOut = false) => checkFailure('lab:2575', { ...(code === undefined ? {} : { code }), message: `boom ${code ?? ''}`, stage, timedOut }, 300);

  it('tells refused, DNS, unreachable, reset, certificate, TLS and timeout apart', () => {
    expect(failure('ECONNREFUSED')).toMatchObject({ outcome: 'refused', message: expect.stringContaining('nothing is listening on lab:2575') as string });
    expect(failure('ENOTFOUND').outcome).toBe('dns');
    expect(failure('EHOSTUNREACH').outcome).toBe('unreachable');
    expect(failure('ECONNRESET').outcome).toBe('reset');
    expect(failure('DEPTH_ZERO_SELF_SIGNED_CERT', 'handshake')).toMatchObject({ outcome: 'certificate', message: expect.stringContaining('not trusted') as string });
    expect(failure('UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'handshake').outcome).toBe('certificate');
    expect(failure('ERR_TLS_CERT_ALTNAME_INVALID', 'handshake')).toMatchObject({ outcome: 'certificate', message: expect.stringContaining('not for this host name') as string });
    expect(failure('ECONNRESET', 'handshake')).toMatchObject({ outcome: 'tls', message: expect.stringContaining('does it speak TLS') as string });
    expect(failure('ERR_SSL_WRONG_VERSION_NUMBER', 'handshake').outcome).toBe('tls');
    expect(failure(undefined, 'handshake', true)).toMatchObject({ outcome: 'timeout', message: expect.stringContaining('the TLS handshake did not finish within 300 ms') as string });
    expect(failure(undefined, 'connecting', true).message).toContain('no connection within 300 ms');
  });
});
