/**
 * How a searchable key is kept in `search_keys` (search-schema.ts), shared by the writes and the filters so both
 * spell it alike: the three identifiers `any` stands for share the kind `i` (one index range answers `any`), the
 * message type is `t`; which names a value holds is a bit each in `names` (two bytes in every index entry, where
 * an array of names took forty, and a test the planner does not take for a rare one); an authority is kept with the
 * bit of the name it was given for (`1|hosp`), so narrowing a patient ID by authority never matches an order number's.
 */
import { ANY_KEY_NAMES } from '../../domain/clinical/clinical-key.js';
import type { KeyCondition, SearchableKeyName } from '../../domain/clinical/clinical-key.js';

/** `search_keys.kind`, one byte (`"char"`): `i` an identifier, `t` a message type. */
export type KeyKind = 'i' | 't';

export function kindOf(name: SearchableKeyName | 'any'): KeyKind {
  return name === 'messageType' ? 't' : 'i';
}

const BITS: Readonly<Record<SearchableKeyName, number>> = { patientId: 1, orderNumber: 2, controlId: 4, messageType: 8 };

/** The bit of `names` that says a value holds this name. */
export function nameBit(name: SearchableKeyName): number {
  return BITS[name];
}

/** Between the authorities of `search_keys.authorities`, and around them, so that each is found whole. */
const SEPARATOR = '\u001f';

/** An authority as kept: with the bit of the name of the key it qualifies (never holding the separator). */
export function qualifiedAuthority(name: SearchableKeyName, authority: string): string {
  return `${BITS[name]}|${authority.replaceAll(SEPARATOR, ' ')}`;
}

/** A key row's qualified authorities as `search_keys.authorities` keeps them; null for none. */
export function authoritiesText(authorities: Iterable<string>): string | null {
  const all = [...authorities];
  return all.length === 0 ? null : `${SEPARATOR}${all.join(SEPARATOR)}${SEPARATOR}`;
}

/** What `strpos` looks for in `search_keys.authorities` to find this qualified authority. */
export function authorityNeedle(qualified: string): string {
  return `${SEPARATOR}${qualified}${SEPARATOR}`;
}

/** The names a condition accepts. */
export function namesOf(condition: KeyCondition): readonly SearchableKeyName[] {
  return condition.name === 'any' ? ANY_KEY_NAMES : [condition.name];
}
