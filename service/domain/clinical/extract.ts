/**
 * The clinical keys of a stored body (issue 37), whatever it is: HL7 v2 (from MLLP, TCP or HTTP), FHIR JSON, or
 * anything else, which yields none. Told apart by the body's first characters, not its content type, because MLLP
 * bodies have none and HTTP senders often send HL7 as text/plain. Never throws; bounded in keys and in work, so a
 * hostile body costs what a large message costs. Keys are deduplicated (a batch repeats its patient in every message).
 */
import type { ClinicalKey } from './clinical-key.js';
import { normaliseKeyValue } from './clinical-key.js';
import { hl7Keys, looksLikeHl7 } from './hl7-keys.js';
import { fhirKeys, looksLikeJson } from './fhir-keys.js';

/** The most keys kept of one transaction: a message about one patient has tens; a batch may have a few hundred. */
export const MAX_KEYS_PER_TRANSACTION = 1_000;

/** The keys of one body, deduplicated. */
export function clinicalKeysOf(body: string, part: ClinicalKey['part'], maxKeys = MAX_KEYS_PER_TRANSACTION): ClinicalKey[] {
  let keys: ClinicalKey[] = [];
  try {
    if (looksLikeHl7(body)) keys = hl7Keys(body, part, maxKeys * 2);
    else if (looksLikeJson(body)) keys = fhirKeys(body, part, maxKeys * 2);
  } catch {
    // Both readers are written not to throw; a body must never stop indexing, whatever it holds.
    return [];
  }
  return distinctKeys(keys, maxKeys);
}

/** The keys of a transaction's bodies together, deduplicated across them (the request's kept first). */
export function transactionKeys(bodies: readonly { text: string; part: ClinicalKey['part'] }[], maxKeys = MAX_KEYS_PER_TRANSACTION): ClinicalKey[] {
  return distinctKeys(
    bodies.flatMap((body) => clinicalKeysOf(body.text, body.part, maxKeys)),
    maxKeys,
  );
}

/** One key per name, normalised value, authority and part: the first seen (its field is where it is shown). */
export function distinctKeys(keys: readonly ClinicalKey[], maxKeys = MAX_KEYS_PER_TRANSACTION): ClinicalKey[] {
  const seen = new Set<string>();
  const out: ClinicalKey[] = [];
  for (const key of keys) {
    if (out.length >= maxKeys) break;
    const id = `${key.name}\u0000${normaliseKeyValue(key.value)}\u0000${normaliseKeyValue(key.authority ?? '')}\u0000${key.part}`;
    if (seen.has(id) || normaliseKeyValue(key.value) === '') continue;
    seen.add(id);
    out.push(key);
  }
  return out;
}
