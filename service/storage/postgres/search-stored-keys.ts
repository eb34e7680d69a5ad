/**
 * The keys of one transaction as `search_docs.keys` keeps them (migration 11): only ever read back whole, to show
 * which keys made a row match, so they are kept as small as they go. A list of [name, value, field, part,
 * authority?] in JSON, deflated against a dictionary of the names, fields and parts extraction writes most: about 90
 * bytes a transaction of the benchmark's corpus for its searchable keys (155 for all its keys, which took 600 as
 * jsonb). The first byte is the format, so a later dictionary can be told from this one.
 */
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import type { ClinicalKey, ClinicalKeyName } from '../../domain/clinical/clinical-key.js';

const FORMAT = 1;

/**
 * What the keys of HL7 and FHIR messages usually say, the likeliest last (deflate finds nearer matches cheaper).
 * Never edited once released: rows written with it are read with it. A new dictionary is a new FORMAT.
 */
const DICTIONARY = Buffer.from([
  '["resource","Bundle/","Bundle.id","request"]',
  '["identifier","Observation/","Observation.identifier","response"]',
  '["patientId","Observation.subject","request","http://hl7.org/fhir/sid/us-ssn"]',
  '["orderNumber","ServiceRequest.identifier","request","http://"]',
  '["patientId","Patient.identifier","request","urn:oid:"]',
  '["account","PID-18","request"],["visit","PV1-19","request"],["orderedTest","OBR-4","request","LN"]',
  '["orderNumber","ORC-2","request"],["orderNumber","ORC-3","request"],["orderNumber","OBR-2","request"]',
  '["application","MSH-3","response"],["facility","MSH-4","response"],["application","MSH-5","response"],["facility","MSH-6","response"]',
  '["messageType","ACK","MSH-9","response"],["messageType","ACK^","MSH-9","response"],["controlId","ACK","MSH-10","response"]',
  '["application","MSH-3","request"],["facility","MSH-4","request"],["application","MSH-5","request"],["facility","MSH-6","request"]',
  '["messageType","MSH-9","request"],["controlId","MSH-10","request"],["patientId","PID-3","request"]',
].join(','));

type StoredKey = [ClinicalKeyName, string, string, 'request' | 'response'] | [ClinicalKeyName, string, string, 'request' | 'response', string];

/** The keys as stored; null for none. */
export function packKeys(keys: readonly ClinicalKey[]): Buffer | null {
  if (keys.length === 0) return null;
  const stored: StoredKey[] = keys.map((k) => (k.authority === undefined ? [k.name, k.value, k.field, k.part] : [k.name, k.value, k.field, k.part, k.authority]));
  return Buffer.concat([Buffer.of(FORMAT), deflateRawSync(JSON.stringify(stored), { dictionary: DICTIONARY })]);
}

/** The keys of a stored value, as they were written. */
export function unpackKeys(packed: Buffer): ClinicalKey[] {
  if (packed[0] !== FORMAT) throw new Error(`search index: stored keys of an unknown format ${String(packed[0])}`);
  const stored = JSON.parse(inflateRawSync(packed.subarray(1), { dictionary: DICTIONARY }).toString('utf8')) as StoredKey[];
  return stored.map(([name, value, field, part, authority]) => (authority === undefined ? { name, value, field, part } : { name, value, field, part, authority }));
}
