import { describe, expect, it } from 'vitest';
import { addressesOverlap, channelClaim, portClaimProblems } from '../../service/domain/channels/channel-ports.js';

const tcp = (tcpPort: number, tcpHost = '0.0.0.0') => ({ name: 'Lab', type: 'tcp' as const, tcpHost, tcpPort, status: 'enabled' as const });

describe('port claims of tcp and tls channels', () => {
  it('refuses a port another listener holds on an overlapping address, naming the holder', () => {
    expect(portClaimProblems(tcp(2575), [{ port: 2575, host: '0.0.0.0', owner: 'channel "ADT"' }])).toEqual([
      { path: 'body.tcpPort', message: 'port 2575 is already used by channel "ADT"; choose another port' },
    ]);
    expect(portClaimProblems(tcp(5001, '127.0.0.1'), [{ port: 5001, host: '0.0.0.0', owner: 'the HTTP transaction port' }])).toHaveLength(1);
  });

  it('allows the same port on two different specific addresses, and other ports', () => {
    expect(portClaimProblems(tcp(2575, '10.0.0.5'), [{ port: 2575, host: '127.0.0.1', owner: 'channel "ADT"' }])).toEqual([]);
    expect(portClaimProblems(tcp(2576), [{ port: 2575, host: '0.0.0.0', owner: 'channel "ADT"' }])).toEqual([]);
  });

  it('asks nothing of channels that do not listen', () => {
    expect(portClaimProblems({ name: 'web', type: 'http', status: 'enabled' }, [{ port: 80, host: '', owner: 'x' }])).toEqual([]);
    expect(channelClaim({ ...tcp(2575), status: 'deleted' })).toBeNull();
    expect(channelClaim(tcp(2575))).toEqual({ port: 2575, host: '0.0.0.0', owner: 'channel "Lab"' });
  });

  it('treats wildcards as every address and compares names without case', () => {
    expect(addressesOverlap('::', '127.0.0.1')).toBe(true);
    expect(addressesOverlap('LOCALHOST', 'localhost')).toBe(true);
    expect(addressesOverlap('127.0.0.1', '127.0.0.2')).toBe(false);
  });
});
