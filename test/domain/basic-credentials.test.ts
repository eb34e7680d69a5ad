import { describe, expect, it } from 'vitest';
import { decodeBasicCredentials, parseBasicAuthorization } from '../../service/domain/codecs/basic-credentials.js';

const encode = (text: string) => Buffer.from(text, 'utf8').toString('base64');

describe('HTTP Basic credentials', () => {
  it('splits user-id and password at the first colon; the password may hold colons or be empty', () => {
    expect(decodeBasicCredentials(encode('lab-system:s3cret'))).toEqual({ username: 'lab-system', password: 's3cret' });
    expect(decodeBasicCredentials(encode('lab-system:a:b:c'))).toEqual({ username: 'lab-system', password: 'a:b:c' });
    expect(decodeBasicCredentials(encode('lab-system:'))).toEqual({ username: 'lab-system', password: '' });
    expect(decodeBasicCredentials(encode('thandi@clinic.example:pässwörd'))).toEqual({ username: 'thandi@clinic.example', password: 'pässwörd' });
  });

  it('refuses credentials that are not base64, have no colon or an empty user-id', () => {
    expect(decodeBasicCredentials('not base64!')).toBeNull();
    expect(decodeBasicCredentials('')).toBeNull();
    expect(decodeBasicCredentials(encode('no-colon'))).toBeNull();
    expect(decodeBasicCredentials(encode(':password-only'))).toBeNull();
  });

  it('reads a whole Authorization value: the scheme in any case, spaces around the credentials', () => {
    const value = encode('root@openhim.org:pw');
    const expected = { username: 'root@openhim.org', password: 'pw' };
    expect(parseBasicAuthorization(`Basic ${value}`)).toEqual(expected);
    expect(parseBasicAuthorization(`basic ${value}`)).toEqual(expected);
    expect(parseBasicAuthorization(`BASIC   ${value}  `)).toEqual(expected);
    expect(parseBasicAuthorization(`Basic\t${value}`)).toEqual(expected);
  });

  it('refuses other schemes and malformed values', () => {
    const value = encode('root@openhim.org:pw');
    expect(parseBasicAuthorization(`Bearer ${value}`)).toBeNull();
    expect(parseBasicAuthorization(value)).toBeNull();
    expect(parseBasicAuthorization('Basic')).toBeNull();
    expect(parseBasicAuthorization(`Basic ${value} extra`)).toBeNull();
    expect(parseBasicAuthorization(` Basic ${value}`)).toBeNull();
    expect(parseBasicAuthorization(`Basic ${encode('no-colon')}`)).toBeNull();
  });
});
