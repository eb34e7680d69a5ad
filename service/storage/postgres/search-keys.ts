/**
 * How a searchable key is kept in `search_keys` (search-schema.ts), shared by the writes and the filters so both
 * spell it alike: the three identifiers `any` stands for share the kind `id` (one index range answers `any`), the
 * message type is `type`, and an authority is kept with the name it was given for (`patientId|hosp`), so narrowing a
 * patient ID by authority never matches an order number's.
 */
import { ANY_KEY_NAMES } from '../../domain/clinical/clinical-key.js';
import type { KeyCondition, SearchableKeyName } from '../../domain/clinical/clinical-key.js';

export type KeyKind = 'id' | 'type';

export function kindOf(name: SearchableKeyName | 'any'): KeyKind {
  return name === 'messageType' ? 'type' : 'id';
}

/** An authority as kept: with the name of the key it qualifies. */
export function qualifiedAuthority(name: SearchableKeyName, authority: string): string {
  return `${name}|${authority}`;
}

/** The names a condition accepts. */
export function namesOf(condition: KeyCondition): readonly SearchableKeyName[] {
  return condition.name === 'any' ? ANY_KEY_NAMES : [condition.name];
}
