import { describe, expect, it } from 'vitest';
import { textEncodingOfContentType, ackCodeOf, acknowledgedIdOf, escapeField, negativeAck, positiveAck, readHeader, statusOfAck, wrongAcknowledgement } from '../../service/domain/codecs/hl7.js';

const ORU = 'MSH|^~\\&|LAB|NORTH|EMR|CLINIC|20261124101500||ORU^R01^ORU_R01|MSG00042|P|2.5.1\rPID|1||12345\rOBX|1|NM|GLU||5.4|mmol/L\r';

describe('HL7 v2 header', () => {
  it('reads the MSH fields an ACK and a record need', () => {
    expect(readHeader(Buffer.from(ORU))).toEqual({
      fieldSeparator: '|',
      encodingCharacters: '^~\\&',
      sendingApplication: 'LAB',
      sendingFacility: 'NORTH',
      receivingApplication: 'EMR',
      receivingFacility: 'CLINIC',
      messageType: 'ORU^R01^ORU_R01',
      controlId: 'MSG00042',
      processingId: 'P',
      version: '2.5.1',
      characterSet: '',
    });
  });

  it('reads MSH-18 (its first repetition), with another field separator and LF line ends', () => {
    const msh = 'MSH#^~\\&#A#B#C#D#20261124##ADT^A01#X1#P#2.5######8859/2~UNICODE UTF-8\nPID#1\n';
    expect(readHeader(Buffer.from(msh, 'latin1'))).toMatchObject({ fieldSeparator: '#', controlId: 'X1', characterSet: '8859/2' });
  });

  it('is null for what is not an HL7 v2 message', () => {
    for (const text of ['', 'GET / HTTP/1.1', 'MSH', 'MSHA^~\\&|x', 'PID|1||2\r', 'MSH|\r']) expect(readHeader(Buffer.from(text)), text).toBeNull();
  });
});

describe('character sets', () => {
  it('maps the MSH-18 recorded in a content type to a decoder, UTF-8 when none is named or it is unknown', () => {
    const of = (set: string) => textEncodingOfContentType(`application/hl7-v2; charset="${set}"`);
    expect(of('8859/1')).toBe('iso-8859-1');
    expect(of('unicode utf-8')).toBe('utf-8');
    expect(of('EBCDIC')).toBe('utf-8');
    expect(textEncodingOfContentType('application/hl7-v2')).toBe('utf-8');
  });

  it('decodes a message in the set it names: the same letters from Latin-2 bytes and from UTF-8 bytes', () => {
    const name = 'Łukasz Żółć';
    const latin2 = Buffer.from([0xa3, 0x75, 0x6b, 0x61, 0x73, 0x7a, 0x20, 0xaf, 0xf3, 0xb3, 0xe6]);
    expect(new TextDecoder(textEncodingOfContentType('application/hl7-v2; charset="8859/2"')).decode(latin2)).toBe(name);
    expect(new TextDecoder(textEncodingOfContentType('application/hl7-v2; charset="UNICODE UTF-8"')).decode(Buffer.from(name, 'utf8'))).toBe(name);
  });
});

