/**
 * An HL7 v2 message read for display: its segments, each field with its HL7 name (`PID-5`), and what the header and
 * an acknowledgement say (message type, control id, MSA-1). Pure and forgiving: a cut or odd message still gives
 * whatever segments it has.
 */
import { hl7Segments } from './body-format';

export interface Hl7Field {
  /** The HL7 field number: `MSH-9` is number 9 of MSH (MSH-1 is the field separator itself). */
  number: number;
  text: string;
}

export interface Hl7Segment {
  id: string;
  fields: Hl7Field[];
}

export interface Hl7Message {
  segments: Hl7Segment[];
  fieldSeparator: string;
  componentSeparator: string;
  /** MSH-9 as written, e.g. `ORU^R01`. */
  messageType?: string;
  /** MSH-10. */
  controlId?: string;
  /** MSH-12, the HL7 version the message is written in (`2.5.1`). */
  version?: string;
  /** MSA-1 of an acknowledgement: AA, AE, AR, CA, CE or CR. */
  ackCode?: string;
  /** MSA-3 (or ERR) text of an acknowledgement, when given. */
  ackText?: string;
}

/** What each acknowledgement code means, in words. */
export const ACK_MEANING: Record<string, string> = {
  AA: 'accepted',
  AE: 'error',
  AR: 'rejected',
  CA: 'commit accepted',
  CE: 'commit error',
  CR: 'commit rejected',
};

const HEADER_IDS = new Set(['MSH', 'BHS', 'FHS']);

/** The fields of one segment; a header segment's first two fields are its separator and encoding characters. */
function segmentOf(line: string, separator: string): Hl7Segment {
  const id = line.slice(0, 3);
  if (HEADER_IDS.has(id) && line.charAt(3) === separator) {
    const rest = line.slice(4).split(separator);
    const [encoding = '', ...others] = rest;
    return { id, fields: [{ number: 1, text: separator }, { number: 2, text: encoding }, ...others.map((text, i) => ({ number: i + 3, text }))] };
  }
  const parts = line.split(separator);
  return { id: parts[0] ?? '', fields: parts.slice(1).map((text, i) => ({ number: i + 1, text })) };
}

const fieldText = (segment: Hl7Segment | undefined, n: number): string | undefined => {
  const text = segment?.fields.find((f) => f.number === n)?.text;
  return text === undefined || text === '' ? undefined : text;
};

/** The message as segments and fields, with the separators its header declares (`|` and `^` when it has none). */
export function readHl7(body: string): Hl7Message {
  const lines = hl7Segments(body);
  const header = lines.find((l) => HEADER_IDS.has(l.slice(0, 3)));
  // MSH-1 names the field separator and MSH-2 starts with the component separator.
  const fieldSeparator = header !== undefined && header.length > 3 ? header.charAt(3) : '|';
  const componentSeparator = header !== undefined && header.length > 4 && header.charAt(4) !== fieldSeparator ? header.charAt(4) : '^';
  const segments = lines.map((line) => segmentOf(line, fieldSeparator));
  const msh = segments.find((s) => s.id === 'MSH');
  const msa = segments.find((s) => s.id === 'MSA');
  const err = segments.find((s) => s.id === 'ERR');
  const message: Hl7Message = { segments, fieldSeparator, componentSeparator };
  const messageType = fieldText(msh, 9);
  const controlId = fieldText(msh, 10);
  const ackCode = fieldText(msa, 1)?.toUpperCase();
  // ERR-8 (user message, v2.5) or ERR-1 (older versions) when MSA-3 is empty.
  const ackText = fieldText(msa, 3) ?? fieldText(err, 8) ?? fieldText(err, 1);
  if (messageType !== undefined) message.messageType = messageType;
  if (controlId !== undefined) message.controlId = controlId;
  const version = fieldText(msh, 12)?.split(componentSeparator)[0];
  if (version !== undefined && version !== '') message.version = version;
  if (ackCode !== undefined) message.ackCode = ackCode;
  if (ackCode !== undefined && ackText !== undefined) message.ackText = ackText;
  return message;
}

/** How many segments are drawn before "Show all": enough for any ordinary message, few enough to stay quick. */
export const SEGMENT_LIMIT = 200;

/** The segments to draw: all of them once asked, else the first SEGMENT_LIMIT. */
export function visibleSegments<T>(segments: T[], showAll: boolean): T[] {
  return showAll || segments.length <= SEGMENT_LIMIT ? segments : segments.slice(0, SEGMENT_LIMIT);
}

/** `OBX ×5, PID, MSH`: which segments a message holds, in order of first appearance, repeats counted. */
export function segmentCounts(segments: Pick<Hl7Segment, 'id'>[]): string {
  const counts = new Map<string, number>();
  for (const { id } of segments) counts.set(id, (counts.get(id) ?? 0) + 1);
  return [...counts].map(([id, n]) => (n === 1 ? id : `${id} ×${n}`)).join(', ');
}
