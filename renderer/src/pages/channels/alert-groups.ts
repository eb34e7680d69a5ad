/**
 * An alert's groups are contact group ids (as in OpenHIM), but people know the groups by name: the editor offers the
 * groups by name and stores their ids, and still shows an id that names no group, so it can be seen and removed.
 */
import type { ContactGroupChoice } from '../../api/contact-groups';

/** One choice of the Groups field: the stored id and what the user reads. */
export interface AlertGroupOption {
  value: string;
  label: string;
}

/**
 * The Groups field's choices: every contact group by name (sorted), then each chosen id that names none. `groups`
 * null means they could not be fetched: a chosen id is then shown as it is, as it cannot be told unknown.
 */
export function alertGroupOptions(groups: readonly ContactGroupChoice[] | null, chosen: readonly string[]): AlertGroupOption[] {
  const known = [...(groups ?? [])].sort((a, b) => a.group.localeCompare(b.group)).map((g) => ({ value: g._id, label: g.group }));
  const ids = new Set(known.map((o) => o.value));
  const others = [...new Set(chosen)].filter((id) => !ids.has(id)).map((id) => ({ value: id, label: groups === null ? id : `unknown group ${id}` }));
  return [...known, ...others];
}
