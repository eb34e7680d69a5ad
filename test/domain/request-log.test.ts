import { describe, expect, it } from 'vitest';
import { loggedUrl, requestLogLevel } from '../../service/domain/operations/request-log.js';

describe('how loud an answered management API request is logged', () => {
  it('keeps successful reads (the console polling its lists) at debug, below the Logs page\'s default', () => {
    expect(requestLogLevel('GET', 200)).toBe('debug');
    expect(requestLogLevel('head', 304)).toBe('debug');
    expect(requestLogLevel('OPTIONS', 204)).toBe('debug');
  });

  it('logs changes at info, refusals and bad requests at info, and failures as errors', () => {
    expect(requestLogLevel('POST', 201)).toBe('info');
    expect(requestLogLevel('PUT', 200)).toBe('info');
    expect(requestLogLevel('DELETE', 200)).toBe('info');
    expect(requestLogLevel('GET', 401)).toBe('info');
    expect(requestLogLevel('GET', 403)).toBe('info');
    expect(requestLogLevel('POST', 400)).toBe('info');
    expect(requestLogLevel('GET', 500)).toBe('error');
    expect(requestLogLevel('POST', 503)).toBe('error');
  });

  it('logs a set-password link by its route, never with its token', () => {
    expect(loggedUrl('/token/abc123secret', '/token/:token')).toBe('/token/:token');
    expect(loggedUrl('/channels/65f0c0ffee', '/channels/:id')).toBe('/channels/65f0c0ffee');
    expect(loggedUrl('/no/route', undefined)).toBe('/no/route');
  });
});
