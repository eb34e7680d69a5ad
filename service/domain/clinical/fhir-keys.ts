/**
 * Clinical keys of a FHIR JSON body (issue 37): a resource, or a Bundle (a transaction, a batch, a search set, a
 * message) whose entries hold resources, themselves possibly Bundles or resources with `contained` ones. Plain JSON,
 * no FHIR model: only `resourceType`, `id`, `identifier`, and the references to the patient are read, so the same
 * code reads R4, R4B and R5. The walk is bounded (depth and resources) so a hostile body costs little.
 */
import type { ClinicalKey, ClinicalKeyName } from './clinical-key.js';
import { MAX_KEY_LENGTH } from './clinical-key.js';

type Part = ClinicalKey['part'];

/** Nesting read: a Bundle in a Bundle's entry is common (a message wrapping a document); deeper is not. */
const MAX_DEPTH = 4;
/** Resources read of one body. */
export const MAX_FHIR_RESOURCES = 2_000;

/** Resources whose identifiers are order or accession numbers (placer, filler, accession), searched as `orderNumber`. */
const ORDER_RESOURCES: ReadonlySet<string> = new Set(['ServiceRequest', 'DiagnosticReport', 'Specimen']);

/** Where resources name their patient: `subject` (Observation, DiagnosticReport, ...), `patient` (AllergyIntolerance, Coverage's `beneficiary`, ...). */
const PATIENT_REFERENCES = ['subject', 'patient', 'beneficiary'] as const;

/** True when the body could be JSON (after blanks or a BOM): the cheap test before parsing. */
export function looksLikeJson(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code <= 0x20 || code === 0xfeff) continue;
    return code === 0x7b; // '{'
  }
  return false;
}

interface Walk {
  part: Part;
  keys: ClinicalKey[];
  maxKeys: number;
  resources: number;
}

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function text(value: unknown): string {
  return typeof value === 'string' ? value.trim().slice(0, MAX_KEY_LENGTH) : '';
}

function push(w: Walk, name: ClinicalKeyName, value: string, authority: string, field: string): void {
  if (value === '' || w.keys.length >= w.maxKeys) return;
  w.keys.push(authority === '' ? { name, value, field, part: w.part } : { name, value, authority, field, part: w.part });
}

/** Keys read from a FHIR JSON body. Never throws; a body that is not JSON, or JSON that is not FHIR, yields none. */
export function fhirKeys(body: string, part: Part, maxKeys: number): ClinicalKey[] {
  if (!looksLikeJson(body)) return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return [];
  }
  const w: Walk = { part, keys: [], maxKeys, resources: 0 };
  readResource(w, parsed, 0);
  return w.keys;
}

function readResource(w: Walk, value: unknown, depth: number): void {
  if (!isObject(value) || depth > MAX_DEPTH || w.resources >= MAX_FHIR_RESOURCES || w.keys.length >= w.maxKeys) return;
  const type = text(value.resourceType);
  if (!/^[A-Z][A-Za-z]{1,63}$/.test(type)) return;
  w.resources++;
  const id = text(value.id);
  if (id !== '') {
    push(w, 'resource', `${type}/${id}`, '', `${type}.id`);
    // Found by its own id as by a reference to it (Observation.subject "Patient/123").
    if (type === 'Patient') push(w, 'patientId', id, '', 'Patient.id');
  }
  const identifierKey: ClinicalKeyName = type === 'Patient' ? 'patientId' : ORDER_RESOURCES.has(type) ? 'orderNumber' : 'identifier';
  readIdentifiers(w, value.identifier, identifierKey, `${type}.identifier`);
  if (type === 'Specimen') readIdentifiers(w, value.accessionIdentifier, 'orderNumber', 'Specimen.accessionIdentifier');
  if (type === 'ServiceRequest') readIdentifiers(w, value.requisition, 'orderNumber', 'ServiceRequest.requisition');
  if (type !== 'Patient') {
    for (const name of PATIENT_REFERENCES) readPatientReference(w, value[name], `${type}.${name}`);
  }
  if (type === 'Bundle' && Array.isArray(value.entry)) {
    for (const entry of value.entry) {
      if (isObject(entry)) readResource(w, entry.resource, depth + 1);
    }
  }
  if (type === 'Parameters' && Array.isArray(value.parameter)) {
    for (const parameter of value.parameter) {
      if (isObject(parameter)) readResource(w, parameter.resource, depth + 1);
    }
  }
  if (Array.isArray(value.contained)) {
    for (const contained of value.contained) readResource(w, contained, depth + 1);
  }
}

/** One Identifier or a list of them: `system` is the authority. */
function readIdentifiers(w: Walk, value: unknown, name: ClinicalKeyName, field: string): void {
  const list = Array.isArray(value) ? value : [value];
  for (const identifier of list) {
    if (isObject(identifier)) push(w, name, text(identifier.value), text(identifier.system), field);
  }
}

/**
 * A Reference to the patient: `Patient/123` (relative, absolute, or with `_history`) is patient ID `123`; a logical
 * reference's `identifier` is a patient ID with its system. A reference to anything else (a Group, a Device) is not.
 */
function readPatientReference(w: Walk, value: unknown, field: string): void {
  const list = Array.isArray(value) ? value : [value];
  for (const reference of list) {
    if (!isObject(reference)) continue;
    const target = text(reference.reference);
    const declared = text(reference.type);
    const match = /(?:^|\/)([A-Z][A-Za-z]+)\/([A-Za-z0-9\-.]{1,64})(?:\/_history\/[^/]*)?$/.exec(target);
    const targetType = match?.[1] ?? declared;
    if (match !== null && match[1] === 'Patient') push(w, 'patientId', match[2] ?? '', '', field);
    if (targetType === '' || targetType === 'Patient') readIdentifiers(w, reference.identifier, 'patientId', `${field}.identifier`);
  }
}
