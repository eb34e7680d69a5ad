/**
 * The identifiers a message shows that the list can search by (issue 37): patient identifiers and order numbers of an
 * HL7 v2 message or a FHIR resource or Bundle, each linked to "every message with this value", and the places a
 * searched value appears, to highlight them. Pure and forgiving: a body it cannot read gives none.
 */
import type { Hl7Message } from './hl7';

export type LinkedKeyName = 'patientId' | 'orderNumber';

export interface MessageKey {
  name: LinkedKeyName;
  value: string;
  authority?: string;
  /** Where it was read: `PID-3`, `ORC-2`, `Patient.identifier`. */
  field: string;
}

/** Fields whose first component is an order number. */
const ORDER_FIELDS = ['ORC-2', 'ORC-3', 'OBR-2', 'OBR-3'];
/** Most keys listed for one message: a batch may hold thousands. */
export const MAX_MESSAGE_KEYS = 50;

/** The repetition separator a message declares (MSH-2's second character), `~` when it has none. */
export function repetitionSeparator(message: Hl7Message): string {
  const encoding = message.segments.find((s) => s.id === 'MSH')?.fields.find((f) => f.number === 2)?.text ?? '';
  return encoding.length > 1 ? encoding.charAt(1) : '~';
}

function add(keys: MessageKey[], seen: Set<string>, key: MessageKey): void {
  const id = `${key.name}|${key.value.toLowerCase()}|${(key.authority ?? '').toLowerCase()}`;
  if (key.value === '' || seen.has(id) || keys.length >= MAX_MESSAGE_KEYS) return;
  seen.add(id);
  keys.push(key);
}

/** Every PID-3 identifier (with its assigning authority, PID-3.4) and every ORC-2/3, OBR-2/3 order number. */
export function hl7Keys(message: Hl7Message): MessageKey[] {
  const keys: MessageKey[] = [];
  const seen = new Set<string>();
  const repetition = repetitionSeparator(message);
  const component = message.componentSeparator;
  for (const segment of message.segments) {
    for (const field of segment.fields) {
      const position = `${segment.id}-${field.number}`;
      const patient = position === 'PID-3';
      if (!patient && !ORDER_FIELDS.includes(position)) continue;
      for (const rep of field.text.split(repetition)) {
        const parts = rep.split(component);
        const value = (parts[0] ?? '').trim();
        // PID-3.4 is a hierarchic designator: its namespace is the part before the first subcomponent separator.
        const authority = patient ? (parts[3] ?? '').split('&')[0]?.trim() : undefined;
        add(keys, seen, { name: patient ? 'patientId' : 'orderNumber', value, field: position, ...(authority === undefined || authority === '' ? {} : { authority }) });
      }
    }
  }
  return keys;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function identifiers(resource: Record<string, unknown>): { system?: string; value: string }[] {
  const list = Array.isArray(resource.identifier) ? (resource.identifier as unknown[]) : isObject(resource.identifier) ? [resource.identifier] : [];
  return list.filter(isObject).flatMap((id) => (typeof id.value === 'string' ? [{ value: id.value, ...(typeof id.system === 'string' ? { system: id.system } : {}) }] : []));
}

/** Resources whose identifiers the index reads as order numbers (service/domain/clinical/fhir-keys.ts). */
const ORDER_RESOURCES: ReadonlySet<string> = new Set(['ServiceRequest', 'DiagnosticReport', 'Specimen']);

/** A Patient's identifiers (system as the authority) and an order's, of a resource or a Bundle's entries. */
export function fhirKeys(body: string): MessageKey[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return [];
  }
  if (!isObject(parsed)) return [];
  const resources = parsed.resourceType === 'Bundle' && Array.isArray(parsed.entry) ? (parsed.entry as unknown[]).filter(isObject).map((e) => e.resource).filter(isObject) : [parsed];
  const keys: MessageKey[] = [];
  const seen = new Set<string>();
  for (const resource of resources) {
    const type = resource.resourceType;
    if (typeof type !== 'string' || (type !== 'Patient' && !ORDER_RESOURCES.has(type))) continue;
    for (const id of identifiers(resource)) {
      const name: LinkedKeyName = type === 'Patient' ? 'patientId' : 'orderNumber';
      add(keys, seen, { name, value: id.value.trim(), field: `${type}.identifier`, ...(name === 'patientId' && id.system !== undefined ? { authority: id.system } : {}) });
    }
  }
  return keys;
}

export interface TextPart {
  text: string;
  marked: boolean;
}

/** The text cut where `needle` appears (any case), each appearance marked; the whole text unmarked when it does not. */
export function markedParts(text: string, needle: string): TextPart[] {
  const wanted = needle.trim().toLowerCase();
  if (wanted === '') return [{ text, marked: false }];
  const lower = text.toLowerCase();
  const parts: TextPart[] = [];
  let at = 0;
  for (let found = lower.indexOf(wanted); found !== -1; found = lower.indexOf(wanted, found + wanted.length)) {
    if (found > at) parts.push({ text: text.slice(at, found), marked: false });
    parts.push({ text: text.slice(found, found + wanted.length), marked: true });
    at = found + wanted.length;
  }
  if (at < text.length || parts.length === 0) parts.push({ text: text.slice(at), marked: false });
  return parts;
}

/** The words of a text search as the storage splits it: runs of letters and digits, any case. */
export function searchWords(text: string): string[] {
  return text.normalize('NFC').toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
}

/**
 * The text with each whole word of `words` marked (any case), as a text search matched it: `low` marks "LOW" but not
 * "below". The whole text unmarked when none appears.
 */
export function markedWords(text: string, words: readonly string[]): TextPart[] {
  const wanted = new Set(words.map((w) => w.normalize('NFC').toLowerCase()));
  if (wanted.size === 0) return [{ text, marked: false }];
  const parts: TextPart[] = [];
  let at = 0;
  for (const found of text.matchAll(/[\p{L}\p{N}]+/gu)) {
    if (!wanted.has(found[0].normalize('NFC').toLowerCase())) continue;
    if (found.index > at) parts.push({ text: text.slice(at, found.index), marked: false });
    parts.push({ text: found[0], marked: true });
    at = found.index + found[0].length;
  }
  if (at < text.length || parts.length === 0) parts.push({ text: text.slice(at), marked: false });
  return parts;
}

/** Whether one repetition of a field is the searched key: its first component equals the value, any case. */
export function repetitionMatches(repetition: string, component: string, value: string): boolean {
  return (repetition.split(component)[0] ?? '').trim().toLowerCase() === value.trim().toLowerCase();
}