describe('ACKs', () => {
  const ack = (code: string) => Buffer.from(`MSH|^~\\&|EMR|CLINIC|LAB|NORTH|20261124||ACK^R01^ACK|A1|P|2.5.1\rMSA|${code}|MSG00042\r`);

  it('reads MSA-1 and maps it onto the status table: accepted 2xx, error 4xx, rejected 5xx', () => {
    expect(['AA', 'AE', 'AR', 'CA', 'CE', 'CR'].map((code) => ackCodeOf(ack(code)))).toEqual(['AA', 'AE', 'AR', 'CA', 'CE', 'CR']);
    expect(['AA', 'CA', 'AE', 'CE', 'AR', 'CR'].map((code) => statusOfAck(code as 'AA'))).toEqual([200, 200, 400, 400, 500, 500]);
    expect(ackCodeOf(ack('XX'))).toBeNull();
    expect(ackCodeOf(Buffer.from(ORU))).toBeNull();
    expect(ackCodeOf(Buffer.from('not hl7'))).toBeNull();
  });

  it('builds a negative ACK from the inbound header: parties swapped, its control id in MSA-2, the reason escaped in MSA-3 and ERR-8', () => {
    const inbound = readHeader(Buffer.from(ORU));
    if (inbound === null) throw new Error('no header');
    const text = negativeAck(inbound, { code: 'AE', reason: 'route "lab|store" timed out after 30 s\r\nretry later', controlId: 'JN1', at: new Date('2026-11-24T10:15:07.250Z') });
    const [msh, msa, err, rest] = text.split('\r');
    expect(msh).toBe('MSH|^~\\&|EMR|CLINIC|LAB|NORTH|20261124101507+0000||ACK^R01^ACK|JN1|P|2.5.1');
    expect(msa).toBe('MSA|AE|MSG00042|route "lab\\F\\store" timed out after 30 s retry later');
    expect(err).toBe('ERR|||207^Application internal error^HL70357|E||||route "lab\\F\\store" timed out after 30 s retry later');
    expect(rest).toBe('');
    // What Junction sends can be read back by the same rules a sender applies.
    const back = Buffer.from(text);
    expect(readHeader(back)).toMatchObject({ messageType: 'ACK^R01^ACK', controlId: 'JN1', receivingApplication: 'LAB' });
    expect(ackCodeOf(back)).toBe('AE');
  });

  it('escapes every separator and the escape character itself', () => {
    expect(escapeField('a|b^c~d&e\\f', { fieldSeparator: '|', encodingCharacters: '^~\\&' })).toBe('a\\F\\b\\S\\c\\R\\d\\T\\e\\E\\f');
  });
});

describe('which message an ACK answers', () => {
  const header = readHeader(Buffer.from(ORU));
  const ack = (id: string) => Buffer.from(`MSH|^~\\&|EMR|CLINIC|LAB|NORTH|20261124101501||ACK^R01^ACK|A1|P|2.5.1\rMSA|AA|${id}\r`);

  it('reads MSA-2 and accepts the ACK of this message', () => {
    expect(acknowledgedIdOf(ack('MSG00042'))).toBe('MSG00042');
    expect(wrongAcknowledgement(header, ack('MSG00042'))).toBeUndefined();
  });

  it('names an ACK of another message', () => {
    expect(wrongAcknowledgement(header, ack('MSG00041'))).toBe('answered with an ACK of message "MSG00041", not of this message ("MSG00042")');
  });

  it('has nothing to say about replies that are not ACKs, or inbound messages without a control id', () => {
    expect(wrongAcknowledgement(header, Buffer.from('OK'))).toBeUndefined();
    expect(wrongAcknowledgement(null, ack('X'))).toBeUndefined();
    expect(wrongAcknowledgement({ controlId: '' }, ack('X'))).toBeUndefined();
  });

  it('builds a positive ACK from the inbound header', () => {
    const text = positiveAck(header ?? (undefined as never), { controlId: 'JN1', at: new Date('2026-11-24T10:15:00Z') });
    expect(text).toBe('MSH|^~\\&|EMR|CLINIC|LAB|NORTH|20261124101500+0000||ACK^R01^ACK|JN1|P|2.5.1\rMSA|AA|MSG00042\r');
    expect(ackCodeOf(Buffer.from(text))).toBe('AA');
  });
});

describe('the character set of a stored body', () => {
  it('reads HL7 names and standard labels from the content type, and falls back to UTF-8', () => {
    expect(textEncodingOfContentType('application/hl7-v2; charset="8859/1"')).toBe('iso-8859-1');
    expect(textEncodingOfContentType('text/plain; charset=ISO-8859-2')).toBe('iso-8859-2');
    expect(textEncodingOfContentType('application/hl7-v2')).toBe('utf-8');
    expect(textEncodingOfContentType('text/plain; charset=klingon')).toBe('utf-8');
    expect(textEncodingOfContentType(undefined)).toBe('utf-8');
  });
});
