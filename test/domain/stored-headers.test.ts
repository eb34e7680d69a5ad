import { describe, expect, it } from 'vitest';
import { HEADER_MASK, SECRET_HEADERS, storedHeaders } from '../../service/domain/transactions/stored-headers.js';

describe('headers as the transaction log keeps them', () => {
  it('masks every credential header, whatever the case of its name', () => {
    const stored = storedHeaders({
      Authorization: 'Basic Y2xpZW50OnB3',
      'proxy-authorization': 'Basic cHJveHk6cHc=',
      Cookie: 'junction.sid=abc',
      'AUTH-TOKEN': 'token',
      'content-type': 'application/json',
    });
    expect(stored).toEqual({
      authorization: HEADER_MASK,
      'proxy-authorization': HEADER_MASK,
      cookie: HEADER_MASK,
      'auth-token': HEADER_MASK,
      'content-type': 'application/json',
    });
    expect(HEADER_MASK).toBe('********');
    expect([...SECRET_HEADERS].sort()).toEqual(['auth-token', 'authorization', 'cookie', 'proxy-authorization']);
  });

  it('keeps one string per header: names lower-cased, repeats joined as HTTP joins them, absent ones left out', () => {
    expect(storedHeaders({ 'X-Custom': ['a', 'b'], 'Set-Cookie': ['s=1', 't=2'], Host: 'junction:5001', 'x-empty': undefined })).toEqual({
      'x-custom': 'a, b',
      'set-cookie': 's=1, t=2',
      host: 'junction:5001',
    });
  });

  it('masks a repeated credential header as one value', () => {
    expect(storedHeaders({ cookie: ['a=1', 'b=2'] })).toEqual({ cookie: HEADER_MASK });
  });
});
