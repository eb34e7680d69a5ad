/**
 * The audits API query (OpenHIM's `filters` JSON, `filterLimit`, `filterPage`) as an `AuditFilter` and a page. Only the
 * keys OpenHIM's console sends are understood, each mapped to one condition; any other key is a 400 naming it, never
 * passed on to a query (OpenHIM hands them to Mongo, operators included). Pure: no I/O.
 *
 * The patient ID filter arrives as a regular expression source, `<patientID>\^\^\^<authority>&<authorityID>&.*`
 * (or OpenHIM's `{type: 'AND', patientID, objectID}`). Its literal leading part becomes the index prefix and the rest a
 * linear-time pattern (domain/util/safe-pattern.ts). It matches from the start of the object ID, as a CX identifier starts
 * with the patient's ID: OpenHIM's unanchored regex also finds patient 123 inside 99123^^^...
 */
import type { ValidationProblem } from '../../contracts/api.js';
import { pageWindow } from '../util/paging.js';
import { isPlainObject } from '../util/plain-object.js';
import { patternProblem } from '../util/safe-pattern.js';

/** Coded fields a filter can name; participants' and objects' codes match when any participant or object has them. */
export type AuditCodeField = 'eventID' | 'eventTypeCode' | 'roleIDCode' | 'participantObjectIDTypeCode';

/** An exact match on the given parts of a coded field (at least one part is given). */
export interface AuditCodeMatch {
  field: AuditCodeField;
  code?: string;
  codeSystemName?: string;
  displayName?: string;
}

/**
 * A match on a participant object's ID: it starts with `prefix` (which may be empty) and, when `pattern` is given,
 * matches that regular expression as well. The prefix lets an engine use its index; the pattern has been checked as
 * safe (domain/util/safe-pattern.ts) by whoever built the filter.
 */
export interface AuditObjectIdMatch {
  prefix: string;
  pattern?: string;
}

/**
 * What `GET /audits` may filter on (OpenHIM's console filters, on an allow list). Every given condition must hold.
 * Text conditions are exact. Conditions on participants or objects hold when any one of them matches (each condition
 * on its own, as OpenHIM's queries on arrays do).
 */
export interface AuditFilter {
  /** Inclusive bounds on `eventIdentification.eventDateTime`. */
  from?: Date;
  to?: Date;
  codes?: readonly AuditCodeMatch[];
  eventActionCode?: string;
  eventOutcomeIndicator?: string;
  auditSourceID?: string;
  /** Any active participant's. */
  userID?: string;
  alternativeUserID?: string;
  networkAccessPointID?: string;
  /** Any participant object's detail with this type and/or value. */
  participantObjectDetailType?: string;
  participantObjectDetailValue?: string;
  /** Each must hold for some participant object (OpenHIM's patient ID filter, or its AND form with an object ID). */
  participantObjectID?: readonly AuditObjectIdMatch[];
}

/** Most audits one `GET /audits` page answers; `filterLimit=0` (OpenHIM's "no limit") and no limit mean this many. Every record: `GET /audits/export`. */
export const MAX_AUDIT_PAGE = 1000;

/** OpenHIM's text for a patient ID with characters other than word characters and hyphens. */
export const PATIENT_ID_CHARACTERS = 'Special characters (except for hyphens(-)) not allowed in PatientID filter field';

const PATIENT_ID_KEY = 'participantObjectIdentification.participantObjectID';
const DATE_KEY = 'eventIdentification.eventDateTime';
const MAX_TEXT = 1000;
const MAX_PATTERN = 500;

const CODE_PREFIXES: Record<string, AuditCodeField> = {
  'eventIdentification.eventTypeCode': 'eventTypeCode',
  'eventIdentification.eventID': 'eventID',
  'activeParticipant.roleIDCode': 'roleIDCode',
  'participantObjectIdentification.participantObjectIDTypeCode': 'participantObjectIDTypeCode',
};
const CODE_PARTS = ['code', 'codeSystemName', 'displayName'] as const;

type TextField = 'eventActionCode' | 'eventOutcomeIndicator' | 'userID' | 'alternativeUserID' | 'networkAccessPointID' | 'participantObjectDetailType' | 'participantObjectDetailValue' | 'auditSourceID';
const TEXT_KEYS: Record<string, TextField> = {
  'eventIdentification.eventActionCode': 'eventActionCode',
  'eventIdentification.eventOutcomeIndicator': 'eventOutcomeIndicator',
  'activeParticipant.userID': 'userID',
  'activeParticipant.alternativeUserID': 'alternativeUserID',
  'activeParticipant.networkAccessPointID': 'networkAccessPointID',
  'participantObjectIdentification.participantObjectDetail.type': 'participantObjectDetailType',
  'participantObjectIdentification.participantObjectDetail.value': 'participantObjectDetailValue',
  'auditSourceIdentification.auditSourceID': 'auditSourceID',
};

/** Every `filters` key the audits API understands: the ones OpenHIM's console sends. */
export const AUDIT_FILTER_KEYS: readonly string[] = [
  DATE_KEY,
  PATIENT_ID_KEY,
  ...Object.keys(CODE_PREFIXES).flatMap((prefix) => CODE_PARTS.map((part) => `${prefix}.${part}`)),
  ...Object.keys(TEXT_KEYS),
];

