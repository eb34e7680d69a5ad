/**
 * Clinical keys of an HL7 v2 body (issue 37): one message, or a batch (FHS/BHS with several MSH). Each message is
 * read with its own separators (MSH-1, MSH-2), segments split on CR, LF or CRLF (senders differ), every repetition
 * and segment group read, escapes undone (codecs/hl7.ts). Only the fields that identify a message, a patient or an
 * order are read, field by field, so a large message costs one pass of string splits and nothing else.
 *
 * Why no parser package: the published parsers we looked at either build an object for every field of the message
 * (several times the cost of the few splits needed here, on every indexed transaction), do not accept LF segment
 * separators, throw on a message that does not start with MSH (a batch), or bring many dependencies. The grammar
 * read here is small and the MSH header reading it builds on already lives in codecs/hl7.ts.
 */
import { unescapeText } from '../codecs/hl7.js';
import type { ClinicalKey } from './clinical-key.js';
import { MAX_KEY_LENGTH } from './clinical-key.js';

type Part = ClinicalKey['part'];

/** The most segments read of one body: beyond it a body is a bulk file, not a message, and the rest is not read. */
export const MAX_HL7_SEGMENTS = 20_000;

/**
 * The segments keys are read from (and the headers that set the separators), with the fields read of each: a segment
 * is split only that far (an OBR has 40 fields, of which 2 to 4 are read).
 */
const READ_SEGMENTS: ReadonlyMap<string, number> = new Map([
  ['MSH', 10],
  ['PID', 18],
  ['OBR', 4],
  ['ORC', 3],
  ['PV1', 19],
  ['MRG', 1],
  ['FHS', 0],
  ['BHS', 0],
]);

interface Separators {
  field: string;
  component: string;
  repetition: string;
  escape: string;
  subcomponent: string;
  /** As MSH-2 wrote them, for the unescaping. */
  encodingCharacters: string;
}

/** True when the body looks like HL7 v2 ER7: it starts (after blanks or a BOM) with a header segment. */
export function looksLikeHl7(text: string): boolean {
  const start = firstNonBlank(text);
  const head = text.slice(start, start + 3);
  return (head === 'MSH' || head === 'FHS' || head === 'BHS') && isSeparator(text.charAt(start + 3));
}

function firstNonBlank(text: string): number {
  let i = 0;
  while (i < text.length && (text.charCodeAt(i) <= 0x20 || text.charCodeAt(i) === 0xfeff)) i++;
  return i;
}

/** A field separator that is a letter, a digit, a blank or a line break would make every field ambiguous. */
function isSeparator(ch: string): boolean {
  return ch !== '' && !/[A-Za-z0-9\s]/.test(ch);
}

/** The separators a header segment (MSH, FHS, BHS) declares, or null when it declares none usable. */
function separatorsOf(segment: string): Separators | null {
  const field = segment.charAt(3);
  if (!isSeparator(field)) return null;
  const end = segment.indexOf(field, 4);
  const encodingCharacters = end === -1 ? segment.slice(4) : segment.slice(4, end);
  const [component = '^', repetition = '~', escape = '\\', subcomponent = '&'] = [...encodingCharacters];
  return { field, component, repetition, escape, subcomponent, encodingCharacters };
}

/** Keys read from one message (or batch) body. Never throws; a body that is not HL7 yields none. */
export function hl7Keys(text: string, part: Part, maxKeys: number): ClinicalKey[] {
  const keys: ClinicalKey[] = [];
  if (!looksLikeHl7(text)) return keys;
  let separators: Separators | null = null;
  let segments = 0;
  let start = firstNonBlank(text);
  // The next CR and LF, found with indexOf (native) rather than a scan of every character in script.
  let cr = text.indexOf('\r', start);
  let lf = text.indexOf('\n', start);
  while (start < text.length && segments < MAX_HL7_SEGMENTS && keys.length < maxKeys) {
    if (cr !== -1 && cr < start) cr = text.indexOf('\r', start);
    if (lf !== -1 && lf < start) lf = text.indexOf('\n', start);
    const end = cr === -1 ? (lf === -1 ? text.length : lf) : lf === -1 ? cr : Math.min(cr, lf);
    if (end > start) {
      segments++;
      // Only the segments read are cut out of the body: OBX and NTE, most of a result, are passed over.
      const name = text.slice(start, start + 3);
      if (READ_SEGMENTS.has(name)) {
        const segment = text.slice(start, end);
        if (name === 'MSH' || name === 'FHS' || name === 'BHS') separators = separatorsOf(segment) ?? separators;
        if (separators !== null && segment.charAt(3) === separators.field) readSegment(name, segment, { s: separators, part, keys, maxKeys });
      }
    }
    start = end + 1;
  }
  return keys;
}

/**
 * The fields of a segment by HL7 number, up to the last one read: MSH-1 is the separator itself, so MSH's numbering is
 * one off the split's.
 */
