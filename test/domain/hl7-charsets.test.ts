/** HL7 table 0211 names to IANA charsets, and the decoder each stored body is read with. */
import { describe, expect, it } from 'vitest';
import { HL7_CHARACTER_SETS, ianaCharsetOf } from '../../service/domain/codecs/hl7-charsets.js';
import { textEncodingOfContentType } from '../../service/domain/codecs/hl7.js';

describe('ianaCharsetOf', () => {
  it('names the IANA charset of each HL7 name, whatever its case and spaces around it', () => {
    expect(ianaCharsetOf('8859/1')).toBe('ISO-8859-1');
    expect(ianaCharsetOf(' 8859/9 ')).toBe('ISO-8859-9');
    expect(ianaCharsetOf('unicode utf-8')).toBe('UTF-8');
    expect(ianaCharsetOf('UNICODE UTF-16')).toBe('UTF-16');
    expect(ianaCharsetOf('ASCII')).toBe('US-ASCII');
    expect(ianaCharsetOf('ISO IR100')).toBe('ISO-8859-1');
    expect(ianaCharsetOf('ISO IR87')).toBe('JIS_C6226-1983');
    expect(ianaCharsetOf('GB 18030-2000')).toBe('GB18030');
    expect(ianaCharsetOf('BIG-5')).toBe('Big5');
  });

  it('has none for an unknown name, a name without one, or an inherited property', () => {
    expect(ianaCharsetOf('KLINGON')).toBeNull();
    expect(ianaCharsetOf('CNS 11643-1992')).toBeNull();
    expect(ianaCharsetOf('constructor')).toBeNull();
    expect(ianaCharsetOf('')).toBeNull();
  });

  it('gives only names that are HTTP tokens, so a charset parameter never needs quotes', () => {
    for (const set of Object.values(HL7_CHARACTER_SETS)) if (set.iana !== null) expect(set.iana).toMatch(/^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/);
  });
});

describe('textEncodingOfContentType', () => {
  it('reads the IANA names Junction records now and the HL7 names it recorded before', () => {
    expect(textEncodingOfContentType('application/hl7-v2; charset=ISO-8859-1')).toBe('iso-8859-1');
    expect(textEncodingOfContentType('application/hl7-v2; charset="8859/1"')).toBe('iso-8859-1');
    expect(textEncodingOfContentType('application/hl7-v2; charset=ISO-10646-UCS-2')).toBe('utf-16le');
    expect(textEncodingOfContentType('application/hl7-v2; charset=US-ASCII')).toBe('utf-8');
    expect(textEncodingOfContentType('application/hl7-v2; charset=JIS_C6226-1983')).toBe('utf-8');
  });
});