type Problem = { problem: string; sub?: string };
type Result<T> = { ok: true; value: T } | { ok: false; problems: ValidationProblem[] };

const ISO_DATE = /^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?)?$/;

function parseDate(value: unknown): Date | null {
  if (typeof value === 'number' && Number.isFinite(value)) return new Date(value);
  if (typeof value !== 'string' || !ISO_DATE.test(value.trim())) return null;
  const date = new Date(value.trim());
  return Number.isNaN(date.getTime()) ? null : date;
}

/** `{"$gte": date, "$lte": date}`, an object or (as the console sends it) its JSON text. */
function dateRange(value: unknown): Partial<AuditFilter> | Problem {
  const shape = 'must be {"$gte": date, "$lte": date} (an object or its JSON text) with at least one bound';
  let range = value;
  if (typeof value === 'string') {
    try {
      range = JSON.parse(value);
    } catch {
      return { problem: shape };
    }
  }
  if (!isPlainObject(range) || Object.keys(range).length === 0) return { problem: shape };
  const unknown = Object.keys(range).find((k) => k !== '$gte' && k !== '$lte');
  if (unknown !== undefined) return { problem: `has an unknown bound "${unknown}"; use $gte and $lte` };
  const set: Partial<AuditFilter> = {};
  for (const [bound, field] of [['$gte', 'from'], ['$lte', 'to']] as const) {
    if (range[bound] === undefined) continue;
    const date = parseDate(range[bound]);
    if (date === null) return { problem: 'must be an ISO 8601 date such as 2024-05-01T00:00:00Z', sub: bound };
    set[field] = date;
  }
  if (set.from !== undefined && set.to !== undefined && set.from > set.to) return { problem: 'has $gte after $lte' };
  return set;
}

/** An exact text value; the console's text boxes send strings, a number (an outcome such as 4) is read as its digits. */
function exactText(value: unknown): string | null {
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  if (typeof value !== 'string' || value === '' || value.length > MAX_TEXT) return null;
  return value;
}

/** A regex source sent as JSON text of a string (as the console sends it) or as the source itself. */
function regexSource(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  let source = value;
  try {
    const parsed: unknown = JSON.parse(value);
    if (typeof parsed === 'string') source = parsed;
  } catch {
    // Not JSON: the source itself.
  }
  return source;
}

const QUANTIFIERS = new Set(['*', '+', '?', '{']);
const META = new Set(['.', '*', '+', '?', '(', ')', '[', ']', '{', '}', '|', '^', '$', '\\']);

/**
 * The literal text every match of `source` starts with (when matched from its start), and whether that is all the
 * pattern says (nothing but an optional trailing `.*` follows). Escaped punctuation (`\^`, `\.`) is literal; a class
 * escape (`\w`) or any metacharacter ends the run, and a character a quantifier applies to is not part of it.
 */
export function literalPrefix(source: string): { prefix: string; whole: boolean } {
  let prefix = '';
  let i = 0;
  while (i < source.length) {
    const c = source.charAt(i);
    let literal: string;
    let width: number;
    if (c === '\\') {
      const next = source.charAt(i + 1);
      if (next === '' || /[A-Za-z0-9]/.test(next)) break;
      literal = next;
      width = 2;
    } else if (META.has(c)) {
      break;
    } else {
      literal = c;
      width = 1;
    }
    if (QUANTIFIERS.has(source.charAt(i + width))) break;
    prefix += literal;
    i += width;
  }
  const rest = source.slice(i);
  return { prefix, whole: rest === '' || rest === '.*' };
}

/** One regex condition on a participant object's ID, anchored at its start. */
function objectIdMatch(source: string): AuditObjectIdMatch | Problem {
  if (source.length > MAX_PATTERN) return { problem: `must be a regular expression of at most ${MAX_PATTERN} characters` };
  const { prefix, whole } = literalPrefix(source);
  if (whole) return { prefix };
  const pattern = `^(?:${source})`;
  const problem = patternProblem(pattern);
  return problem === null ? { prefix, pattern } : { problem };
}

/** The patient ID part: the text before the first `\^` must be word characters and hyphens only (OpenHIM's rule). */
function patientIdMatch(value: unknown): AuditObjectIdMatch | Problem {
  const source = regexSource(value);
  if (source === null) return { problem: 'must be a regular expression such as 12345\\^\\^\\^Clinic&1.2.3&.* (or its JSON text)' };
  const cut = source.indexOf('\\^');
  const patientID = cut === -1 ? source : source.slice(0, cut);
  if (!/^[\w-]*$/.test(patientID)) return { problem: PATIENT_ID_CHARACTERS };
  return objectIdMatch(source);
}

