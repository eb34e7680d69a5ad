/**
 * HL7 v2 character set names (table 0211, as MSH-18 gives them) and what each is outside HL7: the IANA charset name an
 * HTTP `Content-Type` must carry (`8859/1` means nothing to an HTTP server; `ISO-8859-1` does), and the WHATWG label
 * TextDecoder reads it with (Node ships full ICU). A name with no IANA charset has `iana: null`: the message is sent
 * without a charset parameter rather than with a name no receiver knows.
 */

export interface Hl7CharacterSet {
  /** The IANA charset name (https://www.iana.org/assignments/character-sets), or null when there is none. */
  iana: string | null;
  /** The WHATWG encoding label to decode it with, or null when no decoder reads it (shown as UTF-8). */
  decoder: string | null;
}

const latin = (n: number): Hl7CharacterSet => ({ iana: `ISO-8859-${n}`, decoder: `iso-8859-${n}` });

/** HL7 table 0211, by the name as written in MSH-18 (upper case; matched without regard to case). */
export const HL7_CHARACTER_SETS: Readonly<Record<string, Hl7CharacterSet>> = {
  ASCII: { iana: 'US-ASCII', decoder: 'utf-8' },
  '8859/1': latin(1),
  '8859/2': latin(2),
  '8859/3': latin(3),
  '8859/4': latin(4),
  '8859/5': latin(5),
  '8859/6': latin(6),
  '8859/7': latin(7),
  '8859/8': latin(8),
  '8859/9': latin(9),
  '8859/15': { iana: 'ISO-8859-15', decoder: 'iso-8859-15' },
  // The ISO-IR registration numbers (DICOM's names for the same sets).
  'ISO IR6': { iana: 'US-ASCII', decoder: 'utf-8' },
  'ISO IR14': { iana: 'JIS_C6220-1969-ro', decoder: null },
  'ISO IR13': { iana: 'JIS_X0201', decoder: null },
  'ISO IR87': { iana: 'JIS_C6226-1983', decoder: null },
  'ISO IR159': { iana: 'JIS_X0212-1990', decoder: null },
  'ISO IR100': latin(1),
  'ISO IR101': latin(2),
  'ISO IR109': latin(3),
  'ISO IR110': latin(4),
  'ISO IR144': latin(5),
  'ISO IR127': latin(6),
  'ISO IR126': latin(7),
  'ISO IR138': latin(8),
  'ISO IR148': latin(9),
  'ISO IR192': { iana: 'UTF-8', decoder: 'utf-8' },
  // HL7's UNICODE is UCS-2: read as UTF-16 (its superset); IANA names it ISO-10646-UCS-2.
  UNICODE: { iana: 'ISO-10646-UCS-2', decoder: 'utf-16le' },
  'UNICODE UTF-8': { iana: 'UTF-8', decoder: 'utf-8' },
  'UNICODE UTF-16': { iana: 'UTF-16', decoder: 'utf-16le' },
  'UNICODE UTF-32': { iana: 'UTF-32', decoder: null },
  'GB 18030-2000': { iana: 'GB18030', decoder: 'gb18030' },
  // KS X 1001 travels as EUC-KR, the name receivers decode it by.
  'KS X 1001': { iana: 'EUC-KR', decoder: 'euc-kr' },
  'BIG-5': { iana: 'Big5', decoder: 'big5' },
  'CNS 11643-1992': { iana: null, decoder: null },
  // Seen from senders that cut the name at its first space or dash.
  GB: { iana: 'GB18030', decoder: 'gb18030' },
  BIG: { iana: 'Big5', decoder: 'big5' },
};

/** The table entry for an HL7 name, or undefined when table 0211 has no such name. */
export function hl7CharacterSet(name: string): Hl7CharacterSet | undefined {
  return Object.hasOwn(HL7_CHARACTER_SETS, name.trim().toUpperCase()) ? HL7_CHARACTER_SETS[name.trim().toUpperCase()] : undefined;
}

/** The IANA charset for an MSH-18 value, or null when it has none or is no name of table 0211. */
export function ianaCharsetOf(hl7Name: string): string | null {
  return hl7CharacterSet(hl7Name)?.iana ?? null;
}
