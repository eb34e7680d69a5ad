/**
 * Syslog framing over a byte stream (TCP and TLS audit listeners). Two framings, decided per message by its first
 * byte:
 * - octet counting (RFC 5425, RFC 6587 3.4.1): `<decimal length> SP <message>`, the length in bytes, so a message
 *   may hold anything, line breaks and multi-byte UTF-8 included;
 * - non-transparent framing (RFC 6587 3.4.2): a message that starts with `<` (its PRI) and ends at a line feed, as
 *   `logger --tcp` and many syslog daemons send it.
 * The decoder turns the chunks of one connection, however the network split them, into whole messages in order and
 * never holds more than one message of at most `maxMessageBytes` (plus a few length digits). A problem leaves the
 * stream out of step for good: the owner logs it and closes the connection. Pure: no sockets, no clock.
 */

const LINE_FEED = 0x0a;
const CARRIAGE_RETURN = 0x0d;
const NUL = 0x00;
const SPACE = 0x20;
const DIGIT_ZERO = 0x30;
const DIGIT_ONE = 0x31;
const DIGIT_NINE = 0x39;
const LESS_THAN = 0x3c;

export interface SyslogFrameDecoderOptions {
  /** The longest message accepted, framing excluded; a longer one is a problem, never cut short. */
  maxMessageBytes: number;
}

/** Why the stream cannot be read on: `too-large` (over the limit) or `malformed` (neither framing, or cut short). */
export interface SyslogFramingProblem {
  kind: 'too-large' | 'malformed';
  detail: string;
}

/** What one chunk completed, and at most once a problem after which nothing more is read. */
export interface SyslogDecoded {
  messages: Buffer[];
  problem?: SyslogFramingProblem;
}

type State = 'between' | 'length' | 'octets' | 'line';

/** Reassembles syslog messages (octet-counted or newline-framed) from the chunks of one connection. */
export class SyslogFrameDecoder {
  readonly #max: number;
  #state: State = 'between';
  /** The announced length, while its digits are read. */
  #length = 0;
  /** Bytes still to read of an octet-counted message. */
  #remaining = 0;
  #parts: Buffer[] = [];
  #size = 0;
  #failed: SyslogFramingProblem | undefined;

  constructor(options: SyslogFrameDecoderOptions) {
    if (!Number.isSafeInteger(options.maxMessageBytes) || options.maxMessageBytes < 1) throw new RangeError('maxMessageBytes must be a positive integer');
    this.#max = options.maxMessageBytes;
  }

  /** True while a message has begun and not ended: a connection closed now loses it. */
  get midMessage(): boolean {
    return this.#state !== 'between';
  }

  /** Bytes held of the unfinished message. */
  get heldBytes(): number {
    return this.#size;
  }

  /** The problem found earlier, if any. */
  get problem(): SyslogFramingProblem | undefined {
    return this.#failed;
  }

