/**
 * The little of HL7 v2 that a mediator needs without parsing whole messages: the header (MSH) of an inbound message,
 * the character set it names (MSH-18), the outcome an ACK reports (MSA-1), and an ACK of its own to send back when
 * no route could answer, so a sender is never left with plain text or silence. Pure: the clock and control ids are
 * passed in.
 */
import { HL7_CHARACTER_SETS, hl7CharacterSet } from './hl7-charsets.js';

/** The header fields an ACK and a transaction record need. */
export interface Hl7Header {
  fieldSeparator: string;
  /** MSH-2: component, repetition, escape and subcomponent characters. */
  encodingCharacters: string;
  sendingApplication: string;
  sendingFacility: string;
  receivingApplication: string;
  receivingFacility: string;
  /** MSH-9, as written (e.g. `ORU^R01^ORU_R01`). */
  messageType: string;
  /** MSH-10. */
  controlId: string;
  /** MSH-11 (P, T or D). */
  processingId: string;
  /** MSH-12. */
  version: string;
  /** MSH-18, the first repetition; empty when not given. */
  characterSet: string;
}

/** An ACK's acknowledgment code (MSA-1): original mode A*, enhanced mode C*. */
export type AckCode = 'AA' | 'AE' | 'AR' | 'CA' | 'CE' | 'CR';
const ACK_CODES: ReadonlySet<string> = new Set<AckCode>(['AA', 'AE', 'AR', 'CA', 'CE', 'CR']);

/** The first segment of a message (up to CR, or LF for senders that use it), read as latin1 so no byte is lost. */
function firstSegment(message: Buffer): string {
  let end = message.length;
  for (let i = 0; i < message.length; i++) {
    if (message[i] === 0x0d || message[i] === 0x0a) {
      end = i;
      break;
    }
  }
  return message.subarray(0, end).toString('latin1');
}

/** The segment that starts with `name`, or undefined. */
function segment(message: Buffer, name: string): string | undefined {
  return message
    .toString('latin1')
    .split(/\r\n|\r|\n/)
    .find((s) => s.startsWith(name) && s.length > name.length);
}

/** The header of an HL7 v2 message, or null when the message does not start with a well-formed MSH segment. */
export function readHeader(message: Buffer): Hl7Header | null {
  const msh = firstSegment(message);
  if (!msh.startsWith('MSH') || msh.length < 8) return null;
  const fieldSeparator = msh[3] as string;
  // A separator that is a letter, a digit or a line break would make every field ambiguous.
  if (/[A-Za-z0-9\r\n]/.test(fieldSeparator)) return null;
  const fields = msh.split(fieldSeparator);
  // fields[0] is "MSH"; MSH-1 is the separator itself, so MSH-n is fields[n - 1].
  const field = (n: number) => fields[n - 1] ?? '';
  const encodingCharacters = field(2);
  if (encodingCharacters.length < 1 || encodingCharacters.length > 5) return null;
  const repetition = encodingCharacters[1];
  return {
    fieldSeparator,
    encodingCharacters,
    sendingApplication: field(3),
    sendingFacility: field(4),
    receivingApplication: field(5),
    receivingFacility: field(6),
    messageType: field(9),
    controlId: field(10),
    processingId: field(11),
    version: field(12),
    characterSet: (repetition === undefined ? field(18) : (field(18).split(repetition)[0] ?? '')).trim(),
  };
}

/**
 * The TextDecoder label for a stored body whose content type is `contentType`: its `charset` parameter, read as an
 * HL7 character set name (`8859/1`, as Junction recorded MSH-18 before it sent IANA names), as the IANA name Junction
 * records now, or as any standard label (`iso-8859-1`); UTF-8 when there is none or it is unknown.
 */
export function textEncodingOfContentType(contentType: string | undefined): string {
  const charset = /;\s*charset\s*=\s*"?([^";]+)"?/i.exec(contentType ?? '')?.[1]?.trim();
  if (charset === undefined || charset === '') return 'utf-8';
  const known = hl7CharacterSet(charset) ?? Object.values(HL7_CHARACTER_SETS).find((set) => set.iana?.toUpperCase() === charset.toUpperCase());
  if (known !== undefined) return known.decoder ?? 'utf-8';
  try {
    return new TextDecoder(charset).encoding;
  } catch {
    return 'utf-8';
  }
}