function fieldsOf(name: string, segment: string, s: Separators): (n: number) => string {
  const offset = name === 'MSH' ? 1 : 0;
  const fields = segment.split(s.field, (READ_SEGMENTS.get(name) ?? 0) + 1 - offset);
  return (n) => fields[n - offset] ?? '';
}

interface Reader {
  s: Separators;
  part: Part;
  keys: ClinicalKey[];
  maxKeys: number;
}

/** Components of one repetition, unescaped lazily: most fields read need one or two components. */
function components(repetition: string, s: Separators): string[] {
  return repetition.split(s.component);
}

function clean(text: string | undefined, s: Separators): string {
  if (text === undefined || text === '') return '';
  const value = text.includes(s.escape) ? unescapeText(text, { fieldSeparator: s.field, encodingCharacters: s.encodingCharacters }) : text;
  return value.trim().slice(0, MAX_KEY_LENGTH);
}

/** The first subcomponent of a component (HD.1, the namespace id), or its second (universal id) when that is empty. */
function hdName(component: string | undefined, s: Separators): string {
  if (component === undefined || component === '') return '';
  const [namespace, universal] = component.split(s.subcomponent);
  return clean(namespace, s) || clean(universal, s);
}

function push(r: Reader, key: Omit<ClinicalKey, 'part'>): void {
  if (key.value === '' || r.keys.length >= r.maxKeys) return;
  // Literals rather than a spread: this runs for every key of every indexed message.
  if (key.authority === undefined || key.authority === '') r.keys.push({ name: key.name, value: key.value, field: key.field, part: r.part });
  else r.keys.push({ name: key.name, value: key.value, authority: key.authority, field: key.field, part: r.part });
}

/** A field's repetitions, no more than could still be kept (a hostile field may repeat tens of thousands of times). */
function repetitions(r: Reader, field: string): string[] {
  return field === '' ? [] : field.split(r.s.repetition, Math.max(0, r.maxKeys - r.keys.length));
}

/** CX (PID-3, PID-18, PV1-19, MRG-1): ID number in component 1, the assigning authority in component 4. */
function readCx(r: Reader, field: string, name: ClinicalKey['name'], where: string): void {
  for (const repetition of repetitions(r, field)) {
    const c = components(repetition, r.s);
    push(r, { name, value: clean(c[0], r.s), authority: hdName(c[3], r.s), field: where });
  }
}

/** EI (ORC-2/3, OBR-2/3): entity identifier in component 1, its namespace in component 2 (or the universal id, 3). */
function readEi(r: Reader, field: string, where: string): void {
  for (const repetition of repetitions(r, field)) {
    const c = components(repetition, r.s);
    push(r, { name: 'orderNumber', value: clean(c[0], r.s), authority: clean(c[1], r.s) || clean(c[2], r.s), field: where });
  }
}

/** HD (MSH-3..6): the namespace id, or the universal id when it has none. */
function readHd(r: Reader, field: string, name: ClinicalKey['name'], where: string): void {
  const c = components(field, r.s);
  push(r, { name, value: clean(c[0], r.s) || clean(c[1], r.s), field: where });
}

function readSegment(name: string, segment: string, r: Reader): void {
  const { s } = r;
  switch (name) {
    case 'MSH': {
      const field = fieldsOf(name, segment, s);
      readHd(r, field(3), 'application', 'MSH-3');
      readHd(r, field(4), 'facility', 'MSH-4');
      readHd(r, field(5), 'application', 'MSH-5');
      readHd(r, field(6), 'facility', 'MSH-6');
      const [type = '', trigger = ''] = components(field(9), s).map((c) => clean(c, s));
      // Both forms, so a search for ADT and one for ADT^A01 each find it by equality.
      push(r, { name: 'messageType', value: type, field: 'MSH-9' });
      if (type !== '' && trigger !== '') push(r, { name: 'messageType', value: `${type}^${trigger}`, field: 'MSH-9' });
      push(r, { name: 'controlId', value: clean(field(10), s), field: 'MSH-10' });
      return;
    }
    case 'PID': {
      const field = fieldsOf(name, segment, s);
      readCx(r, field(3), 'patientId', 'PID-3');
      readCx(r, field(18), 'account', 'PID-18');
      return;
    }
    case 'MRG': {
      // A merge names the identifiers being retired: a search for the old one should find the merge too.
      const field = fieldsOf(name, segment, s);
      readCx(r, field(1), 'patientId', 'MRG-1');
      return;
    }
    case 'PV1': {
      readCx(r, fieldsOf(name, segment, s)(19), 'visit', 'PV1-19');
      return;
    }
    case 'ORC':
    case 'OBR': {
      const field = fieldsOf(name, segment, s);
      readEi(r, field(2), `${name}-2`);
      readEi(r, field(3), `${name}-3`);
      if (name === 'OBR') {
        for (const repetition of repetitions(r, field(4))) {
          const c = components(repetition, s);
          push(r, { name: 'orderedTest', value: clean(c[0], s) || clean(c[1], s), authority: clean(c[2], s), field: 'OBR-4' });
        }
      }
      return;
    }
    default:
      return;
  }
}