  /** Reads one chunk; returns the messages it completed and, at most once, a problem. */
  push(chunk: Buffer): SyslogDecoded {
    const messages: Buffer[] = [];
    if (this.#failed !== undefined) return { messages };
    let at = 0;
    while (at < chunk.length) {
      const byte = chunk[at] as number;
      switch (this.#state) {
        case 'between':
          // Line breaks (and the NUL some daemons use as a trailer) between frames are not messages.
          if (byte === LINE_FEED || byte === CARRIAGE_RETURN || byte === NUL) {
            at++;
          } else if (byte >= DIGIT_ONE && byte <= DIGIT_NINE) {
            this.#state = 'length';
            this.#length = 0;
          } else if (byte === LESS_THAN) {
            this.#state = 'line';
          } else {
            return this.#fail(messages, 'malformed', `a message must start with an octet count (a digit 1-9) or a syslog PRI ('<'); found ${describe(byte)}`);
          }
          break;
        case 'length':
          if (byte >= DIGIT_ZERO && byte <= DIGIT_NINE) {
            this.#length = this.#length * 10 + (byte - DIGIT_ZERO);
            // Checked digit by digit, so a long run of digits can neither overflow nor be buffered.
            if (this.#length > this.#max) return this.#fail(messages, 'too-large', `a frame announces more than the ${this.#max} bytes allowed`);
            at++;
          } else if (byte === SPACE) {
            this.#state = 'octets';
            this.#remaining = this.#length;
            at++;
          } else {
            return this.#fail(messages, 'malformed', `the octet count ${this.#length} is followed by ${describe(byte)} instead of a space`);
          }
          break;
        case 'octets': {
          const take = Math.min(this.#remaining, chunk.length - at);
          this.#keep(chunk.subarray(at, at + take));
          this.#remaining -= take;
          at += take;
          if (this.#remaining === 0) messages.push(this.#take());
          break;
        }
        case 'line': {
          const end = chunk.indexOf(LINE_FEED, at);
          const stop = end === -1 ? chunk.length : end;
          if (this.#size + (stop - at) > this.#max) return this.#fail(messages, 'too-large', `a newline-framed message is longer than the ${this.#max} bytes allowed`);
          this.#keep(chunk.subarray(at, stop));
          at = stop;
          if (end !== -1) {
            at++;
            messages.push(withoutTrailingCr(this.#take()));
          }
          break;
        }
      }
    }
    return { messages };
  }

  /**
   * The sender closed the connection: a newline-framed message without its final line feed is taken whole (the
   * close ends it); an octet-counted message cut short is a problem.
   */
  end(): SyslogDecoded {
    if (this.#failed !== undefined) return { messages: [] };
    if (this.#state === 'line') return { messages: [withoutTrailingCr(this.#take())] };
    if (this.#state === 'length') return this.#fail([], 'malformed', 'the connection ended inside an octet count');
    if (this.#state === 'octets') return this.#fail([], 'malformed', `the connection ended ${this.#length - this.#remaining} bytes into a frame of ${this.#length}`);
    return { messages: [] };
  }

  #keep(part: Buffer): void {
    if (part.length === 0) return;
    this.#parts.push(part);
    this.#size += part.length;
  }

  /** The message read so far, copied so that it does not pin the socket's larger chunks in memory. */
  #take(): Buffer {
    const message = this.#parts.length === 1 ? Buffer.from(this.#parts[0] as Buffer) : Buffer.concat(this.#parts, this.#size);
    this.#parts = [];
    this.#size = 0;
    this.#state = 'between';
    return message;
  }

  #fail(messages: Buffer[], kind: SyslogFramingProblem['kind'], detail: string): SyslogDecoded {
    this.#failed = { kind, detail };
    this.#parts = [];
    this.#size = 0;
    return { messages, problem: this.#failed };
  }
}

/** One datagram's message (RFC 5426): the datagram without the line break some senders end it with. */
export function datagramMessage(datagram: Buffer): Buffer {
  let end = datagram.length;
  if (end > 0 && (datagram[end - 1] === LINE_FEED || datagram[end - 1] === NUL)) end--;
  if (end > 0 && datagram[end - 1] === CARRIAGE_RETURN) end--;
  return end === datagram.length ? datagram : datagram.subarray(0, end);
}

/** An octet-counted frame of a message (for senders and tests): its length in bytes, a space, the bytes. */
export function frameOctetCounted(message: Buffer | string): Buffer {
  const bytes = typeof message === 'string' ? Buffer.from(message, 'utf8') : message;
  return Buffer.concat([Buffer.from(`${bytes.length} `, 'ascii'), bytes]);
}

function withoutTrailingCr(message: Buffer): Buffer {
  return message.length > 0 && message[message.length - 1] === CARRIAGE_RETURN ? message.subarray(0, message.length - 1) : message;
}

function describe(byte: number): string {
  const hex = `0x${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  return byte >= 0x21 && byte <= 0x7e ? `'${String.fromCharCode(byte)}' (${hex})` : hex;
}
