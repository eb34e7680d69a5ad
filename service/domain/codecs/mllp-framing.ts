/**
 * MLLP framing (HL7 v2 over TCP): a message travels as 0x0B, the message bytes, then 0x1C 0x0D. The decoder turns
 * the bytes of one connection, however the network split them, into whole messages in order, binary-safe, and says
 * what is wrong when a peer sends something that is not MLLP. Pure: the transport that owns the socket decides what
 * to do with a problem (answer, log, close). `frameMllp` wraps a message for sending.
 *
 * A message ends at its 0x1C: the 0x0D after it is expected but not waited for. Some senders leave it out, and
 * waiting for a byte that never comes would leave them without a reply until the idle timeout; a 0x0D that does come
 * is read as the filler between frames, so the stream stays in step either way.
 */

/** Start of block. */
export const MLLP_START = 0x0b;
/** End of block; followed by a carriage return. */
export const MLLP_END = 0x1c;
export const CARRIAGE_RETURN = 0x0d;
const LINE_FEED = 0x0a;

export interface MllpDecoderOptions {
  /** The longest message accepted, framing excluded; a longer one is a problem, never cut short. */
  maxMessageBytes: number;
}

/** What the decoder found in a chunk: the messages it completed, and a problem after which the connection is unusable. */
export interface MllpDecoded {
  messages: Buffer[];
  /** Set once; everything after it is ignored, as the stream can no longer be trusted to be in step. */
  problem?: string;
  /** What kind of problem: a message over the size limit, or framing that cannot be read. */
  problemKind?: 'too_large' | 'bad_frame';
}

/** Reassembles MLLP frames from the chunks of one connection. */
export class MllpDecoder {
  readonly #max: number;
  /** The parts of the message being read, between its 0x0B and its 0x1C. */
  #parts: Buffer[] = [];
  #size = 0;
  #inFrame = false;
  #failed: string | undefined;

  constructor(options: MllpDecoderOptions) {
    if (!Number.isSafeInteger(options.maxMessageBytes) || options.maxMessageBytes < 1) throw new RangeError('maxMessageBytes must be a positive integer');
    this.#max = options.maxMessageBytes;
  }

  /** True while a message has begun and not ended: a connection closed now loses it. */
  get midMessage(): boolean {
    return this.#inFrame;
  }

  /** Bytes held of the unfinished message. */
  get heldBytes(): number {
    return this.#size;
  }

  /** The problem found earlier, if any. */
  get problem(): string | undefined {
    return this.#failed;
  }

  /** Reads one chunk; returns the messages it completed and, at most once, a problem. */
  push(chunk: Buffer): MllpDecoded {
    const messages: Buffer[] = [];
    if (this.#failed !== undefined) return { messages };
    let at = 0;
    while (at < chunk.length) {
      if (!this.#inFrame) {
        const byte = chunk[at];
        // Some senders end each frame with a line break too; that is not data.
        if (byte === CARRIAGE_RETURN || byte === LINE_FEED) {
          at++;
          continue;
        }
        if (byte !== MLLP_START) return this.#fail(messages, `data outside an MLLP frame (0x${hex(byte)} where 0x0B should start a message)`);
        this.#inFrame = true;
        at++;
        continue;
      }
      const end = chunk.indexOf(MLLP_END, at);
      const stop = end === -1 ? chunk.length : end;
      const start = chunk.indexOf(MLLP_START, at);
      if (start !== -1 && start < stop) return this.#fail(messages, 'a new message (0x0B) began before the previous one ended (0x1C 0x0D)');
      if (this.#size + (stop - at) > this.#max) return this.#fail(messages, `a message is longer than the ${this.#max} bytes allowed`, 'too_large');
      if (stop > at) {
        this.#parts.push(chunk.subarray(at, stop));
        this.#size += stop - at;
      }
      if (end === -1) break;
      this.#inFrame = false;
      messages.push(this.#take());
      at = end + 1;
    }
    return { messages };
  }

  #take(): Buffer {
    const message = this.#parts.length === 1 ? Buffer.from(this.#parts[0] as Buffer) : Buffer.concat(this.#parts, this.#size);
    this.#parts = [];
    this.#size = 0;
    return message;
  }

  #fail(messages: Buffer[], problem: string, problemKind: 'too_large' | 'bad_frame' = 'bad_frame'): MllpDecoded {
    this.#failed = problem;
    this.#parts = [];
    this.#size = 0;
    return { messages, problem, problemKind };
  }
}

/** A message framed for sending: 0x0B, the bytes, 0x1C 0x0D. */
export function frameMllp(message: Buffer): Buffer {
  const framed = Buffer.allocUnsafe(message.length + 3);
  framed[0] = MLLP_START;
  message.copy(framed, 1);
  framed[message.length + 1] = MLLP_END;
  framed[message.length + 2] = CARRIAGE_RETURN;
  return framed;
}

function hex(byte: number | undefined): string {
  return (byte ?? 0).toString(16).toUpperCase().padStart(2, '0');
}
