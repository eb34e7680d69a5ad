/**
 * The Import/Export page's decisions, pure: reading an export file, pairing validate's results with the file's
 * documents, and the import body the administrator's choices make (OpenHIM's console flow: a conflict is ignored
 * unless chosen to overwrite, or to duplicate under a new name).
 */
import type { MetadataResult } from '../../../../service/contracts/metadata';
import { UNIQUE_FIELD } from '../../../../service/contracts/metadata';
import type { MetadataBody } from '../../api/metadata';

/** What to do with one document: import it, leave it out, overwrite the existing one, or import it as a copy under a new name. */
export type Choice = 'import' | 'skip' | 'ignore' | 'overwrite' | 'duplicate';

export interface PlanItem {
  /** Stable key for the row. */
  key: string;
  model: string;
  uid: string;
  doc: unknown;
  check: MetadataResult;
  choice: Choice;
  /** The new unique name of a duplicate. */
  newName: string;
}

/** The file's collections: an export (`[ {...} ]`) or the object inside it. Throws a sentence when it is neither. */
export function readExportFile(text: string): MetadataBody {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new Error('This file is not JSON. Choose a file exported from Junction or OpenHIM.');
  }
  const top = Array.isArray(parsed) && parsed.length === 1 ? (parsed[0] as unknown) : parsed;
  if (typeof top !== 'object' || top === null || Array.isArray(top)) throw new Error('This file does not hold an export: expected an object of collections such as "Channels" and "Users".');
  const body: MetadataBody = {};
  for (const [key, value] of Object.entries(top)) {
    if (!Array.isArray(value)) throw new Error(`"${key}" in this file is not a list of records.`);
    body[key] = value;
  }
  if (Object.keys(body).length === 0) throw new Error('This file holds no collections to import.');
  return body;
}

/** True when some document carries secrets sealed with a passphrase. */
export function hasSealedSecrets(body: MetadataBody): boolean {
  return Object.values(body).some((docs) => docs.some((d) => typeof d === 'object' && d !== null && 'encryptedSecrets' in d));
}

function uniqueField(model: string): string | undefined {
  return (UNIQUE_FIELD as Record<string, string>)[model];
}

/** The document's unique key as the service reports it (emails lower-case). */
function uidOf(model: string, doc: unknown): string {
  const field = uniqueField(model);
  const value = field === undefined || typeof doc !== 'object' || doc === null ? undefined : (doc as Record<string, unknown>)[field];
  if (typeof value !== 'string') return '';
  return model === 'Users' ? value.trim().toLowerCase() : value.trim();
}

/**
 * Pairs each validate result with its document in the file, by collection and unique key (in order where a key
 * repeats): results come back in the service's import order, not the file's. Valid ones default to import, conflicts
 * to ignore, as in OpenHIM's console.
 */
export function planFrom(body: MetadataBody, results: readonly MetadataResult[]): PlanItem[] {
  const pools = new Map<string, unknown[]>();
  for (const [model, docs] of Object.entries(body)) {
    for (const doc of docs) {
      const key = `${model}\u0000${uidOf(model, doc)}`;
      pools.set(key, [...(pools.get(key) ?? []), doc]);
    }
  }
  return results.map((check, i) => {
    const pool = pools.get(`${check.model}\u0000${check.uid}`) ?? [];
    const doc = pool.shift() ?? check.record;
    const choice: Choice = check.status === 'Conflict' ? 'ignore' : check.status === 'Valid' ? 'import' : 'skip';
    return { key: `${i}`, model: check.model, uid: check.uid, doc, check, choice, newName: '' };
  });
}

/** Why a duplicate's new name cannot be used, or null. */
export function newNameProblem(item: PlanItem, all: readonly PlanItem[]): string | null {
  if (item.choice !== 'duplicate') return null;
  const name = item.newName.trim();
  if (name === '') return 'Enter a new name for the copy';
  const taken = all.some((other) => other.model === item.model && (other.uid === (item.model === 'Users' ? name.toLowerCase() : name) || (other !== item && other.choice === 'duplicate' && other.newName.trim() === name)));
  return taken ? 'This name is already used; choose another' : null;
}

/** The import body of the chosen documents: duplicates under their new name, ignored and skipped ones left out. */
export function importBody(items: readonly PlanItem[]): MetadataBody {
  const body: MetadataBody = {};
  for (const item of items) {
    if (item.choice === 'skip' || item.choice === 'ignore') continue;
    let doc = item.doc;
    const field = uniqueField(item.model);
    if (item.choice === 'duplicate' && field !== undefined && typeof doc === 'object' && doc !== null) doc = { ...doc, [field]: item.newName.trim() };
    (body[item.model] ??= []).push(doc);
  }
  return body;
}

/** "Channel", "User"… for a collection name. */
export function modelLabel(model: string): string {
  const labels: Record<string, string> = { Channels: 'Channel', Clients: 'Client', Mediators: 'Mediator', Users: 'User', ContactGroups: 'Contact group', KeystoreModelAPI: 'Certificates', Keystore: 'Certificates' };
  return labels[model] ?? model;
}
