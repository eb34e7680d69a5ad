import { describe, expect, it } from 'vitest';
import { frameMllp, MllpDecoder } from '../../service/domain/codecs/mllp-framing.js';

const ORU = Buffer.from('MSH|^~\\&|LAB|CLINIC|EMR|CLINIC|20261124||ORU^R01|MSG001|P|2.5\rPID|1||12345\rOBX|1|NM|GLU||5.4|mmol/L\r', 'latin1');
const ADT = Buffer.from('MSH|^~\\&|ADM|CLINIC|EMR|CLINIC|20261124||ADT^A01|MSG002|P|2.5\rPID|1||67890\r', 'latin1');

/** Feeds the chunks and gathers every message and problem. */
function decode(chunks: Buffer[], maxMessageBytes = 1024 * 1024): { messages: Buffer[]; problems: string[]; decoder: MllpDecoder } {
  const decoder = new MllpDecoder({ maxMessageBytes });
  const messages: Buffer[] = [];
  const problems: string[] = [];
  for (const chunk of chunks) {
    const out = decoder.push(chunk);
    messages.push(...out.messages);
    if (out.problem !== undefined) problems.push(out.problem);
  }
  return { messages, problems, decoder };
}

/** Every byte of `data` as its own chunk. */
const byteByByte = (data: Buffer) => [...data].map((b) => Buffer.from([b]));

describe('MLLP framing', () => {
  it('frames a message as 0x0B, the bytes, 0x1C 0x0D', () => {
    const framed = frameMllp(Buffer.from('MSH|x'));
    expect([...framed]).toEqual([0x0b, ...Buffer.from('MSH|x'), 0x1c, 0x0d]);
  });

  it('reassembles a message written one byte at a time', () => {
    const { messages, problems, decoder } = decode(byteByByte(frameMllp(ORU)));
    expect(problems).toEqual([]);
    expect(messages).toEqual([ORU]);
    expect(decoder.midMessage).toBe(false);
    expect(decoder.heldBytes).toBe(0);
  });

  it('reads several messages from one chunk, in order, with line breaks between frames', () => {
    const chunk = Buffer.concat([frameMllp(ORU), Buffer.from('\r\n'), frameMllp(ADT), frameMllp(ORU)]);
    const { messages, problems } = decode([chunk]);
    expect(problems).toEqual([]);
    expect(messages.map((m) => m.toString('latin1').split('|')[9])).toEqual(['MSG001', 'MSG002', 'MSG001']);
  });

  it('handles the end byte and its carriage return arriving in different chunks, and a message in the middle of a chunk', () => {
    const framed = Buffer.concat([frameMllp(ORU), frameMllp(ADT)]);
    const cut = frameMllp(ORU).length - 1;
    const { messages, problems, decoder } = decode([framed.subarray(0, cut), framed.subarray(cut, cut + 5), framed.subarray(cut + 5)]);
    expect(problems).toEqual([]);
    expect(messages).toEqual([ORU, ADT]);
    expect(decoder.midMessage).toBe(false);
  });

  it('is binary-safe: every byte value but the framing bytes passes through unchanged', () => {
    const bytes = Buffer.from([...Array(256).keys()].filter((b) => b !== 0x0b && b !== 0x1c));
    const { messages } = decode([frameMllp(bytes)]);
    expect(messages).toEqual([bytes]);
  });

  it('does not keep a large chunk alive through the message it returns', () => {
    const big = Buffer.concat([frameMllp(ADT), Buffer.alloc(64 * 1024, 0x0d)]);
    const [message] = decode([big]).messages;
    expect(message?.buffer).not.toBe(big.buffer);
  });

  it('says a connection is mid-message while a frame is open', () => {
    const framed = frameMllp(ORU);
    const { decoder } = decode([framed.subarray(0, 10)]);
    expect(decoder.midMessage).toBe(true);
    expect(decoder.heldBytes).toBe(9);
  });

  it('accepts a message of exactly the limit and refuses one byte more, without cutting it', () => {
    expect(decode([frameMllp(Buffer.alloc(100, 0x41))], 100).messages).toHaveLength(1);
    const over = decode(byteByByte(frameMllp(Buffer.alloc(101, 0x41))), 100);
    expect(over.messages).toEqual([]);
    expect(over.problems).toEqual(['a message is longer than the 100 bytes allowed']);
    expect(over.decoder.heldBytes).toBe(0);
  });

  it('names garbage: data outside a frame, a frame inside a frame, data after an end byte', () => {
    expect(decode([Buffer.from('GET / HTTP/1.1\r\n')]).problems).toEqual(['data outside an MLLP frame (0x47 where 0x0B should start a message)']);
    expect(decode([Buffer.from([0x0b, 0x41, 0x0b, 0x42, 0x1c, 0x0d])]).problems).toEqual(['a new message (0x0B) began before the previous one ended (0x1C 0x0D)']);
    const after = decode([Buffer.from([0x0b, 0x41, 0x1c]), Buffer.from([0x41])]);
    expect(after.messages).toEqual([Buffer.from('A')]);
    expect(after.problems).toEqual(['data outside an MLLP frame (0x41 where 0x0B should start a message)']);
  });

  it('ends a message at its 0x1C: the carriage return is not waited for, and read as filler when it comes', () => {
    const withoutCr = decode([Buffer.from([0x0b, ...ORU, 0x1c])]);
    expect(withoutCr.messages).toEqual([ORU]);
    expect(withoutCr.decoder.midMessage).toBe(false);
    const late = decode([Buffer.from([0x0b, ...ORU, 0x1c]), Buffer.from([0x0d]), frameMllp(ADT)]);
    expect(late.problems).toEqual([]);
    expect(late.messages).toEqual([ORU, ADT]);
    const next = decode([Buffer.concat([Buffer.from([0x0b, ...ORU, 0x1c]), frameMllp(ADT)])]);
    expect(next.problems).toEqual([]);
    expect(next.messages).toEqual([ORU, ADT]);
  });

  it('keeps the messages completed before a problem, reports the problem once, and reads nothing after it', () => {
    const decoder = new MllpDecoder({ maxMessageBytes: 1000 });
    const first = decoder.push(Buffer.concat([frameMllp(ORU), Buffer.from('junk')]));
    expect(first.messages).toEqual([ORU]);
    expect(first.problem).toMatch(/outside an MLLP frame/);
    expect(decoder.push(frameMllp(ADT))).toEqual({ messages: [] });
    expect(decoder.problem).toMatch(/outside an MLLP frame/);
  });

  it('refuses a limit that is not a positive integer', () => {
    expect(() => new MllpDecoder({ maxMessageBytes: 0 })).toThrow(RangeError);
    expect(() => new MllpDecoder({ maxMessageBytes: 1.5 })).toThrow(RangeError);
  });
});