/** The control id an ACK acknowledges (MSA-2), or null when the message has no MSA segment. */
export function acknowledgedIdOf(message: Buffer): string | null {
  const header = readHeader(message);
  const msa = segment(message, 'MSA');
  if (header === null || msa === undefined) return null;
  return msa.split(header.fieldSeparator)[2] ?? '';
}

/**
 * Why `reply` cannot be the answer to the message whose header is `inbound`: an ACK whose MSA-2 names another
 * message (a connection out of step, or an upstream answering an earlier message again), or undefined.
 */
export function wrongAcknowledgement(inbound: Pick<Hl7Header, 'controlId'> | null, reply: Buffer): string | undefined {
  if (inbound === null || inbound.controlId === '') return undefined;
  const acknowledged = acknowledgedIdOf(reply);
  if (acknowledged === null || acknowledged === inbound.controlId) return undefined;
  return `answered with an ACK of message ${JSON.stringify(acknowledged)}, not of this message (${JSON.stringify(inbound.controlId)})`;
}

/** The acknowledgment code of an ACK (MSA-1), or null when the message has no MSA segment with a known code. */
export function ackCodeOf(message: Buffer): AckCode | null {
  const header = readHeader(message);
  if (header === null) return null;
  const msa = segment(message, `MSA${header.fieldSeparator}`);
  const code = msa?.split(header.fieldSeparator)[1]?.trim().toUpperCase();
  return code !== undefined && ACK_CODES.has(code) ? (code as AckCode) : null;
}

/** What an ACK says: its code (MSA-1) and, when given, its text (MSA-3, else ERR-8, ERR-3's text or ERR-1), unescaped. */
export interface AckStatement {
  code: AckCode;
  text?: string;
}

/** Undoes HL7's escapes (\F\ \S\ \T\ \R\ \E\) in text meant for a person; other escapes (highlighting, hex) are dropped. */
export function unescapeText(text: string, header: Pick<Hl7Header, 'fieldSeparator' | 'encodingCharacters'>): string {
  const [component = '^', repetition = '~', escape = '\\', subcomponent = '&'] = [...header.encodingCharacters];
  const meaning: Record<string, string> = { F: header.fieldSeparator, S: component, T: subcomponent, R: repetition, E: escape };
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const ch = text.charAt(i);
    const end = ch === escape ? text.indexOf(escape, i + 1) : -1;
    if (end === -1) {
      out += ch;
      continue;
    }
    out += meaning[text.slice(i + 1, end)] ?? '';
    i = end;
  }
  return out;
}

/**
 * The code and text of an ACK, or null when `message` is not an ACK with a known MSA-1. The text is MSA-3 (the
 * original mode's), else ERR-8 (the user message, 2.5 and later), else ERR-3's text component (the error code's
 * words), else ERR-1 (before 2.5) with its separators as spaces.
 */
export function ackStatementOf(message: Buffer): AckStatement | null {
  const header = readHeader(message);
  const code = ackCodeOf(message);
  if (header === null || code === null) return null;
  const f = header.fieldSeparator;
  const [component = '^', , , subcomponent = '&'] = [...header.encodingCharacters];
  const msa = segment(message, `MSA${f}`)?.split(f) ?? [];
  const err = segment(message, `ERR${f}`)?.split(f) ?? [];
  const candidates = [msa[3], err[8], err[3]?.split(component)[1], err[1]?.split(component).join(' ').split(subcomponent).join(' ')];
  const raw = candidates.map((c) => c?.trim() ?? '').find((c) => c !== '');
  if (raw === undefined) return { code };
  const text = unescapeText(raw, header).replace(/\s+/g, ' ').trim();
  return text === '' ? { code } : { code, text };
}

/**
 * The HTTP-like status an ACK's code stands for, so SPEC.md's status table applies to MLLP routes: accepted is 2xx,
 * an application error 4xx, a rejection 5xx.
 */
export function statusOfAck(code: AckCode): 200 | 400 | 500 {
  if (code === 'AA' || code === 'CA') return 200;
  if (code === 'AE' || code === 'CE') return 400;
  return 500;
}

/** The status a reply from an `mllp` or `tcp` route stands for: its ACK code when it is an HL7 ACK, else 200. */
export function statusOfReply(reply: Buffer): number {
  const code = ackCodeOf(reply);
  return code === null ? 200 : statusOfAck(code);
}

