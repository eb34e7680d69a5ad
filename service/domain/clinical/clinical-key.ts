/**
 * Clinical keys (issue 37): the identifiers support staff search by, read from a stored request or response body as
 * its transaction is indexed. Pure types and normalisation shared by the extraction, both storage engines, the API
 * and the console, so a key means the same thing wherever it is read.
 */

/**
 * What a key identifies. The four the API filters on (`SearchableKeyName`) plus the ones kept to show and link:
 * `account` (PID-18), `visit` (PV1-19), `application` and `facility` (MSH-3..6), `orderedTest` (OBR-4),
 * `resource` (a FHIR resource's `Type/id`), `identifier` (a FHIR identifier that is not a patient's or an order's).
 */
export type ClinicalKeyName =
  | 'patientId'
  | 'orderNumber'
  | 'controlId'
  | 'messageType'
  | 'account'
  | 'visit'
  | 'application'
  | 'facility'
  | 'orderedTest'
  | 'resource'
  | 'identifier';

/** The keys `GET /transactions` filters on. */
export type SearchableKeyName = 'patientId' | 'orderNumber' | 'controlId' | 'messageType';

export const SEARCHABLE_KEY_NAMES: readonly SearchableKeyName[] = ['patientId', 'orderNumber', 'controlId', 'messageType'];

/** The names `any` stands for. */
export const ANY_KEY_NAMES: readonly SearchableKeyName[] = ['patientId', 'orderNumber', 'controlId'];

export interface ClinicalKey {
  name: ClinicalKeyName;
  /** As written in the message (trimmed). Matching uses `normaliseKeyValue`. */
  value: string;
  /** Who issued the identifier: PID-3.4 / ORC-2.2 namespace, a FHIR identifier's `system`. */
  authority?: string;
  /** Where it was read, for showing and highlighting: `PID-3`, `ORC-2`, `MSH-10`, `Patient.identifier`, `Observation.subject`. */
  field: string;
  /** Which body it came from. */
  part: 'request' | 'response';
}

/**
 * One condition on the keys: a transaction matches when one of its keys has this name and value (and authority, when
 * given). `any` matches a patient ID, an order number or a control ID: the console's one search box.
 */
export interface KeyCondition {
  name: SearchableKeyName | 'any';
  value: string;
  authority?: string;
}

/** Longest key value or authority kept (longer ones are cut): identifiers are short; this bounds a hostile body. */
export const MAX_KEY_LENGTH = 200;

/** How values and authorities are compared: trimmed, Unicode-normalised, case-insensitive. */
export function normaliseKeyValue(value: string): string {
  // Plain ASCII (most identifiers) is its own NFC form: the normalisation, which costs, is skipped.
  // eslint-disable-next-line no-control-regex
  const text = /^[\x00-\x7f]*$/.test(value) ? value.trim() : value.trim().normalize('NFC');
  return text.toLowerCase().slice(0, MAX_KEY_LENGTH);
}
