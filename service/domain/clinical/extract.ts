/**
 * The clinical keys of a stored body (issue 37), whatever it is: HL7 v2 (from MLLP, TCP or HTTP), FHIR JSON, or
 * anything else, which yields none. Told apart by the body's first characters, not its content type, because MLLP
 * bodies have none and HTTP senders often send HL7 as text/plain. Never throws; bounded in keys and in work, so a
 * hostile body costs what a large message costs. Keys are deduplicated (a batch repeats its patient in every message).
 */
import type { ClinicalKey } from './clinical-key.js';
import { MAX_KEY_LENGTH, normaliseKeyValue } from './clinical-key.js';
import { hl7Keys, looksLikeHl7 } from './hl7-keys.js';
import { fhirKeys, looksLikeJson } from './fhir-keys.js';

/** The most keys kept of one transaction: a message about one patient has tens; a batch may have a few hundred. */
export const MAX_KEYS_PER_TRANSACTION = 1_000;

/** The keys of one body, deduplicated. */
export function clinicalKeysOf(body: string, part: ClinicalKey['part'], maxKeys = MAX_KEYS_PER_TRANSACTION): ClinicalKey[] {
  return distinctKeys(keysRead(body, part, maxKeys), maxKeys);
}

/** The keys of a transaction's bodies together, deduplicated across them (the request's kept first). */
export function transactionKeys(bodies: readonly { text: string; part: ClinicalKey['part'] }[], maxKeys = MAX_KEYS_PER_TRANSACTION): ClinicalKey[] {
  return distinctKeys(
    bodies.flatMap((body) => keysRead(body.text, body.part, maxKeys)),
    maxKeys,
  );
}

/** Every key read, repeats included; twice the cap, so repeats dropped later still leave `maxKeys`. */
function keysRead(body: string, part: ClinicalKey['part'], maxKeys: number): ClinicalKey[] {
  try {
    if (looksLikeHl7(body)) return hl7Keys(body, part, maxKeys * 2);
    if (looksLikeJson(body)) return fhirKeys(body, part, maxKeys * 2);
  } catch {
    // Both readers are written not to throw; a body must never stop indexing, whatever it holds.
  }
  return [];
}

/** As `normaliseKeyValue` compares, without Unicode normalisation for plain ASCII (most identifiers), which costs. */
function comparable(text: string): string {
  // eslint-disable-next-line no-control-regex
  return /^[\x00-\x7f]*$/.test(text) ? text.trim().toLowerCase().slice(0, MAX_KEY_LENGTH) : normaliseKeyValue(text);
}

interface Kept {
  name: string;
  value: string;
  authority: string;
  part: string;
}

/** Keys compared one by one up to this many; past it (a batch, a large Bundle) through a set. */
const SCAN_UP_TO = 64;

const idOf = (k: Kept): string => `${k.name}\u0000${k.value}\u0000${k.authority}\u0000${k.part}`;

/** One key per name, normalised value, authority and part: the first seen (its field is where it is shown). */
export function distinctKeys(keys: readonly ClinicalKey[], maxKeys = MAX_KEYS_PER_TRANSACTION): ClinicalKey[] {
  const out: ClinicalKey[] = [];
  // A message has a few tens of keys: comparing with those kept costs less than building and hashing a string each.
  const kept: Kept[] = [];
  const ids = new Set<string>();
  for (const key of keys) {
    if (out.length >= maxKeys) break;
    const value = comparable(key.value);
    if (value === '') continue;
    const candidate: Kept = { name: key.name, value, authority: key.authority === undefined ? '' : comparable(key.authority), part: key.part };
    if (kept.length < SCAN_UP_TO) {
      if (kept.some((k) => k.value === candidate.value && k.name === candidate.name && k.authority === candidate.authority && k.part === candidate.part)) continue;
      kept.push(candidate);
    } else {
      if (ids.size === 0) for (const k of kept) ids.add(idOf(k));
      const id = idOf(candidate);
      if (ids.has(id)) continue;
      ids.add(id);
    }
    out.push(key);
  }
  return out;
}