/** Escapes text for one HL7 field, using the message's own separators (HL7's \F\ \S\ \T\ \R\ \E\ sequences). */
export function escapeField(text: string, header: Pick<Hl7Header, 'fieldSeparator' | 'encodingCharacters'>): string {
  const [component = '^', repetition = '~', escape = '\\', subcomponent = '&'] = [...header.encodingCharacters];
  const replacements = new Map<string, string>([
    [escape, `${escape}E${escape}`],
    [header.fieldSeparator, `${escape}F${escape}`],
    [component, `${escape}S${escape}`],
    [repetition, `${escape}R${escape}`],
    [subcomponent, `${escape}T${escape}`],
  ]);
  let out = '';
  for (const ch of text.replace(/[\r\n]+/g, ' ')) out += replacements.get(ch) ?? ch;
  return out;
}

/** HL7's DTM to the second, in UTC: YYYYMMDDHHMMSS+0000. */
function hl7Time(at: Date): string {
  return `${at.toISOString().replace(/[-:T]/g, '').slice(0, 14)}+0000`;
}

export interface AckOptions {
  code: 'AE' | 'AR';
  /** Why, in a few words: MSA-3 and ERR-8 carry it to the sender. */
  reason: string;
  /** MSH-10 of the ACK itself. */
  controlId: string;
  at: Date;
}

/** The MSH of an ACK answering `inbound`: applications and facilities swapped, the trigger event kept. */
function ackHeader(inbound: Hl7Header, controlId: string, at: Date): string {
  const [component = '^'] = [...inbound.encodingCharacters];
  const trigger = inbound.messageType.split(component)[1] ?? '';
  const fields = ['MSH', inbound.encodingCharacters, inbound.receivingApplication, inbound.receivingFacility, inbound.sendingApplication, inbound.sendingFacility, hl7Time(at), '', ['ACK', trigger, 'ACK'].join(component), escapeField(controlId, inbound), inbound.processingId || 'P', inbound.version || '2.5'];
  return fields.join(inbound.fieldSeparator);
}

/**
 * A negative ACK answering `inbound`: sending and receiving application and facility swapped, the inbound control id
 * in MSA-2, the reason in MSA-3 and in an ERR segment (HL7 2.5 and later read ERR-8). Text whose header fields are
 * the inbound's own characters, so encode it as latin1 to send back the bytes that came (see `ackBytes`).
 */
export function negativeAck(inbound: Hl7Header, options: AckOptions): string {
  const f = inbound.fieldSeparator;
  const [component = '^'] = [...inbound.encodingCharacters];
  const reason = escapeField(options.reason, inbound);
  // ERR-3 from HL7 table 0357 (207: application internal error), ERR-4 severity E, ERR-8 the message for a person.
  const err = ['ERR', '', '', ['207', 'Application internal error', 'HL70357'].join(component), 'E', '', '', '', reason];
  const segments = [ackHeader(inbound, options.controlId, options.at), ['MSA', options.code, inbound.controlId, reason].join(f), err.join(f)];
  return withoutFramingBytes(`${segments.join('\r')}\r`);
}

/**
 * An ACK without MLLP's framing bytes: its fields echo the inbound header, which a broken frame can carry them in,
 * and one inside the reply's frame would end or restart it at the sender.
 */
function withoutFramingBytes(ack: string): string {
  return ack.replaceAll('\x0b', '').replaceAll('\x1c', '');
}

/** A positive ACK (MSA-1 AA) answering `inbound`, for a route that accepted the message but answered nothing. */
export function positiveAck(inbound: Hl7Header, options: Pick<AckOptions, 'controlId' | 'at'>): string {
  return withoutFramingBytes(`${ackHeader(inbound, options.controlId, options.at)}\r${['MSA', 'AA', inbound.controlId].join(inbound.fieldSeparator)}\r`);
}

/**
 * An ACK's bytes. The header was read as latin1 (byte for byte), so latin1 gives the sender its own application
 * names back exactly, whatever its character set; Junction's own text in an ACK is ASCII.
 */
export function ackBytes(ack: string): Buffer {
  return Buffer.from(ack, 'latin1');
}

/** The header of a message that is not HL7, so a sender that framed it as MLLP still gets an ACK it can read. */
export const UNKNOWN_SENDER: Hl7Header = {
  fieldSeparator: '|',
  encodingCharacters: '^~\\&',
  sendingApplication: '',
  sendingFacility: '',
  receivingApplication: '',
  receivingFacility: '',
  messageType: '',
  controlId: '',
  processingId: 'P',
  version: '2.5',
  characterSet: '',
};
