/**
 * What is a message channel's own: the reply an HL7 sender gets (docs/integrator/transaction-ports.md, "ACK rules").
 * The primary route's reply when it has one an HL7 sender can read; an AA ACK when it accepted the message and said
 * nothing; otherwise a negative ACK naming why (AR when the route could not be reached or timed out, AE for a 4xx
 * answer, AR for a 5xx one, AR when Junction itself refused or failed). A sender that is not speaking HL7 gets the
 * reply as it came, or the connection closed when there is none. The ACK segments themselves are built in
 * domain/codecs/hl7.ts.
 */
import { ackBytes, negativeAck, positiveAck, readHeader, UNKNOWN_SENDER } from '../domain/codecs/hl7.js';
import type { Hl7Header } from '../domain/codecs/hl7.js';
import { ianaCharsetOf } from '../domain/codecs/hl7-charsets.js';
import type { RouteRun } from './route.js';

export const HL7_TYPE = 'application/hl7-v2';

// ACK control ids: Junction's own, unique within a process run, readable in logs.
let ackCounter = 0;

function ackId(): string {
  ackCounter = (ackCounter + 1) % 1e9;
  return `JN${Date.now().toString(36)}${ackCounter.toString(36)}`;
}

export const isHl7 = (body: Buffer): boolean => readHeader(body) !== null;

/** How the sender speaks: the inbound message's HL7 header (null when it is not HL7), and whether it came MLLP-framed. */
export interface Sender {
  header: Hl7Header | null;
  framed: boolean;
}

/** A negative ACK for the sender; null when the message is not HL7 and the sender did not frame it as MLLP. */
export function nak(sender: Sender, code: 'AE' | 'AR', reason: string): Buffer | null {
  if (sender.header === null && !sender.framed) return null;
  return ackBytes(negativeAck(sender.header ?? UNKNOWN_SENDER, { code, reason, controlId: ackId(), at: new Date() }));
}

/**
 * How a message is described to HTTP routes and in the stored request: HL7 v2 with its character set's IANA name, or
 * bytes. `unknown` is the MSH-18 value when it names no IANA charset: the type then has no charset parameter.
 */
export function contentTypeOf(header: Hl7Header | null): { contentType: string; unknown?: string } {
  if (header === null) return { contentType: 'application/octet-stream' };
  if (header.characterSet === '') return { contentType: HL7_TYPE };
  const iana = ianaCharsetOf(header.characterSet);
  return iana === null ? { contentType: HL7_TYPE, unknown: header.characterSet } : { contentType: `${HL7_TYPE}; charset=${iana}` };
}

/** The primary route's run with its reply read whole (message.ts `settle`). */
export interface ReadRun extends RouteRun {
  reply?: Buffer;
}

/** The reply rules above: what the sender gets for the primary's run, and the status and type the transaction records. */
export function replyFor(primary: ReadRun, sender: Sender): { reply: Buffer | null; status: number; contentType?: string } {
  const hl7Sender = sender.header !== null || sender.framed;
  const name = `route ${primary.route.name}`;
  const failure = primary.error ?? primary.brokeOff;
  if (primary.answer === undefined || primary.reply === undefined || failure !== undefined) {
    const error = failure ?? new Error('no answer');
    const status = (error as { kind?: string }).kind === 'timeout' ? 504 : primary.answer?.status ?? 500;
    return { reply: nak(sender, 'AR', `${name} failed: ${error.message}`), status, ...(hl7Sender ? { contentType: HL7_TYPE } : {}) };
  }
  const { status } = primary.answer;
  const { reply } = primary;
  const replyIsHl7 = isHl7(reply);
  if (!hl7Sender || replyIsHl7) return { reply, status, contentType: replyIsHl7 ? HL7_TYPE : 'application/octet-stream' };
  const ok = status >= 200 && status < 300;
  if (ok && reply.length === 0) return { reply: ackBytes(positiveAck(sender.header ?? UNKNOWN_SENDER, { controlId: ackId(), at: new Date() })), status, contentType: HL7_TYPE };
  if (ok) return { reply, status, contentType: 'application/octet-stream' };
  const said = reply.length === 0 ? '' : `: ${reply.subarray(0, 200).toString('utf8').replace(/\s+/g, ' ').trim()}`;
  return { reply: nak(sender, status < 500 ? 'AE' : 'AR', `${name} answered ${status}${said}`), status, contentType: HL7_TYPE };
}
