/** The listener state of tcp and tls channels as the channel list words it. */
import { describe, expect, it } from 'vitest';
import type { ChannelListener } from '../../../../service/contracts/channels';
import { failureReason, listenerSummary } from './listener';

const since = '2024-05-01T10:00:00.000Z';
const tcp = (listener: ChannelListener) => ({ type: 'tcp' as const, listener });

describe('the listener of a channel in the list', () => {
  it('says where a listening channel listens, with the port alone when it takes every address', () => {
    expect(listenerSummary(tcp({ state: 'listening', host: '0.0.0.0', port: 2575, since }))).toEqual({ label: 'Listening on 2575', color: 'teal' });
    expect(listenerSummary({ type: 'tls', listener: { state: 'listening', host: '127.0.0.1', port: 6661, since } })).toEqual({ label: 'Listening on 127.0.0.1:6661', color: 'teal' });
    expect(listenerSummary(tcp({ state: 'listening', host: '::1', port: 2575, since }))?.label).toBe('Listening on [::1]:2575');
  });

  it('names a port that could not be bound and why, keeping the service’s own words', () => {
    const error = 'listen EADDRINUSE: address already in use 0.0.0.0:2575';
    expect(listenerSummary(tcp({ state: 'failed', host: '0.0.0.0', port: 2575, error, since }))).toEqual({ label: 'Port 2575: in use by another program', color: 'red', detail: error });
    expect(listenerSummary(tcp({ state: 'failed', host: '0.0.0.0', port: 80, since }))).toEqual({ label: 'Port 80: could not listen', color: 'red' });
  });

  it('words the usual bind failures plainly', () => {
    expect(failureReason('listen EACCES: permission denied 0.0.0.0:80')).toMatch(/^not permitted/);
    expect(failureReason('listen EADDRNOTAVAIL: address not available 10.9.9.9:2575')).toMatch(/not one of this computer/);
    expect(failureReason('getaddrinfo ENOTFOUND nowhere.invalid')).toBe('the address could not be resolved');
    expect(failureReason('something else')).toBe('could not listen');
    expect(failureReason(undefined)).toBe('could not listen');
  });

  it('tells starting and stopped listeners apart from listening ones', () => {
    expect(listenerSummary(tcp({ state: 'starting', host: '0.0.0.0', port: 2575, since }))).toEqual({ label: 'Starting on 2575', color: 'yellow' });
    expect(listenerSummary(tcp({ state: 'stopped', host: '0.0.0.0', port: 2575, since }))).toEqual({ label: 'Not listening (port 2575)', color: 'gray' });
  });

  it('shows nothing for channels without a listener', () => {
    expect(listenerSummary({ type: 'tcp' })).toBeNull();
    expect(listenerSummary({ type: 'http', listener: { state: 'listening', host: '0.0.0.0', port: 1, since } })).toBeNull();
  });
});