/** The patient ID filter: a regex source, or `{type: 'AND', patientID, objectID}` (both must match one object). */
function participantObjectIds(value: unknown): AuditObjectIdMatch[] | Problem {
  if (!isPlainObject(value)) {
    const match = patientIdMatch(value);
    return 'problem' in match ? match : [match];
  }
  const unknown = Object.keys(value).find((k) => k !== 'type' && k !== 'patientID' && k !== 'objectID');
  if (unknown !== undefined) return { problem: 'has an unknown field; send {type: "AND", patientID, objectID}', sub: unknown };
  if (value.type !== 'AND') return { problem: 'must be "AND"', sub: 'type' };
  const patient = patientIdMatch(value.patientID);
  if ('problem' in patient) return { ...patient, sub: 'patientID' };
  const objectSource = regexSource(value.objectID);
  if (objectSource === null) return { problem: 'must be a regular expression (or its JSON text)', sub: 'objectID' };
  // The object ID is searched anywhere in the ID, as OpenHIM's regex is: an unanchored pattern and no prefix.
  if (objectSource.length > MAX_PATTERN) return { problem: `must be a regular expression of at most ${MAX_PATTERN} characters`, sub: 'objectID' };
  const problem = patternProblem(objectSource);
  if (problem !== null) return { problem, sub: 'objectID' };
  return [patient, { prefix: '', pattern: objectSource }];
}

/** One key's condition, added to `filter`; or what is wrong with its value. */
function translateKey(filter: AuditFilter, key: string, value: unknown): Problem | null {
  if (key === DATE_KEY) {
    const range = dateRange(value);
    if ('problem' in range) return range;
    Object.assign(filter, range);
    return null;
  }
  if (key === PATIENT_ID_KEY) {
    const matches = participantObjectIds(value);
    if ('problem' in matches) return matches;
    filter.participantObjectID = matches;
    return null;
  }
  const textField = TEXT_KEYS[key];
  const text = exactText(value);
  if (text === null) return { problem: `must be a text of 1 to ${MAX_TEXT} characters` };
  if (textField !== undefined) {
    filter[textField] = text;
    return null;
  }
  const dot = key.lastIndexOf('.');
  const field = CODE_PREFIXES[key.slice(0, dot)];
  const part = key.slice(dot + 1) as (typeof CODE_PARTS)[number];
  if (field === undefined) return { problem: 'is not a known filter' };
  // One condition per key: on participants and objects each holds for any one of them, as OpenHIM's array queries do.
  const match: AuditCodeMatch = { field, [part]: text };
  filter.codes = [...(filter.codes ?? []), match];
  return null;
}

/** The `filters` JSON text as an `AuditFilter`; problems are named under `querystring.filters.<key>`. */
export function parseAuditFilters(text: string | undefined): Result<AuditFilter> {
  if (text === undefined || text.trim() === '') return { ok: true, value: {} };
  const at = 'querystring.filters';
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { ok: false, problems: [{ path: at, message: 'must be a JSON object' }] };
  }
  if (!isPlainObject(parsed)) return { ok: false, problems: [{ path: at, message: 'must be a JSON object' }] };
  const problems: ValidationProblem[] = [];
  const filter: AuditFilter = {};
  for (const [key, value] of Object.entries(parsed)) {
    const path = `${at}.${key}`;
    if (!AUDIT_FILTER_KEYS.includes(key)) {
      problems.push({ path, message: `is not a known filter; use one of: ${AUDIT_FILTER_KEYS.join(', ')}` });
      continue;
    }
    const problem = translateKey(filter, key, value);
    if (problem !== null) problems.push({ path: problem.sub === undefined ? path : `${path}.${problem.sub}`, message: problem.problem });
  }
  return problems.length > 0 ? { ok: false, problems } : { ok: true, value: filter };
}

export interface AuditQueryInput {
  filters?: string;
  filterLimit?: number;
  filterPage?: number;
}

export interface ParsedAuditQuery {
  filter: AuditFilter;
  limit: number;
  skip: number;
}

/**
 * The list query: filters and a page. `filterLimit` 0 or absent (OpenHIM's "everything") answers MAX_AUDIT_PAGE
 * records; more is refused with a 400 that points at the export, so no page is built beyond that in memory.
 */
export function parseAuditQuery(input: AuditQueryInput): Result<ParsedAuditQuery> {
  const problems: ValidationProblem[] = [];
  const asked = input.filterLimit ?? 0;
  if (!Number.isInteger(asked) || asked < 0 || asked > MAX_AUDIT_PAGE) {
    problems.push({ path: 'querystring.filterLimit', message: `must be an integer from 1 to ${MAX_AUDIT_PAGE} (0: ${MAX_AUDIT_PAGE}); GET /audits/export answers every record` });
  }
  const limit = asked === 0 ? MAX_AUDIT_PAGE : asked;
  const page = input.filterPage ?? 0;
  const window = Number.isInteger(page) && page >= 0 ? pageWindow(limit, page) : null;
  if (window === null) problems.push({ path: 'querystring.filterPage', message: 'must be an integer of 0 or more, and filterPage × filterLimit an exact integer' });
  const filters = parseAuditFilters(input.filters);
  if (!filters.ok) problems.push(...filters.problems);
  if (problems.length > 0 || window === null || !filters.ok) return { ok: false, problems };
  return { ok: true, value: { filter: filters.value, limit: window.limit, skip: window.skip } };
}
