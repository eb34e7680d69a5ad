import { describe, expect, it } from 'vitest';
import { addressKey, admissionOf, connectionCapOf, shouldLogRefusal, UNKNOWN_LIMIT_CAP } from '../../service/domain/access/admission.js';
import { parseFileLimit } from '../../service/transports/file-limit.js';

describe('connection admission', () => {
  it('admits below both limits, and judges the process-wide cap first', () => {
    expect(admissionOf({ fromAddress: 3, total: 10 }, { perAddress: 4, total: 11 })).toBe('admit');
    expect(admissionOf({ fromAddress: 4, total: 10 }, { perAddress: 4, total: 11 })).toBe('per_address');
    expect(admissionOf({ fromAddress: 4, total: 11 }, { perAddress: 4, total: 11 })).toBe('total');
  });

  it('counts an IPv4 address mapped into IPv6 as the IPv4 address', () => {
    expect(addressKey('::ffff:10.0.0.7')).toBe('10.0.0.7');
    expect(addressKey('10.0.0.7')).toBe('10.0.0.7');
    expect(addressKey('fe80::1')).toBe('fe80::1');
    expect(addressKey(undefined)).toBe('unknown');
  });

  it('keeps a quarter of the open-file limit (at least 256) for files and outbound sockets', () => {
    expect(connectionCapOf(1024)).toBe(768);
    expect(connectionCapOf(65_536)).toBe(49_152);
    expect(connectionCapOf(300)).toBe(64);
    expect(connectionCapOf(null)).toBe(UNKNOWN_LIMIT_CAP);
  });

  it('logs a refusal once per window', () => {
    expect(shouldLogRefusal(undefined, 1000, 60_000)).toBe(true);
    expect(shouldLogRefusal(1000, 60_999, 60_000)).toBe(false);
    expect(shouldLogRefusal(1000, 61_000, 60_000)).toBe(true);
  });

  it('reads the open-file limit from /proc/<pid>/limits', () => {
    const limits = 'Limit                     Soft Limit           Hard Limit           Units     \nMax open files            1024                 4096                 files     \n';
    expect(parseFileLimit(limits)).toEqual({ soft: 1024, hard: 4096 });
    expect(parseFileLimit('Max open files            unlimited            unlimited            files')).toEqual({ soft: null, hard: null });
    expect(parseFileLimit('Max processes 10 10')).toBeUndefined();
  });
});
