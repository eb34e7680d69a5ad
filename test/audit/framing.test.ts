/** Syslog framing over a stream: octet counting and newline framing, however the bytes are split, and every problem. */
import { describe, expect, it } from 'vitest';
import { SyslogFrameDecoder, datagramMessage, frameOctetCounted } from '../../service/domain/codecs/syslog-framing.js';

const syslog = (n: number, payload = `<AuditMessage n="${n}"/>`) => `<85>1 2024-01-01T12:00:00Z host app 1 IHE+RFC-3881 - ${payload}`;

function decodeAll(chunks: Buffer[], max = 1024 * 1024) {
  const decoder = new SyslogFrameDecoder({ maxMessageBytes: max });
  const messages: string[] = [];
  let problem;
  for (const chunk of chunks) {
    const out = decoder.push(chunk);
    messages.push(...out.messages.map((m) => m.toString('utf8')));
    problem ??= out.problem;
  }
  return { decoder, messages, problem };
}

function bytesOf(data: Buffer): Buffer[] {
  return [...data].map((b) => Buffer.from([b]));
}

describe('syslog stream framing', () => {
  it('reads an octet-counted message split byte by byte', () => {
    const { messages, problem, decoder } = decodeAll(bytesOf(frameOctetCounted(syslog(1))));
    expect(problem).toBeUndefined();
    expect(messages).toEqual([syslog(1)]);
    expect(decoder.midMessage).toBe(false);
  });

  it('reads ten messages from one chunk', () => {
    const all = Buffer.concat(Array.from({ length: 10 }, (_, i) => frameOctetCounted(syslog(i))));
    expect(decodeAll([all]).messages).toEqual(Array.from({ length: 10 }, (_, i) => syslog(i)));
  });

  it('keeps the next frame when one chunk holds the end of one frame and the start of the next (OpenHIM loses it)', () => {
    const all = Buffer.concat([frameOctetCounted(syslog(1)), frameOctetCounted(syslog(2)), frameOctetCounted(syslog(3))]);
    const first = frameOctetCounted(syslog(1)).length;
    // Cut 5 bytes before the end of the first frame, and again in the middle of the second's length digits.
    const cuts = [first - 5, first + 2, all.length - 7];
    const chunks = [all.subarray(0, cuts[0]), all.subarray(cuts[0], cuts[1]), all.subarray(cuts[1], cuts[2]), all.subarray(cuts[2])];
    expect(decodeAll(chunks).messages).toEqual([syslog(1), syslog(2), syslog(3)]);
  });

  it('counts lengths in bytes, so multi-byte UTF-8 arrives whole', () => {
    const text = syslog(1, '<AuditMessage><ParticipantObjectName>Zoë Müller 山田 😀</ParticipantObjectName></AuditMessage>');
    const framed = frameOctetCounted(text);
    expect(framed.toString('ascii').startsWith(`${Buffer.byteLength(text)} `)).toBe(true);
    expect(Buffer.byteLength(text)).toBeGreaterThan(text.length);
    const { messages } = decodeAll([...bytesOf(framed), frameOctetCounted(syslog(2))]);
    expect(messages).toEqual([text, syslog(2)]);
  });

  it('keeps line breaks inside an octet-counted message', () => {
    const text = syslog(1, '<AuditMessage>\n  <EventIdentification/>\n</AuditMessage>\n');
    expect(decodeAll([frameOctetCounted(text)]).messages).toEqual([text]);
  });

  it('reads newline-framed messages, CRLF too, split anywhere', () => {
    const data = Buffer.from(`${syslog(1)}\n${syslog(2)}\r\n${syslog(3)}\n`);
    expect(decodeAll([data]).messages).toEqual([syslog(1), syslog(2), syslog(3)]);
    expect(decodeAll(bytesOf(data)).messages).toEqual([syslog(1), syslog(2), syslog(3)]);
  });

  it('decides the framing per message, so a connection may mix them', () => {
    const data = Buffer.concat([frameOctetCounted(syslog(1)), Buffer.from(`${syslog(2)}\n`), frameOctetCounted(syslog(3)), Buffer.from('\n'), frameOctetCounted(syslog(4))]);
    expect(decodeAll([data]).messages).toEqual([syslog(1), syslog(2), syslog(3), syslog(4)]);
  });

  it('takes a newline-framed message ended by the close, and calls an octet frame cut short a problem', () => {
    const open = new SyslogFrameDecoder({ maxMessageBytes: 1024 });
    expect(open.push(Buffer.from(syslog(1))).messages).toEqual([]);
    expect(open.end().messages.map(String)).toEqual([syslog(1)]);

    const cut = new SyslogFrameDecoder({ maxMessageBytes: 1024 });
    cut.push(frameOctetCounted(syslog(1)).subarray(0, 20));
    expect(cut.heldBytes).toBeGreaterThan(0);
    expect(cut.end()).toEqual({ messages: [], problem: { kind: 'malformed', detail: expect.stringMatching(/ended \d+ bytes into a frame of \d+/) as unknown } });
  });

  it('refuses a frame announcing more than the limit before reading its body, and reads nothing after', () => {
    const { messages, problem, decoder } = decodeAll([Buffer.concat([frameOctetCounted(syslog(1)), Buffer.from('2049 '), Buffer.alloc(2049, 0x41), frameOctetCounted(syslog(2))])], 2048);
    expect(messages).toEqual([syslog(1)]);
    expect(problem).toEqual({ kind: 'too-large', detail: 'a frame announces more than the 2048 bytes allowed' });
    expect(decoder.heldBytes).toBe(0);
    expect(decoder.push(frameOctetCounted(syslog(3)))).toEqual({ messages: [] });
  });

  it('refuses an endless run of length digits without holding them', () => {
    const { problem } = decodeAll([Buffer.alloc(10_000, 0x39)], 1_000_000);
    expect(problem?.kind).toBe('too-large');
  });

  it('refuses a newline-framed message longer than the limit, even without a line break', () => {
    const { problem, decoder } = decodeAll([Buffer.from(`<85>${'x'.repeat(3000)}`)], 2048);
    expect(problem).toEqual({ kind: 'too-large', detail: 'a newline-framed message is longer than the 2048 bytes allowed' });
    expect(decoder.heldBytes).toBe(0);
  });

  it('accepts a message of exactly the limit', () => {
    const body = `<1>${'y'.repeat(2045)}`;
    expect(Buffer.byteLength(body)).toBe(2048);
    expect(decodeAll([frameOctetCounted(body), Buffer.from(`${body}\n`)], 2048)).toMatchObject({ messages: [body, body], problem: undefined });
  });

  it.each([
    ['text that is neither framing', 'hello\n', /must start with an octet count .* found 'h'/],
    ['a zero length', '0 \n', /found '0'/],
    ['a length not followed by a space', '12x<85>1 …', /octet count 12 is followed by 'x'/],
    ['an HTTP request', 'GET / HTTP/1.1\r\n', /found 'G'/],
  ])('calls %s malformed', (_what, data, detail) => {
    const { problem, messages } = decodeAll([Buffer.from(data)]);
    expect(messages).toEqual([]);
    expect(problem?.kind).toBe('malformed');
    expect(problem?.detail).toMatch(detail);
  });

  it('drops the line break some senders end a datagram with', () => {
    expect(datagramMessage(Buffer.from(`${syslog(1)}\n`)).toString()).toBe(syslog(1));
    expect(datagramMessage(Buffer.from(`${syslog(1)}\r\n`)).toString()).toBe(syslog(1));
    expect(datagramMessage(Buffer.from(syslog(1))).toString()).toBe(syslog(1));
    expect(datagramMessage(Buffer.from('\n')).length).toBe(0);
  });
});
